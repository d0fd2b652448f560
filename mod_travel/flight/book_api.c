/* POST /v1/flight/bookings/{id}/book: 200 CONFIRMED, 202 while the
 * supplier is ticketing (the same 202 on repeat), 500 result_unknown when
 * the supplier did not answer (never sent again), 200 unchanged on a
 * CONFIRMED booking, 409 invalid_state on an expired or finished one.
 * Concurrent books of one booking: one wins the guarded
 * READY_FOR_COMPLETE -> COMPLETE_IN_PROGRESS update and pays; the others
 * answer 202 (or the result, once there is one). */
#include "handlers.h"
#include "book.h"
#include "lifecycle/book_answer.h"
#include "input.h"
#include "enqueue.h"
#include "core/owner.h"
#include "state.h"
#include "booking_store.h"

#include <apr_strings.h>
#include <string.h>

/* Reads the booking again (with its payments) and answers `status`. */
static void answer_fresh(trv_req *req, trv_resp *resp, const char *id, int status)
{
    trv_dbc *c;
    trv_fbooking *b;
    if (!trv_api_db_open(req, resp, &c, 320, "reading a booked booking")) {
        return;
    }
    if (trv_fbooking_get(c, req->pool, req->org_id, req->user_id, id, &b)
        != APR_SUCCESS || !b) {
        trv_api_db_fail(req, resp, c, 321, "reading a booked booking");
        return;
    }
    trv_db_close(req->env->db, c);
    trv_freply_booking(req, resp, status, b, NULL);
}

static void answer_unknown(trv_req *req, trv_resp *resp, const char *id)
{
    trv_fail(req, resp, 500, "result_unknown",
             "The supplier did not answer in time, so whether booking %s was ticketed is "
             "unknown. Do not book it again: read the booking", id);
}

/* Answers a booking that is not (or no longer) READY_FOR_COMPLETE. */
static void answer_state(trv_req *req, trv_resp *resp, const void *booking)
{
    const trv_fbooking *b = booking;
    switch (trv_fb_book_decision(b->status, b->book_phase, b->past_expiry)) {
    case TRV_FB_BOOK_CONFIRMED:
        trv_freply_booking(req, resp, 200, b, NULL);
        return;
    case TRV_FB_BOOK_IN_PROGRESS:
        trv_freply_booking(req, resp, 202, b, NULL);
        return;
    case TRV_FB_BOOK_UNKNOWN:
        answer_unknown(req, resp, b->id);
        return;
    case TRV_FB_BOOK_EXPIRED:
        trv_fail(req, resp, 409, "invalid_state",
                 "Booking %s expired at %s and cannot be booked; prebook again", b->id,
                 b->expires_at ? b->expires_at : "its deadline");
        return;
    default:
        trv_fail(req, resp, 409, "invalid_state", "Booking %s is %s and cannot be booked",
                 b->id, trv_transit_text(&trv_fb_status_table, b->status));
    }
}

/* Nothing was charged (the supplier or the payment provider failed or did
 * not answer before anything was bought): 502/504. */
static void upstream_failed(trv_req *req, trv_resp *resp, trv_up_status st, const char *id,
                            const char *message)
{
    trv_freply_upstream_fail(req, resp, st,
                             st == TRV_UP_TIMEOUT
                                 ? apr_psprintf(req->pool, "The payment provider (booking %s)", id)
                                 : apr_psprintf(req->pool, "booking %s (nothing was charged; book "
                                                "again)", id),
                             message);
}

static const trv_lifecycle_book_answers answers = {
    "the airline could not issue the ticket", "is not a payment instrument the provider knows",
    answer_fresh, answer_unknown, upstream_failed, &trv_freply_reader, answer_state};

void trv_flight_book(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_errs *errs = trv_errs_new(req->pool);
    const char *instrument = trv_finput_book(req->pool, req->json, errs);
    const char *owner = trv_owner_self(req->pool);
    trv_fbooking *b, *started;
    trv_dbc *c;
    trv_fb_phase phase;

    if (!(b = trv_api_booking_open(req, resp, errs, &trv_freply_reader, id, 322, 323,
                                   "reading a booking to book", &c))) {
        return;
    }
    if (b->past_expiry) {
        trv_fbooking *e;
        if (trv_fbooking_expire_one(c, req->pool, id, &e) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 324, "expiring a booking");
            return;
        }
        b = e ? e : b;
    }
    if (trv_fb_book_decision(b->status, b->book_phase, b->past_expiry) != TRV_FB_BOOK_START) {
        trv_db_close(req->env->db, c);
        answer_state(req, resp, b);
        return;
    }
    /* Who pays decides the body: a saved instrument when the service
     * collects, {} after an SDK checkout or when the supplier collects. */
    if (trv_lifecycle_book_answer_body(req, resp, c, errs, b->id, b->supplier, instrument,
                                       b->use_payment_sdk,
                                       trv_fbook_service_pays(req->env, b))) {
        return;
    }
    phase = trv_fbook_service_pays(req->env, b) ? TRV_FB_PHASE_AUTHORIZING
                                               : TRV_FB_PHASE_ORDERING;
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_fbooking_book_start(c, req->pool, req->org_id, req->user_id, id, phase, owner,
                                   trv_fbook_phase_budget(req->env, b, phase), instrument,
                                   &started) != APR_SUCCESS
        || (started
            && trv_fjob_enqueue(c, req->pool, TRV_FJOB_COMPLETE, id, started->book_attempt,
                                req->request_id, apr_time_from_sec(2)) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 325, "starting book");
        return;
    }
    trv_lifecycle_book_answer_started(req, resp, c, &trv_book_lifecycle, &answers, id, owner,
                                      started, 326, "reading a booking to book");
}
