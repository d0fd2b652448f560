/* GET /v1/hotel/bookings and GET /v1/hotel/bookings/{id}: the
 * organization's hotel bookings in any status (another organization's is
 * a 404). Reads write nothing: every change to a booking stores its
 * renderings in its own transaction (render.h), so a read is one query
 * from stored text; a booking without a current rendering (time made it
 * EXPIRED, or a change that kept none) is rendered for the answer alone. */
#include "handlers.h"
#include "reply.h"
#include "booking_store.h"
#include "render.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/list_page.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <limits.h>
#include <string.h>

/* The configured suppliers' wire names, NULL-terminated. */
static const char *const *supplier_names(const trv_env *env, apr_pool_t *p)
{
    const trv_supplier *rows = trv_hotel_supplier_rows(env);
    const char **names;
    int n = 0, i;
    while (rows[n].name) {
        n++;
    }
    names = apr_pcalloc(p, sizeof(char *) * (n + 1));
    for (i = 0; i < n; i++) {
        names[i] = rows[i].name;
    }
    return names;
}

void trv_hotel_bookings(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"limit", "offset", "status", "supplier",
        "created_from", "created_to", "sort_by", "sort_order", NULL};
    static const char *const sorts[] = {"created_at", "total_amount", NULL};
    static const char *const orders[] = {"asc", "desc", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    trv_hbooking_filter f;
    const char *sort_by, *sort_order;
    apr_time_t from = 0, to = 0;
    int has_from, has_to, i;
    apr_array_header_t *page, *parts;
    long total, n;
    const char *joined;
    trv_dbc *c;

    memset(&f, 0, sizeof(f));
    trv_query_known(req->query, known, errs);
    f.limit = trv_query_int(req->query, "limit", 20, 1, 100, errs);
    f.offset = trv_query_int(req->query, "offset", 0, 0, LONG_MAX, errs);
    f.status = trv_query_enum(req->query, "status", trv_hb_statuses, NULL, errs);
    f.supplier = trv_query_enum(req->query, "supplier", supplier_names(req->env, req->pool), NULL, errs);
    has_from = trv_query_instant(req->query, "created_from", 0, &from, errs);
    has_to = trv_query_instant(req->query, "created_to", 1, &to, errs);
    sort_by = trv_query_enum(req->query, "sort_by", sorts, "created_at", errs);
    sort_order = trv_query_enum(req->query, "sort_order", orders, "desc", errs);
    f.sort_by_total = sort_by && strcmp(sort_by, "total_amount") == 0;
    f.ascending = sort_order && strcmp(sort_order, "asc") == 0;
    if (has_from && has_to && from > to) {
        trv_errs_add(errs, "created_from", "must not be after created_to");
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    f.org_id = req->org_id;
    f.created_from = has_from ? trv_time_format(req->pool, from) : NULL;
    f.created_to = has_to ? trv_time_format(req->pool, to) : NULL;
    if (!trv_api_db_open(req, resp, &c, 1445, "listing hotel bookings")) {
        return;
    }
    /* The usual page as the changes keep it whole (sql/143); else, warm:
     * the page as one text joined by PostgreSQL. Either is written into
     * the envelope as is (one field for libpq, one copy here). */
    if (trv_hbooking_query_head(c, req->pool, &f, &joined, &n, &total) != APR_SUCCESS
        || (!joined
            && trv_hbooking_query_joined(c, req->pool, &f, &joined, &n, &total) != APR_SUCCESS)) {
        trv_api_db_fail(req, resp, c, 1445, "listing hotel bookings");
        return;
    }
    if (joined) {
        trv_db_close(req->env->db, c);
        trv_ok_joined(req, resp, 200, joined, trv_list_meta(f.limit, f.offset, n, total));
        return;
    }
    if (trv_hbooking_query_list(c, req->pool, &f, &page, &total) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1445, "listing hotel bookings");
        return;
    }
    trv_db_close(req->env->db, c);
    /* A booking without a current rendering (time made it EXPIRED, or a
     * change that kept none) is rendered for this answer only. */
    parts = apr_array_make(req->pool, page->nelts ? page->nelts : 1, sizeof(char *));
    for (i = 0; i < page->nelts; i++) {
        trv_hbooking *b = APR_ARRAY_IDX(page, i, trv_hbooking *);
        APR_ARRAY_PUSH(parts, const char *) = b->list_doc
            ? b->list_doc
            : trv_json_dump(req->pool, trv_json_bind(req->pool, trv_hrender_booking(
                                                                 req->pool, b,
                                                                 TRV_HRENDER_LIST)));
    }
    trv_ok_items(req, resp, 200, parts, trv_list_meta(f.limit, f.offset, page->nelts, total));
}

void trv_hotel_booking(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *doc;
    trv_hbooking *b;
    trv_dbc *c;
    if (!trv_api_db_open(req, resp, &c, 1446, "reading a hotel booking")) {
        return;
    }
    /* The usual read: the stored rendering of the current revision. */
    if (trv_hbooking_get_doc(c, req->pool, req->org_id, id, &doc) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1446, "reading a hotel booking");
        return;
    }
    if (doc) {
        trv_db_close(req->env->db, c);
        trv_ok_text(req, resp, 200, doc, NULL);
        return;
    }
    if (trv_hbooking_get(c, req->pool, req->org_id, id, &b) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1446, "reading a hotel booking");
        return;
    }
    trv_db_close(req->env->db, c);
    if (!b) {
        trv_hreply_no_booking(req, resp, id);
        return;
    }
    trv_hreply_booking(req, resp, 200, b, NULL);
}
