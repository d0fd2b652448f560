#include "jobs.h"
#include "book.h"
#include "enqueue.h"
#include "events.h"
#include "intents.h"
#include "core/owner.h"
#include "state.h"
#include "booking_store.h"
#include "sync_schedule.h"
#include "upstreams.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

static trv_fbooking *load(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res)
{
    return trv_lifecycle_book_job_load(&trv_book_lifecycle, env, p, job, res);
}

/* ---- flight.booking.complete ---- */

void trv_fjob_complete_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res)
{
    trv_fbooking *b = load(env, p, job, res);
    trv_lifecycle_book_run run;
    trv_lifecycle_book_outcome out;
    trv_fb_phase phase;

    if (!b || b->status != TRV_FB_COMPLETING || b->book_phase == TRV_FB_PHASE_NONE
        || (b->book_phase == TRV_FB_PHASE_UNKNOWN && !trv_fbook_finds_orders(env, b))) {
        return; /* done, failed, back to ready, or never sent again nor looked up */
    }
    trv_lifecycle_book_init(&run, &trv_book_lifecycle, env, p, trv_job_request_id(job),
                            &env->log, trv_owner_self(p), b);
    phase = b->book_phase;
    if (phase == TRV_FB_PHASE_TICKETING || phase == TRV_FB_PHASE_UNKNOWN) {
        /* Reads only (the order's state, or the order an unanswered book
         * made), which any worker may make: the step keeps its owner. */
        run.owner = b->phase_owner;
        out = trv_lifecycle_book_continue(&run);
    }
    else {
        /* A step a request started: take it over only once that request is
         * gone (its process died) or its calls have all timed out. */
        if (!trv_lifecycle_book_job_may_take(p, b->phase_due, b->phase_owner, res)
            || !trv_lifecycle_book_job_take_over(&run, res)) {
            return;
        }
        trv_log_msg(&env->log, TRV_LOG_WARNING, run.request_id,
                    TRVLOGNO(1000) "booking %s: taking over book step %s from %s", b->id,
                    trv_transit_column_text(&trv_fb_phase_table, phase), b->phase_owner ? b->phase_owner : "-");
        out = trv_lifecycle_book_continue(&run);
    }
    trv_lifecycle_book_job_result(&run, out, job, "the supplier is still ticketing", res);
    if (out == TRV_LIFECYCLE_BOOK_UNKNOWN && res->outcome == TRV_JOB_RETRY) {
        /* No order found for the unanswered book (yet): a supplier still
         * making it shows it soon; after that, an hourly look is enough
         * and spares the supplier a list call every few seconds. */
        apr_interval_time_t settled = trv_fbook_order_settled_in(b, apr_time_now());
        res->retry_in = apr_time_from_sec(job->attempt < 10 ? 2 : job->attempt < 30 ? 60 : 3600);
        /* The first lookup once the offer is gone (and its grace) decides:
         * no hourly wait past that moment. */
        if (settled > 0 && settled + apr_time_from_sec(1) < res->retry_in) {
            res->retry_in = settled + apr_time_from_sec(1);
        }
        res->error = "no order found at the supplier for the unanswered book";
    }
}

/* ---- flight.payment.settle ---- */

