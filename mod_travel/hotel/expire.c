/* hotel.booking.expire (enqueue.h): a READY_FOR_COMPLETE booking past its
 * offer's deadline is stored EXPIRED (until then GET decides it at read
 * time), with its stored rendering, and in the same transaction whatever
 * authorization it holds goes to hotel.payment.release: the SDK session
 * the customer's device could still pay (canceled, then whatever it paid
 * voided) and any unsettled intent of an earlier book attempt.
 *
 * Safe against a concurrent book: both are guarded updates of the one row
 * (book starts only before the deadline, expire only after it), so the row
 * lock decides; a book that won leaves the job nothing to do. Safe to
 * rerun (retry, kill -9): the release intents are made once per booking
 * and attempt, the release job once per intent. Hotels emit no event on
 * expiry (there is no hotel.booking.expired event type), and a hotel offer
 * holds no inventory before book, so there is no hold to end. */
#include "enqueue.h"
#include "booking_store.h"
#include "intents.h"
#include "render.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

void trv_hjob_expire_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    const char *id;
    trv_hbooking *b = NULL, *e = NULL;
    trv_dbc *c;
    if (!trv_job_open(env, p, job, &id, &c, res)) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS || trv_hbooking_get_any(c, p, id, &b) != APR_SUCCESS) {
        goto db_failed;
    }
    if (!b) {
        /* Gone (an abandoned prebook): nothing to expire. */
        goto leave;
    }
    if (b->status == TRV_HB_EXPIRED) {
        /* Expired by a book request first, which queued the releases in
         * its own transaction; queued again here they are no-ops. */
        e = b;
    }
    else if (b->status != TRV_HB_READY) {
        /* Booked (or failed) meanwhile: the book owns the payment. */
        goto leave;
    }
    else if (!b->past_expiry) {
        /* Early (clocks): look again shortly. */
        res->error = "not expired yet";
        goto again;
    }
    else if (trv_hbooking_expire_one(c, p, id, &e) != APR_SUCCESS
             || (e && trv_hrender_keep(c, p, e) != APR_SUCCESS)) {
        goto db_failed;
    }
    if (!e) {
        /* A book took the row between the read and the update: it won. */
        res->error = "moved on meanwhile";
        goto again;
    }
    if (trv_pintent_release_expired(&trv_hotel_intents, c, p, e->id, e->book_attempt,
                                    e->use_payment_sdk && e->sdk_token, e->currency,
                                    e->total_amount, trv_job_request_id(job)) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        goto db_failed;
    }
    trv_db_close(env->db, c);
    return;

again:
    res->outcome = TRV_JOB_RETRY;
    res->retry_in = apr_time_from_sec(1);
    goto leave;

db_failed:
    res->outcome = TRV_JOB_RETRY;
    res->error = apr_psprintf(p, "expiring hotel booking %s: %s", id, c->error);
leave:
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    trv_db_close(env->db, c);
}
