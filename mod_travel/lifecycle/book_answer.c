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