void trv_fjob_settle_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    const char *id = trv_json_str(job->payload, "id");
    trv_fpayment *pay = NULL;
    trv_fbooking *b = NULL;
    json_t *auth = NULL, *card = NULL;
    trv_dbc *c;
    trv_up_status st;
    int captured = 0;

    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_payments_get(&trv_fbooking_payments, c, p, id ? id : "", &pay) != APR_SUCCESS
        || (pay && trv_fbooking_get_any(c, p, pay->booking_id, &b) != APR_SUCCESS)) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "reading payment %s: %s", id, c->error);
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    if (!pay || !b || pay->status == TRV_PAY_VOIDED
        || (pay->card && pay->status == TRV_PAY_CAPTURED)) {
        return;
    }
    if (pay->collected_by == TRV_COLLECTOR_SERVICE) {
        trv_pay_ctx pc;
        trv_pay_err err = {0};
        if (!trv_pay_ctx_init(env, p, trv_job_request_id(job), &pc)) {
            res->outcome = TRV_JOB_DEAD;
            res->error = "no TravelPaymentProvider is configured";
            return;
        }
        if (pay->status == TRV_PAY_AUTHORIZED) {
            trv_money amount;
            if (trv_money_parse_decimal(pay->amount, trv_currency_exponent(pay->currency),
                                        &amount.minor) != APR_SUCCESS) {
                res->outcome = TRV_JOB_DEAD;
                res->error = "unreadable amount";
                return;
            }
            memcpy(amount.currency, pay->currency, 4);
            st = trv_payment_adapter.capture(&pc, pay->provider_ref, &amount,
                                             apr_psprintf(p, "%s:capture:%d", b->id,
                                                          b->book_attempt), &auth, &err);
            captured = st == TRV_UP_OK;
        }
        else {
            st = trv_payment_adapter.read(&pc, pay->provider_ref, &auth, &err);
        }
        if (st != TRV_UP_OK) {
            res->outcome = TRV_JOB_RETRY;
            res->retry_in = apr_time_from_sec(1);
            res->error = apr_psprintf(p, "payment provider: %s", trv_up_status_name(st));
            return;
        }
        card = json_object_get(auth, "card");
    }
    else {
        /* The supplier collected it: its order carries the card. */
        trv_flight_ctx sc;
        trv_sup_err err = {0};
        const trv_flight_supplier *sup = trv_flight_supplier_for(env, p, trv_job_request_id(job),
                                                                 b->supplier, &sc);
        json_t *order = NULL;
        if (!sup || !b->supplier_reference) {
            res->outcome = TRV_JOB_DEAD;
            res->error = "the supplier is not configured";
            return;
        }
        st = sup->read_order(&sc, b->supplier_reference, &order, &err);
        if (st != TRV_UP_OK) {
            res->outcome = TRV_JOB_RETRY;
            res->retry_in = apr_time_from_sec(1);
            res->error = apr_psprintf(p, "read order: %s", trv_up_status_name(st));
            return;
        }
        card = json_object_get(json_object_get(order, "payment"), "card");
    }
    if (!json_is_object(card)) {
        card = NULL;
    }
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if ((captured && trv_payments_captured(&trv_fbooking_payments, c, p, pay->id,
                                           card ? trv_json_dump(p, card) : NULL)
                     != APR_SUCCESS)
        || (card && trv_payments_card(&trv_fbooking_payments, c, p, pay->id,
                                      trv_json_dump(p, card)) != APR_SUCCESS)) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "recording payment %s: %s", pay->id, c->error);
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    if (!card) {
        /* Not readable yet: ask again shortly. */
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = apr_time_from_sec(1);
        res->error = "the card is not readable yet";
    }
}

/* ---- flight.booking.expire ---- */

/* An EXPIRED booking uses no authorization any more: its unsettled
 * intents, and the SDK session the customer may have paid without
 * booking, go to the release job (which retries until they are voided). */
static void release_expired(trv_env *env, apr_pool_t *p, const trv_job *job,
                            const trv_fbooking *e, trv_job_result *res)
{
    trv_dbc *c;
    int ok;
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    ok = trv_db_begin(c, p) == APR_SUCCESS
         && trv_pintent_release_expired(&trv_flight_intents, c, p, e->id, e->book_attempt,
                                        e->use_payment_sdk && e->sdk_token, e->currency,
                                        e->total_amount, trv_job_request_id(job))
                == APR_SUCCESS;
    if (!ok || trv_db_commit(c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "releasing the authorizations of %s: %s", e->id,
                                  c->error);
        if (c->in_txn) {
            trv_db_rollback(c);
        }
    }
    trv_db_close(env->db, c);
}

void trv_fjob_expire_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    trv_fbooking *b = load(env, p, job, res), *e = NULL;
    trv_dbc *c;
    if (!b) {
        return;
    }
    if (b->status == TRV_FB_EXPIRED) {
        /* Expired by a request that read it first. */
        release_expired(env, p, job, b, res);
        return;
    }
    if (b->status != TRV_FB_READY) {
        return;
    }
    if (!b->past_expiry) {
        /* Early (clocks, a repeated prebook): look again later. */
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = apr_time_from_sec(1);
        res->error = "not expired yet";
        return;
    }
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_fbooking_expire_one(c, p, b->id, &e) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "expiring: %s", c->error);
    }
    trv_db_close(env->db, c);
    if (e && e->status == TRV_FB_EXPIRED) {
        release_expired(env, p, job, e, res);
    }
    else if (!e && res->outcome != TRV_JOB_RETRY) {
        /* Moved on meanwhile (expired by a request, or booked): look again. */
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = apr_time_from_sec(1);
        res->error = "moved on meanwhile";
    }
}

/* ---- flight.prebook.watchdog ---- */

