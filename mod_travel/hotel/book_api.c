/* POST /v1/hotel/bookings/{id}/book: 200 CONFIRMED, 202
 * COMPLETE_IN_PROGRESS while the supplier confirms (then
 * hotel.booking.confirmed; the same 202 on repeat), 500 result_unknown when
 * the supplier did not answer (the booking is read at the supplier, never
 * bought again), 422 book_failed when the supplier refused (FAILED, the
 * payment voided), 200 unchanged on a CONFIRMED booking, 409 invalid_state
 * on an expired or finished one. Concurrent books of one booking: one wins
 * the guarded READY_FOR_COMPLETE -> COMPLETE_IN_PROGRESS update and pays;
 * the others answer from where it stands. */
#include "handlers.h"
#include "reply.h"
#include "book.h"
#include "lifecycle/book_answer.h"
#include "booking_store.h"
#include "enqueue.h"
#include "intents.h"
#include "render.h"
#include "core/owner.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <string.h>

/* An SDK booking that expires here hands its session to the
 * hotel.payment.release job in the same transaction: the job cancels it
 * (the customer's device can pay it no more) and voids whatever the device
 * paid before. e: the booking made EXPIRED now, or NULL. */
static apr_status_t release_expired_sdk(trv_req *req, trv_dbc *c, const trv_hbooking *e)
{
    trv_prelease rel;
    if (!e || !e->use_payment_sdk || !e->sdk_token || !e->currency || !e->total_amount) {
        return APR_SUCCESS;
    }
    if (trv_pintent_sdk_release(&trv_hotel_intents, c, req->pool, e->id, e->book_attempt,
                                e->currency, e->total_amount, NULL, &rel) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return trv_pintent_schedule(&trv_hotel_intents, c, req->pool, &rel, req->request_id);
}

/* Nothing was bought (the supplier or the payment provider failed or did
 * not answer before the supplier was asked): 502/504. */
static void upstream_failed(trv_req *req, trv_resp *resp, trv_up_status st, const char *id,
                            const char *message)
{
    trv_fail_upstream(req, resp, st, 1444, "hotel ",
                      apr_psprintf(req->pool, "booking %s (nothing was bought; book again)", id),
                      message);
}

static void answer_unknown(trv_req *req, trv_resp *resp, const char *id)
{
    trv_fail(req, resp, 500, "result_unknown",
             "The supplier did not answer in time, so whether hotel booking %s was made is "
             "unknown. Do not book it again: read the booking (it is read at the supplier "
             "and settles by itself)", id);
}

/* Answers a booking that is not (or no longer) READY_FOR_COMPLETE. */
static void answer_state(trv_req *req, trv_resp *resp, const void *booking)
{
    const trv_hbooking *b = booking;
    trv_hb_status st = trv_hbooking_status(b);
    switch (st) {
    case TRV_HB_CONFIRMED:
        trv_hreply_booking(req, resp, 200, b, NULL);
        return;
    case TRV_HB_COMPLETING:
        if (b->book_phase == TRV_HB_PHASE_UNKNOWN) {
            answer_unknown(req, resp, b->id);
        }
        else {
            trv_hreply_booking(req, resp, 202, b, NULL);
        }
        return;
    case TRV_HB_FAILED:
        if (b->failure) {
            trv_fail(req, resp, 422, "book_failed", "Booking %s is FAILED: %s; prebook again "
                     "with a new x-idempotency-key", b->id,
                     trv_json_str(b->failure, "description")
                         ? trv_json_str(b->failure, "description") : "the supplier refused it");
            return;
        }
        break;
    case TRV_HB_EXPIRED:
        trv_fail(req, resp, 409, "invalid_state", "Booking %s expired at %s and cannot be "
                 "booked; prebook again", b->id,
                 b->offer_expires_at ? b->offer_expires_at : "its deadline");
        return;
    case TRV_HB_CREATED:
    case TRV_HB_PREBOOK_IN_PROGRESS:
    case TRV_HB_READY:
    case TRV_HB_CANCELING:
    case TRV_HB_CANCELED:
        break;
    }
    trv_fail(req, resp, 409, "invalid_state", "Booking %s is %s and cannot be booked",
             b->id, trv_transit_text(&trv_hb_status_table, st));
}

static void answer_fresh(trv_req *req, trv_resp *resp, const char *id, int status)
{
    trv_dbc *c;
    trv_hbooking *b;
    if (!trv_api_db_open(req, resp, &c, 1441, "reading a booked hotel booking")) {
        return;
    }
    if (trv_hbooking_get(c, req->pool, req->org_id, id, &b) != APR_SUCCESS || !b) {
        trv_api_db_fail(req, resp, c, 1441, "reading a booked hotel booking");
        return;
    }
    trv_db_close(req->env->db, c);
    trv_hreply_booking(req, resp, status, b, NULL);
}

static const trv_lifecycle_book_answers answers = {
    "the hotel refused the booking", "was not accepted", answer_fresh, answer_unknown,
    upstream_failed, &trv_hreply_reader, answer_state};

/* The body: {payment_instrument_id} or {} (the payment SDK). A card
 * number is refused whatever the supplier: a merchant-of-record supplier
 * gets the card from the payment provider, which forwards the saved
 * instrument's card to it, so no card number passes through the service. */
static void read_body(trv_req *req, const char **instrument, trv_errs *errs)
{
    /* card is named so that it gets its own reason, not "unknown". */
    static const char *const known[] = {"payment_instrument_id", "card", NULL};
    const json_t *body = req->json;
    *instrument = NULL;
    if (!body) {
        return;
    }
    if (!json_is_object(body)) {
        trv_errs_add(errs, "body", "must be a JSON object");
        return;
    }
    if (json_object_get(body, "card")) {
        trv_errs_add(errs, "card", "is not accepted: card numbers never pass through this API; "
                     "book with payment_instrument_id, a saved instrument the payment provider "
                     "holds (it forwards the card to a supplier that charges it)");
    }
    trv_json_known(body, NULL, known, errs);
    *instrument = trv_json_req_str(body, "payment_instrument_id", "payment_instrument_id", 0, 1,
                                   200, errs);
}

void trv_hotel_book(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    const char *owner = trv_owner_self(req->pool), *instrument;
    trv_hb_phase phase;
    trv_errs *errs = trv_errs_new(req->pool);
    trv_hbooking *b, *started;
    trv_dbc *c;
    int pays;

    read_body(req, &instrument, errs);
    if (!(b = trv_api_booking_open(req, resp, errs, &trv_hreply_reader, id, 1442, 1442,
                                   "reading a hotel booking to book", &c))) {
        return;
    }
    if (b->past_expiry) {
        trv_hbooking *e;
        if (trv_db_begin(c, req->pool) != APR_SUCCESS
            || trv_hbooking_expire_one(c, req->pool, id, &e) != APR_SUCCESS
            || trv_hrender_keep(c, req->pool, e) != APR_SUCCESS
            || release_expired_sdk(req, c, e) != APR_SUCCESS
            || trv_db_commit(c) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 1442, "expiring a hotel booking");
            return;
        }
        b = e ? e : b;
    }
    if (trv_hbooking_status(b) != TRV_HB_READY) {
        trv_db_close(req->env->db, c);
        answer_state(req, resp, b);
        return;
    }
    /* The payment SDK books with {}; every other booking names the saved
     * instrument, whoever charges it. */
    pays = trv_hbook_service_pays(req->env, b);
    if (trv_lifecycle_book_answer_body(req, resp, c, errs, b->id, b->supplier, instrument,
                                       b->use_payment_sdk, 1)) {
        return;
    }
    phase = pays ? TRV_HB_PHASE_AUTHORIZING : TRV_HB_PHASE_ORDERING;
    /* The recovery job is queued with the start: if this request dies, it
     * takes the step over once its deadline has passed. */
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_hbooking_book_start(c, req->pool, req->org_id, id, phase, owner,
                                   trv_hbook_budget(req->env, b, phase), instrument, &started)
           != APR_SUCCESS
        || (started && (trv_hrender_keep(c, req->pool, started) != APR_SUCCESS
                        || trv_hjob_enqueue(c, req->pool, TRV_HJOB_COMPLETE, id,
                                            req->request_id, apr_time_from_sec(2))
                               != APR_SUCCESS))
        || trv_db_commit(c) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1443, "starting hotel book");
        return;
    }
    trv_lifecycle_book_answer_started(req, resp, c, &trv_hbook_lifecycle, &answers, id, owner,
                                      started, 1443, "reading a hotel booking to book");
}
