/* The book endpoint's answer to the runner's outcome (book_answer.h). */
#include "book_answer.h"

void trv_lifecycle_book_answer(trv_req *req, trv_resp *resp, const trv_lifecycle_book_answers *a,
                               const char *id, trv_lifecycle_book_outcome out,
                               const trv_lifecycle_book_run *run)
{
    trv_errs *errs;
    switch (out) {
    case TRV_LIFECYCLE_BOOK_CONFIRMED:
        a->fresh(req, resp, id, 200);
        return;
    case TRV_LIFECYCLE_BOOK_PENDING:
    case TRV_LIFECYCLE_BOOK_RETRY:
        a->fresh(req, resp, id, 202);
        return;
    case TRV_LIFECYCLE_BOOK_FAILED:
        trv_fail(req, resp, 422, "book_failed", "Booking %s failed and is FAILED: %s; prebook "
                 "again with a new x-idempotency-key", id,
                 run->message ? run->message : a->refused);
        return;
    case TRV_LIFECYCLE_BOOK_DECLINED:
        trv_fail(req, resp, 422, "payment_declined", "The payment instrument was declined%s%s; "
                 "the booking is still READY_FOR_COMPLETE", run->message ? ": " : "",
                 run->message ? run->message : "");
        return;
    case TRV_LIFECYCLE_BOOK_BAD_INSTRUMENT:
        errs = trv_errs_new(req->pool);
        trv_errs_add(errs, "payment_instrument_id", "%s",
                     run->message ? run->message : a->not_accepted);
        trv_fail_invalid(req, resp, errs);
        return;
    case TRV_LIFECYCLE_BOOK_NOT_PAID:
        trv_fail(req, resp, 409, "invalid_state", "The payment for booking %s is not "
                 "authorized%s%s: complete the payment SDK checkout, then book with {}", id,
                 run->message ? ": " : "", run->message ? run->message : "");
        return;
    case TRV_LIFECYCLE_BOOK_UNAVAILABLE:
        a->upstream(req, resp, TRV_UP_UNAVAILABLE, id, run->message);
        return;
    case TRV_LIFECYCLE_BOOK_TIMEOUT:
        a->upstream(req, resp, TRV_UP_TIMEOUT, id, run->message);
        return;
    case TRV_LIFECYCLE_BOOK_UNKNOWN:
        a->unknown(req, resp, id);
        return;
    case TRV_LIFECYCLE_BOOK_DB:
        break;
    }
    if (run->db_down) {
        trv_fail(req, resp, 503, "unavailable", "The service is temporarily unavailable; "
                 "read booking %s before booking again", id);
    }
    else {
        trv_fail(req, resp, 500, "internal_error", "An internal error occurred; read "
                 "booking %s before booking again", id);
    }
}

void trv_lifecycle_book_answer_run(trv_req *req, trv_resp *resp,
                                   const trv_lifecycle_book_domain *dom,
                                   const trv_lifecycle_book_answers *a, const char *id,
                                   const char *owner, void *started)
{
    trv_lifecycle_book_run run;
    trv_env_wake(req->env);
    trv_lifecycle_book_init(&run, dom, req->env, req->pool, req->request_id, &req->log, owner,
                            started);
    trv_lifecycle_book_answer(req, resp, a, id, trv_lifecycle_book_continue(&run), &run);
}

int trv_lifecycle_book_answer_body(trv_req *req, trv_resp *resp, trv_dbc *c, trv_errs *errs,
                                   const char *id, const char *supplier,
                                   const char *instrument, int use_sdk, int takes_instrument)
{
    if (takes_instrument && !use_sdk && !instrument) {
        trv_errs_add(errs, "payment_instrument_id", "is required: the saved instrument "
                     "to pay %s with", id);
    }
    else if (instrument && !takes_instrument) {
        trv_errs_add(errs, "payment_instrument_id", "must be absent: %s collects payment "
                     "itself (book with {})", supplier);
    }
    else if (instrument && use_sdk) {
        trv_errs_add(errs, "payment_instrument_id", "must be absent: this booking is paid "
                     "through the payment SDK (book with {})");
    }
    if (trv_errs_any(errs)) {
        trv_db_close(req->env->db, c);
        trv_fail_invalid(req, resp, errs);
        return 1;
    }
    return 0;
}

void trv_lifecycle_book_answer_started(trv_req *req, trv_resp *resp, trv_dbc *c,
                                       const trv_lifecycle_book_domain *dom,
                                       const trv_lifecycle_book_answers *a, const char *id,
                                       const char *owner, void *started, int logno,
                                       const char *what)
{
    if (!started) {
        trv_api_booking_reread(req, resp, c, a->reader, id, logno, what, a->state);
        return;
    }
    trv_db_close(req->env->db, c);
    trv_lifecycle_book_answer_run(req, resp, dom, a, id, owner, started);
}
