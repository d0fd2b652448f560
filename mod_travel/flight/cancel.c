/* Cancellation: POST /v1/flight/bookings/{id}/cancel answers at once (202)
 * and the flight.booking.cancel job asks the supplier. Success: CANCELED
 * with the cancellation block, then refund requests go to the payment
 * provider (flight.refund.submit) for what the service collected.
 * Rejection: back to CONFIRMED with failure. A repeat while a run is active
 * starts nothing (202); on CANCELED it is 200 and restarts a refund
 * submission that failed. Each run has its own attempt number, which makes
 * its idempotency key towards the supplier and guards its updates. */
#include "handlers.h"
#include "events.h"
#include "enqueue.h"
#include "jobs.h"
#include "state.h"
#include "booking_store.h"
#include "upstreams.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

void trv_flight_cancel(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_fbooking *b, *started = NULL;
    trv_dbc *c;
    int restarted = 0;

    if (!trv_api_db_open(req, resp, &c, 361, "reading a booking to cancel")) {
        return;
    }
    if (trv_fbooking_get(c, req->pool, req->org_id, req->user_id, id, &b)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 362, "reading a booking to cancel");
        return;
    }
    if (!b) {
        trv_db_close(req->env->db, c);
        trv_freply_no_booking(req, resp, id);
        return;
    }
    switch (trv_fb_cancel_decision(b->status)) {
    case TRV_FB_CANCEL_START:
        if (trv_db_begin(c, req->pool) != APR_SUCCESS
            || trv_fbooking_cancel_start(c, req->pool, req->org_id, req->user_id, id, &started)
               != APR_SUCCESS
            || (started && trv_fjob_enqueue(c, req->pool, TRV_FJOB_CANCEL, id,
                                            started->cancel_attempt, req->request_id, 0)
                           != APR_SUCCESS)
            || trv_db_commit(c) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 363, "starting a cancellation");
            return;
        }
        if (!started) {
            /* A concurrent cancel started it: the same answer. */
            if (trv_fbooking_get(c, req->pool, req->org_id, req->user_id, id, &b)
                != APR_SUCCESS || !b) {
                trv_api_db_fail(req, resp, c, 364, "reading a booking to cancel");
                return;
            }
            trv_db_close(req->env->db, c);
            trv_freply_booking(req, resp, b->status == TRV_FB_CANCELED ? 200 : 202,
                               b, NULL);
            return;
        }
        trv_db_close(req->env->db, c);
        trv_env_wake(req->env);
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(365) "booking %s: cancellation %d started", id,
                    started->cancel_attempt);
        trv_freply_booking(req, resp, 202, started, NULL);
        return;
    case TRV_FB_CANCEL_RUNNING:
        trv_db_close(req->env->db, c);
        trv_freply_booking(req, resp, 202, b, NULL);
        return;
    case TRV_FB_CANCEL_DONE:
        if (trv_db_begin(c, req->pool) != APR_SUCCESS
            || trv_fbooking_refunds_restart(c, req->pool, id, &restarted) != APR_SUCCESS
            || (restarted > 0 && trv_fjob_enqueue(c, req->pool, TRV_FJOB_REFUND, id, -1,
                                                  req->request_id, 0) != APR_SUCCESS)
            || trv_db_commit(c) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 366, "restarting refunds");
            return;
        }
        trv_db_close(req->env->db, c);
        if (restarted > 0) {
            trv_env_wake(req->env);
            trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                        TRVLOGNO(367) "booking %s: %d failed refund submission(s) restarted",
                        id, restarted);
        }
        trv_freply_booking(req, resp, 200, b, NULL);
        return;
    default:
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "invalid_state", "Booking %s is %s; only a CONFIRMED "
                 "booking can be canceled", id, trv_fb_status_text(b->status));
    }
}

/* ---- the background run ---- */

static int job_begin(trv_env *env, apr_pool_t *p, trv_dbc **c)
{
    *c = NULL;
    if (trv_db_open(env->db, p, c) != APR_SUCCESS) {
        *c = NULL;
        return 0;
    }
    return trv_db_begin(*c, p) == APR_SUCCESS;
}

static void job_db_failed(trv_env *env, apr_pool_t *p, trv_dbc *c, trv_job_result *res,
                          const char *what)
{
    res->outcome = TRV_JOB_RETRY;
    res->error = apr_psprintf(p, "%s: %s", what, c && c->error ? c->error : "no database");
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(env->db, c);
    }
}