void trv_fjob_prebook_watch_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                                trv_job_result *res)
{
    trv_fbooking *b = load(env, p, job, res), *f = NULL;
    trv_dbc *c;
    const char *failure = "{\"code\":\"prebook_interrupted\",\"description\":"
                          "\"The prebook did not finish; send a new x-idempotency-key\"}";
    if (!b || b->status != TRV_FB_PREBOOK_IN_PROGRESS) {
        return;
    }
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS
        || trv_fbooking_prebook_failed(c, p, b->id, failure, &f) != APR_SUCCESS
        || (f && trv_flight_emit(c, p, f, TRV_EV_FAILED) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "failing an interrupted prebook: %s", c->error);
        if (c->in_txn) {
            trv_db_rollback(c);
        }
    }
    else if (f) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, trv_job_request_id(job),
                    TRVLOGNO(1001) "prebook %s did not finish (its request died): FAILED",
                    b->id);
    }
    trv_db_close(env->db, c);
}

/* ---- flight.order.sync ---- */

static void sync_once(trv_env *env, apr_pool_t *p, const trv_job *job, trv_fbooking *b,
                      trv_job_result *res);

/* The next link of the booking's sync chain (sync_schedule.h), as a job of
 * its own generation: this one is still running and holds its key. */
static void sync_schedule_next(trv_env *env, apr_pool_t *p, const trv_job *job,
                               const trv_fbooking *b)
{
    json_t *gen = json_object_get(job->payload, "attempt");
    apr_interval_time_t in = trv_fsync_next(b->journeys, apr_time_now());
    trv_dbc *c;
    if (in == 0 || trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        return;
    }
    if (trv_fjob_enqueue(c, p, TRV_FJOB_SYNC, b->id,
                         json_is_integer(gen) ? (int)json_integer_value(gen) + 1 : 1,
                         trv_job_request_id(job), in) != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, trv_job_request_id(job),
                    TRVLOGNO(1004) "booking %s: scheduling the next order read failed: %s",
                    b->id, c->error);
    }
    trv_db_close(env->db, c);
}

void trv_fjob_sync_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                       trv_job_result *res)
{
    trv_fbooking *b = load(env, p, job, res);
    if (!b || !b->supplier_reference
        || (b->status != TRV_FB_CONFIRMED && b->status != TRV_FB_CANCELING)) {
        return; /* the chain ends with the confirmed order */
    }
    sync_once(env, p, job, b, res);
    /* A retried read stays this link; a last failed attempt still hands on. */
    if (res->outcome != TRV_JOB_RETRY || job->attempt >= job->max_attempts) {
        sync_schedule_next(env, p, job, b);
    }
}

static void sync_once(trv_env *env, apr_pool_t *p, const trv_job *job, trv_fbooking *b,
                      trv_job_result *res)
{
    trv_fbooking *after = NULL;
    const trv_flight_supplier *sup;
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    json_t *order = NULL, *changes;
    trv_up_status st;
    trv_dbc *c;

    sup = trv_flight_supplier_for(env, p, trv_job_request_id(job), b->supplier, &sc);
    if (!sup) {
        return;
    }
    st = sup->read_order(&sc, b->supplier_reference, &order, &err);
    if (st == TRV_UP_NOT_FOUND || st == TRV_UP_REJECTED) {
        /* Nothing to bring in; the next link of the chain asks again. */
        trv_log_msg(&env->log, TRV_LOG_WARNING, trv_job_request_id(job),
                    TRVLOGNO(1003) "booking %s: %s does not know order %s (%s)", b->id,
                    b->supplier, b->supplier_reference, trv_up_status_name(st));
        return;
    }
    if (st != TRV_UP_OK) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "read order: %s", trv_up_status_name(st));
        return;
    }
    changes = json_object_get(order, "airline_initiated_changes");
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (json_is_array(changes) && json_array_size(changes) > 0
        && !json_equal(changes, b->changes)) {
        if (trv_db_begin(c, p) != APR_SUCCESS
            || trv_fbooking_set_changes(c, p, b->id, trv_json_dump(p, changes), &after)
               != APR_SUCCESS
            || (after && trv_flight_emit(c, p, after, TRV_EV_AIRLINE_CHANGE) != APR_SUCCESS)
            || trv_db_commit(c) != APR_SUCCESS) {
            res->outcome = TRV_JOB_RETRY;
            res->error = apr_psprintf(p, "recording airline changes: %s", c->error);
            if (c->in_txn) {
                trv_db_rollback(c);
            }
        }
        else {
            trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                        TRVLOGNO(1002) "booking %s: the airline changed the booked flights",
                        b->id);
        }
    }
    else if (trv_fbooking_synced(c, p, b->id) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "recording a sync: %s", c->error);
    }
    trv_db_close(env->db, c);
}
