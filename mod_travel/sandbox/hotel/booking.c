/* Booking, reading and cancelling: the steps every hotel supplier shares,
 * each answered in the supplier's own format by a render callback; see
 * hotel.h. */
#include "hotel.h"
#include "core/clock.h"

#include <apr_strings.h>
#include <string.h>

/* The stored booking id of a fresh transaction, rendered. */
static json_t *render_stored(trv_req *req, trv_resp *resp, trv_dbc *c, int s, const char *id,
                             sbx_hrender render)
{
    trv_rows *rows;
    json_t *doc;
    if (!sbx_hbooking_load(req, resp, c, s, id, &rows, &doc)) {
        return NULL;
    }
    return trv_json_bind(req->pool, render(req, rows, doc));
}

void sbx_hbook_run(trv_req *req, trv_resp *resp, const sbx_hbooking_new *b,
                   const char *refuse_code, const char *duplicate_code, int ok,
                   sbx_hrender render)
{
    trv_dbc *c;
    const char *dup;
    int same_prebook;
    json_t *out;

    if (b->ignores_idempotency_key) {
        apr_table_unset(req->headers, "Idempotency-Key");
    }
    if (!sbx_idem_begin(req, resp, &c, 1710, "booking a hotel")) {
        return;
    }
    if (b->trigger->failbook) {
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, refuse_code,
            "The hotel refused the booking (test trigger Failbook)"));
        sbx_idem_finish(req, resp, c, 422, err, 1711, "booking a hotel");
        return;
    }
    if (sbx_hbooking_insert(c, req->pool, b, &dup, &same_prebook) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1712, "booking a hotel");
        return;
    }
    if (dup) {
        if (b->supplier == 0 && same_prebook) {
            /* The prebook was booked before (a retry, under its reference
             * or none): that booking, never a second. */
            if ((out = render_stored(req, resp, c, b->supplier, dup, render))) {
                sbx_idem_finish(req, resp, c, 200, out, 1713, "booking a hotel");
            }
            return;
        }
        out = trv_json_bind(req->pool, sbx_error_doc(req, duplicate_code,
            "A booking with this client reference exists: %s", dup));
        json_object_set_new(json_object_get(out, "error"), "existing_booking_id",
                            json_string(dup));
        sbx_idem_finish(req, resp, c, 409, out, 1714, "booking a hotel");
        return;
    }
    if (!(out = render_stored(req, resp, c, b->supplier, b->id, render))) {
        return;
    }
    /* An API that answers a create with 201 answers a pending one 202. */
    /* A booking the hotel confirms later answers as any other (Rapid's
     * create is 201; its rooms read pending). */
    sbx_idem_finish(req, resp, c, ok, out, 1715, "booking a hotel");
    if (b->trigger->unknown) {
        /* Made, but the answer comes too late: the caller times out and
         * must find the booking by reading, not buy again. */
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(1716) "sandbox hotels: booking %s made, hanging (test trigger "
                    "sandbox-unknown)", b->id);
        sbx_sleep(req, SBX(req)->set->hang);
    }
}

void sbx_hread_run(trv_req *req, trv_resp *resp, int s, const char *id, sbx_hrender render)
{
    trv_dbc *c;
    json_t *out;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1717, "reading a hotel booking");
        return;
    }
    if (!(out = render_stored(req, resp, c, s, id, render))) {
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_incref(out));
}

void sbx_hcancel_run(trv_req *req, trv_resp *resp, int s, const char *id,
                     const char *fail_code, sbx_hrender render_cancel)
{
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc, *block, *out;
    const char *status;
    apr_int64_t fee, refund, now = sbx_now();
    int done;

    if (!sbx_idem_begin(req, resp, &c, 1718, "cancelling a hotel booking")) {
        return;
    }
    if (!sbx_hbooking_load(req, resp, c, s, id, &rows, &doc)) {
        return;
    }
    status = trv_rows_get(rows, 0, "status");
    if (strcmp(status, "cancelled") == 0) {
        out = trv_json_bind(req->pool, render_cancel(req, rows, doc));
        sbx_idem_finish(req, resp, c, 200, out, 1719, "cancelling a hotel booking");
        return;
    }
    if (strcmp(status, "pending") == 0) {
        out = trv_json_bind(req->pool, sbx_error_doc(req, "booking_pending",
            "The booking is not confirmed yet; retry when it is"));
        sbx_idem_finish(req, resp, c, 409, out, 1720, "cancelling a hotel booking");
        return;
    }
    if (trv_rows_bool(rows, 0, "restricted")) {
        out = trv_json_bind(req->pool, sbx_error_doc(req, "cancellation_restricted",
            "The property restricts cancellation of this itinerary (test trigger "
            "Restricted); see its restrictions"));
        sbx_idem_finish(req, resp, c, 409, out, 1721, "cancelling a hotel booking");
        return;
    }
    if (trv_rows_bool(rows, 0, "cancel_fails")) {
        out = trv_json_bind(req->pool, sbx_error_doc(req, fail_code,
            "The hotel could not cancel the booking (test trigger sandbox-cancel-fails)"));
        sbx_idem_finish(req, resp, c, 422, out, 1722, "cancelling a hotel booking");
        return;
    }
    sbx_hdoc_cancel_terms(doc, now, &fee, &refund);
    block = trv_json_bind(req->pool, json_pack("{s:I,s:I,s:s,s:s}", "fee", (json_int_t)fee,
        "refund", (json_int_t)refund, "currency", trv_rows_get(rows, 0, "currency"),
        "cancelled_at", sbx_instant(req->pool, now)));
    if (sbx_hbooking_cancel(c, req->pool, id, block, &done) != APR_SUCCESS || !done) {
        sbx_db_fail(req, resp, c, 1723, "cancelling a hotel booking");
        return;
    }
    if (!sbx_hbooking_load(req, resp, c, s, id, &rows, &doc)) {
        return;
    }
    out = trv_json_bind(req->pool, render_cancel(req, rows, doc));
    sbx_idem_finish(req, resp, c, 200, out, 1724, "cancelling a hotel booking");
}
