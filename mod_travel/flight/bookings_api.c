/* GET /v1/flight/bookings and GET /v1/flight/bookings/{id}: the booking in
 * any status, only to its organization and user (404 otherwise). Reads are
 * reads: they write nothing. A booking's renderings are stored by its
 * render job (render_job.c, queued with every change by sql/045); until
 * that has run, a read renders the booking itself and keeps nothing. What
 * time has decided shows at once (READY_FOR_COMPLETE past expires_at reads
 * as EXPIRED; the expiry job stores it), and airline-initiated changes come
 * from the scheduled order reads (sync_schedule.h), not from readers. */
#include "handlers.h"
#include "render.h"
#include "core/json.h"
#include "core/list_page.h"
#include "state.h"
#include "booking_store.h"
#include "supplier.h"
#include "core/clock.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <limits.h>
#include <string.h>

static json_t *list_meta(const trv_list_filter *f, long n, long total)
{
    return trv_list_meta(f->limit, f->offset, n, total);
}

void trv_flight_list(trv_req *req, trv_resp *resp)
{
    trv_errs *errs = trv_errs_new(req->pool);
    trv_list_filter f;
    int i;
    apr_array_header_t *page;
    long total, n;
    trv_dbc *c;
    apr_array_header_t *parts;
    const char *joined;

    trv_list_filter_read(req->pool, req->query, trv_fb_statuses,
                         trv_flight_supplier_names(req->env->cfg, req->pool), 1, &f, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    f.org_id = req->org_id;
    f.user_id = req->user_id;

    if (!trv_api_db_open(req, resp, &c, 301, "listing flight bookings")) {
        return;
    }
    /* The usual page as the render jobs keep it whole (sql/047); else,
     * warm: the page as one text joined by PostgreSQL. Either is written
     * into the envelope as is (one field for libpq, one copy here); else
     * the page row by row. */
    if (trv_list_page_read(&trv_fbooking_list, c, req->pool, &f, &joined, &n, &page, &total)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 302, "listing flight bookings");
        return;
    }
    if (joined) {
        trv_db_close(req->env->db, c);
        trv_ok_joined(req, resp, 200, joined, list_meta(&f, n, total));
        return;
    }
    /* The page is the stored renderings joined; a booking whose render
     * job has not run yet for its revision is rendered here. */
    parts = apr_array_make(req->pool, page->nelts ? page->nelts : 1, sizeof(char *));
    for (i = 0; i < page->nelts; i++) {
        trv_fbooking *b = APR_ARRAY_IDX(page, i, trv_fbooking *);
        APR_ARRAY_PUSH(parts, const char *) = b->list_doc ? b->list_doc
            : trv_frender_booking_text(req->pool, b, TRV_RENDER_LIST);
    }
    trv_db_close(req->env->db, c);
    trv_ok_items(req, resp, 200, parts, list_meta(&f, page->nelts, total));
}

void trv_flight_get(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    const char *doc;
    trv_fbooking *b;
    trv_dbc *c;

    if (!trv_api_db_open(req, resp, &c, 303, "reading a flight booking")) {
        return;
    }
    /* A warm read: the stored rendering of the current revision, one query. */
    if (trv_fbooking_get_doc(c, req->pool, req->org_id, req->user_id, id, &doc)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 304, "reading a flight booking");
        return;
    }
    if (doc) {
        trv_db_close(req->env->db, c);
        trv_ok_text(req, resp, 200, doc, NULL);
        return;
    }
    if (!(b = trv_api_booking_read(req, resp, c, &trv_freply_reader, id, 304,
                                   "reading a flight booking"))) {
        return;
    }
    /* Cold (its render job has not run yet) or past expiry: rendered
     * here, nothing kept. */
    trv_db_close(req->env->db, c);
    trv_ok_text(req, resp, 200, trv_frender_booking_text(req->pool, b, TRV_RENDER_FULL), NULL);
}
