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
    trv_errs *errs = trv_errs_new(req->pool);
    trv_list_filter f;
    int i;
    apr_array_header_t *page, *parts;
    long total, n;
    const char *joined;
    trv_dbc *c;

    trv_list_filter_read(req->pool, req->query, trv_hb_statuses,
                         supplier_names(req->env, req->pool), 0, &f, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    f.org_id = req->org_id;
    if (!trv_api_db_open(req, resp, &c, 1445, "listing hotel bookings")) {
        return;
    }
    /* The usual page as the changes keep it whole (sql/143); else, warm:
     * the page as one text joined by PostgreSQL. Either is written into
     * the envelope as is (one field for libpq, one copy here); else the
     * page row by row. */
    if (trv_list_page_read(&trv_hbooking_list, c, req->pool, &f, &joined, &n, &page, &total)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1445, "listing hotel bookings");
        return;
    }
    if (joined) {
        trv_db_close(req->env->db, c);
        trv_ok_joined(req, resp, 200, joined, trv_list_meta(f.limit, f.offset, n, total));
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
    if (!(b = trv_api_booking_read(req, resp, c, &trv_hreply_reader, id, 1446,
                                   "reading a hotel booking"))) {
        return;
    }
    trv_db_close(req->env->db, c);
    trv_hreply_booking(req, resp, 200, b, NULL);
}