/* CONFIRMED again, with failure: the ticket stays valid. */
static void rejected(trv_env *env, apr_pool_t *p, const trv_job *job, trv_fbooking *b,
                     const char *code, const char *description, trv_job_result *res)
{
    trv_dbc *c;
    trv_fbooking *after;
    const char *fj = trv_json_dump(p, trv_json_bind(p, json_pack("{s:s,s:s}", "code", code,
                                                                 "description", description)));
    if (!job_begin(env, p, &c)
        || trv_fbooking_cancel_rejected(c, p, b->id, b->cancel_attempt, fj, &after)
           != APR_SUCCESS
        || (after && trv_flight_emit(c, p, after, TRV_EV_CANCEL_REJECTED) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a rejected cancellation");
        return;
    }
    trv_db_close(env->db, c);
    trv_env_wake(env);
    trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                TRVLOGNO(368) "booking %s: cancellation %d rejected: %s: %s", b->id,
                b->cancel_attempt, code, description);
}

static int money_of(const json_t *v, const char *currency, trv_money *m)
{
    const char *why;
    return trv_money_from_json(v, m, &why) == APR_SUCCESS
        && (!currency || strcmp(m->currency, currency) == 0);
}

static void canceled(trv_env *env, apr_pool_t *p, const trv_job *job, trv_fbooking *b,
                     const json_t *result, trv_job_result *res)
{
    int service_pays = !trv_supplier_can(trv_flight_supplier_row(env->cfg, b->supplier),
                                         TRV_SUP_COLLECTS_PAYMENT);
    int exponent = trv_currency_exponent(b->currency);
    trv_money total, fee, refund;
    json_t *refund_to = json_array(), *cancellation;
    apr_array_header_t *refunds = apr_array_make(p, 1, sizeof(trv_frefund));
    apr_int64_t left;
    trv_dbc *c;
    trv_fbooking *after;
    int i;

    memset(&total, 0, sizeof(total));
    if (b->currency && b->total_amount && exponent >= 0) {
        trv_money_parse_decimal(b->total_amount, exponent, &total.minor);
        memcpy(total.currency, b->currency, 4);
    }
    if (!money_of(json_object_get(result, "fee"), b->currency, &fee)) {
        fee = total;
        fee.minor = 0;
    }
    /* The intended refund: the supplier's figure, else what is left after
     * the fee; never more than was paid. */
    if (!money_of(json_object_get(result, "refund_amount"), b->currency, &refund)) {
        refund = total;
        refund.minor = total.minor - fee.minor > 0 ? total.minor - fee.minor : 0;
    }
    if (refund.minor > total.minor) {
        refund.minor = total.minor;
    }
    left = refund.minor;
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_fpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_fpayment);
        apr_int64_t paid, part;
        if (pay->status != TRV_PAY_CAPTURED || left <= 0
            || trv_money_parse_decimal(pay->amount, exponent, &paid) != APR_SUCCESS) {
            continue;
        }
        part = paid < left ? paid : left;
        left -= part;
        json_array_append_new(refund_to, json_pack("{s:s}", "payment_id", pay->id));
        if (service_pays && pay->collected_by == TRV_COLLECTOR_SERVICE) {
            trv_frefund *r = apr_array_push(refunds);
            memset(r, 0, sizeof(*r));
            r->id = trv_id_new(p, "rfd");
            r->booking_id = b->id;
            r->payment_id = pay->id;
            r->currency = b->currency;
            r->amount = trv_money_decimal(p, part, exponent);
        }
    }
    cancellation = trv_json_bind(p, json_pack("{s:o,s:s,s:o,s:o}",
        "fee", trv_money_json(&fee),
        "refunded_by", service_pays ? "SERVICE" : "SUPPLIER",
        "refund_amount", trv_money_json(&refund),
        "refund_to", refund_to));
    if (!job_begin(env, p, &c)
        || trv_fbooking_canceled(c, p, b->id, b->cancel_attempt,
                                 trv_json_dump(p, cancellation), &after) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a cancellation");
        return;
    }
    if (after) {
        for (i = 0; i < refunds->nelts; i++) {
            if (trv_fbooking_refund_insert(c, p, &APR_ARRAY_IDX(refunds, i, trv_frefund))
                != APR_SUCCESS) {
                job_db_failed(env, p, c, res, "recording refunds");
                return;
            }
        }
        if ((refunds->nelts > 0
             && trv_fjob_enqueue(c, p, TRV_FJOB_REFUND, b->id, -1, trv_job_request_id(job), 0)
                != APR_SUCCESS)
            || trv_flight_emit(c, p, after, TRV_EV_CANCELED) != APR_SUCCESS) {
            job_db_failed(env, p, c, res, "recording a cancellation");
            return;
        }
    }
    if (trv_db_commit(c) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a cancellation");
        return;
    }
    trv_db_close(env->db, c);
    trv_env_wake(env);
    trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                TRVLOGNO(369) "booking %s canceled (order %s), %d refund(s) to submit", b->id,
                b->supplier_reference ? b->supplier_reference : "-", refunds->nelts);
}

