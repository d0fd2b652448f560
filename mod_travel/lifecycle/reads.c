/* GET .../bookings and GET .../bookings/{id} for every domain (reads.h). */
#include "reads.h"
#include "core/errors.h"

#include <apr_strings.h>

void trv_lifecycle_reads_list(trv_req *req, trv_resp *resp, const trv_lifecycle_reads *r,
                              int logno_open, int logno_read)
{
    trv_errs *errs = trv_errs_new(req->pool);
    trv_list_filter f;
    apr_array_header_t *page, *parts;
    long total, n;
    const char *joined;
    trv_dbc *c;
    int i;

    trv_list_filter_read(req->pool, req->query, r->statuses, r->suppliers(req->env, req->pool),
                         r->with_reference, &f, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    f.org_id = req->org_id;
    f.user_id = r->list->nowners > 1 ? req->user_id : NULL;
    if (!trv_api_db_open(req, resp, &c, logno_open, r->listing)) {
        return;
    }
    /* The kept or joined page is written into the envelope as is (one
     * field for libpq, one copy here). */
    if (trv_list_page_read(r->list, c, req->pool, &f, &joined, &n, &page, &total)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, logno_read, r->listing);
        return;
    }
    trv_db_close(req->env->db, c);
    if (joined) {
        trv_ok_joined(req, resp, 200, joined, trv_list_meta(f.limit, f.offset, n, total));
        return;
    }
    /* A booking whose rendering is not stored for its revision (its render
     * job has not run yet, or time made it EXPIRED) is rendered for this
     * answer only. The stub's list_doc is the shared row's (lifecycle/row.h). */
    parts = apr_array_make(req->pool, page->nelts ? page->nelts : 1, sizeof(char *));
    for (i = 0; i < page->nelts; i++) {
        const void *b = APR_ARRAY_IDX(page, i, const void *);
        const char *doc = *(const char *const *)(const void *)((const char *)b
                                                               + r->list->stub.list_doc);
        APR_ARRAY_PUSH(parts, const char *) = doc ? doc : r->text(req->pool, b, 0);
    }
    trv_ok_items(req, resp, 200, parts, trv_list_meta(f.limit, f.offset, page->nelts, total));
}

void trv_lifecycle_reads_get(trv_req *req, trv_resp *resp, const trv_lifecycle_reads *r,
                             int logno_open, int logno_read)
{
    const char *id = apr_table_get(req->params, "id"), *doc;
    const char *user_id = r->list->nowners > 1 ? req->user_id : NULL;
    void *b;
    trv_dbc *c;

    if (!trv_api_db_open(req, resp, &c, logno_open, r->reading)) {
        return;
    }
    /* The usual read: the stored rendering of the current revision. */
    if (trv_list_page_doc(r->list, c, req->pool, req->org_id, user_id, id, &doc)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, logno_read, r->reading);
        return;
    }
    if (doc) {
        trv_db_close(req->env->db, c);
        trv_ok_text(req, resp, 200, doc, NULL);
        return;
    }
    if (!(b = trv_api_booking_read(req, resp, c, r->reader, id, logno_read, r->reading))) {
        return;
    }
    /* Cold, or past its expiry: rendered here, nothing kept. */
    trv_db_close(req->env->db, c);
    trv_ok_text(req, resp, 200, r->text(req->pool, b, 1), NULL);
}