void trv_fjob_cancel_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    const char *id = trv_json_str(job->payload, "id");
    int attempt = (int)json_integer_value(json_object_get(job->payload, "attempt"));
    const trv_flight_supplier *sup;
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    json_t *result = NULL;
    trv_fbooking *b;
    trv_dbc *c;
    trv_up_status st;

    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "database unavailable";
        return;
    }
    if (trv_fbooking_get_any(c, p, id ? id : "", &b) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "reading the booking");
        return;
    }
    trv_db_close(env->db, c);
    if (!b || b->status != TRV_FB_CANCELING || b->cancel_attempt != attempt) {
        return; /* finished, or another run's */
    }
    sup = trv_flight_supplier_for(env, p, trv_job_request_id(job), b->supplier, &sc);
    sc.org_id = b->org_id;
    sc.booking_id = b->id;
    if (!sup || !b->supplier_reference) {
        rejected(env, p, job, b, "cancellation_failed",
                 "The booking's supplier cannot be reached to cancel it", res);
        return;
    }
    st = sup->cancel(&sc, b->supplier_reference,
                     apr_psprintf(p, "%s:cancel:%d", b->id, b->cancel_attempt), &result, &err);
    switch (st) {
    case TRV_UP_OK:
        canceled(env, p, job, b, result, res);
        return;
    case TRV_UP_REJECTED:
    case TRV_UP_NOT_FOUND:
    case TRV_UP_DECLINED:
        rejected(env, p, job, b, "cancellation_rejected",
                 err.message && *err.message ? err.message
                                             : "The airline refused the cancellation", res);
        return;
    default:
        /* Unanswered or unavailable: the same key asks again (a cancel that
         * did land answers with its result). The last attempt gives up. */
        if (job->attempt >= job->max_attempts) {
            trv_log_msg(&env->log, TRV_LOG_ERR, trv_job_request_id(job),
                        TRVLOGNO(370) "booking %s: cancellation %d failed for good: %s: %s",
                        b->id, b->cancel_attempt, trv_up_status_name(st),
                        err.message ? err.message : "");
            rejected(env, p, job, b, "cancellation_failed",
                     "The supplier could not be reached to cancel; the ticket is still "
                     "valid. Cancel again to retry", res);
            return;
        }
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "cancel at %s: %s", b->supplier, trv_up_status_name(st));
    }
}

/* ---- refunds ---- */

void trv_fjob_refund_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    const char *id = trv_json_str(job->payload, "id");
    apr_array_header_t *pending;
    trv_pay_ctx pc;
    int i, again = 0, last = job->attempt >= job->max_attempts;
    trv_dbc *c;

    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "database unavailable";
        return;
    }
    if (trv_fbooking_refunds_pending(c, p, id ? id : "", &pending) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "reading refunds");
        return;
    }
    trv_db_close(env->db, c);
    if (pending->nelts == 0) {
        return;
    }
    if (!trv_pay_ctx_init(env, p, trv_job_request_id(job), &pc)) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "no TravelPaymentProvider is configured";
        return;
    }
    for (i = 0; i < pending->nelts; i++) {
        trv_frefund *r = &APR_ARRAY_IDX(pending, i, trv_frefund);
        trv_pay_err err = {0};
        json_t *refund = NULL;
        trv_money amount;
        trv_up_status st;
        const char *error = NULL;
        trv_refund_status status = TRV_REFUND_PENDING; /* PENDING: no result yet */

        if (trv_money_parse_decimal(r->amount, trv_currency_exponent(r->currency),
                                    &amount.minor) != APR_SUCCESS) {
            status = TRV_REFUND_FAILED;
            error = "unreadable amount";
        }
        else {
            memcpy(amount.currency, r->currency, 4);
            st = trv_payment_adapter.refund(&pc, r->provider_ref, &amount, r->id, &refund,
                                            &err);
            if (st == TRV_UP_OK) {
                status = TRV_REFUND_SUBMITTED;
            }
            else if (st == TRV_UP_REJECTED || st == TRV_UP_DECLINED || st == TRV_UP_NOT_FOUND
                     || last) {
                status = TRV_REFUND_FAILED;
                error = apr_psprintf(p, "%s: %s", trv_up_status_name(st),
                                     err.message ? err.message : "");
            }
            else {
                again = 1;
            }
        }
        if (status == TRV_REFUND_PENDING) {
            continue;
        }
        if (status == TRV_REFUND_FAILED) {
            trv_log_msg(&env->log, TRV_LOG_ERR, trv_job_request_id(job),
                        TRVLOGNO(371) "booking %s: refund %s of %s %s failed: %s (a repeated "
                        "cancel restarts it)", r->booking_id, r->id, r->amount, r->currency,
                        error);
        }
        if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
            res->outcome = TRV_JOB_RETRY;
            res->error = "database unavailable";
            return;
        }
        if (trv_fbooking_refund_result(c, p, &env->log, trv_job_request_id(job), r->id, status,
                                       trv_json_str(refund, "id"), error) != APR_SUCCESS) {
            job_db_failed(env, p, c, res, "recording a refund");
            return;
        }
        trv_db_close(env->db, c);
    }
    if (again) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "the payment provider is unavailable";
    }
}
