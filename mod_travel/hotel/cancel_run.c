/* The background half of a hotel cancellation (cancel_jobs.h). The
 * request (cancel.c) has moved the booking to CANCEL_IN_PROGRESS with an
 * IN_PROGRESS attempt; this run asks the supplier, holding no database
 * connection during the call, and records the outcome, its rendering and
 * its event in one transaction. A run whose attempt is no longer the
 * booking's changes nothing (guarded updates). */
#include "cancel_jobs.h"
#include "booking.h"
#include "booking_store.h"
#include "cancellation_store.h"
#include "events.h"
#include "render.h"
#include "supplier.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/log.h"
#include "core/money.h"
#include "payment/provider.h"
#include "webhook/outbox.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>

/* A supplier is asked again (same outcome for a repeated cancel) for
 * about a quarter of an hour of backoff; refunds likewise. */
const trv_job_spec trv_hjob_cancel = {"hotel.booking.cancel", 8};
const trv_job_spec trv_hjob_refund = {"hotel.refund.submit", 8};

apr_status_t trv_hcancel_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                              const char *id, int attempt, const char *request_id)
{
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:s}", "id", id, "request_id",
                                                 request_id ? request_id : "-"));
    const char *dedupe = attempt >= 0 ? apr_psprintf(p, "%s:%s:%d", kind->kind, id, attempt)
                                      : apr_psprintf(p, "%s:%s", kind->kind, id);
    if (attempt >= 0) {
        json_object_set_new(payload, "attempt", json_integer(attempt));
    }
    return trv_job_enqueue_spec(c, p, kind, payload, 0, dedupe, NULL);
}

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

/* The booking read whole again in this transaction, its rendering kept
 * for its new revision and the event emitted with it. */
static apr_status_t settle(trv_dbc *c, apr_pool_t *p, const char *id, const char *event)
{
    trv_hbooking *b;
    apr_status_t rv = trv_hbooking_get_any(c, p, id, &b);
    if (rv != APR_SUCCESS || !b) {
        return rv != APR_SUCCESS ? rv : APR_EGENERAL;
    }
    if ((rv = trv_hrender_keep(c, p, b)) != APR_SUCCESS) {
        return rv;
    }
    return trv_outbox_emit(c, p, b->org_id, event,
                           trv_json_bind(p, json_pack("{s:o}", "booking",
                                                      trv_hrender_booking(p, b,
                                                                          TRV_HRENDER_FULL))),
                           NULL);
}

/* The supplier refused (or could not be reached for good): the attempt is
 * FAILED with a code the API shows, the booking CONFIRMED again. */
static void failed(trv_env *env, apr_pool_t *p, const trv_job *job, const trv_hbooking *b,
                   const char *code, const char *message, trv_job_result *res)
{
    trv_dbc *c;
    int moved = 0;
    if (!job_begin(env, p, &c)
        || trv_hcancellation_failed(c, p, b->id, b->cancel_attempt, code, message, &moved)
           != APR_SUCCESS
        || (moved && strcmp(code, "cancellation_restricted") == 0
            && trv_hcancellation_restrict(c, p, b->id, code, message) != APR_SUCCESS)
        || (moved && settle(c, p, b->id, TRV_HEV_CANCELLATION_FAILED) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a failed cancellation");
        return;
    }
    trv_db_close(env->db, c);
    trv_env_wake(env);
    trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                TRVLOGNO(1450) "hotel booking %s: cancellation %d failed: %s: %s", b->id,
                b->cancel_attempt, code, message ? message : "");
}

static int minor_of(const char *decimal, int exponent, apr_int64_t *m)
{
    return decimal && trv_money_parse_decimal(decimal, exponent, m) == APR_SUCCESS;
}

/* What cancelling released: the remaining rooms' prices when every one is
 * known, else the booking's total; -1 when neither is. */
static apr_int64_t released_minor(const trv_hbooking *b, int exponent)
{
    apr_int64_t sum = 0, m;
    int i, n = 0;
    for (i = 0; b->rooms && i < b->rooms->nelts; i++) {
        const trv_hroom *r = &APR_ARRAY_IDX(b->rooms, i, trv_hroom);
        if (r->canceled_at) {
            continue;
        }
        if (!r->currency || strcmp(r->currency, b->currency) != 0
            || !minor_of(r->total_amount, exponent, &m)) {
            n = -1;
            break;
        }
        sum += m;
        n++;
    }
    if (n > 0) {
        return sum;
    }
    return minor_of(b->total_amount, exponent, &m) ? m : -1;
}

static void canceled(trv_env *env, apr_pool_t *p, const trv_job *job, const trv_hbooking *b,
                     const trv_hotel_canceled *out, trv_job_result *res)
{
    const trv_supplier *row = trv_hotel_supplier_row(env, b->supplier);
    int service_pays = !trv_supplier_can(row, TRV_SUP_COLLECTS_PAYMENT);
    int exponent = trv_currency_exponent(b->currency);
    apr_int64_t released = released_minor(b, exponent), captured = 0, before = 0, left, m;
    const char *fee = NULL, *refund = NULL, *refunded, *can_id;
    json_t *refund_to = trv_json_bind(p, json_array());
    apr_array_header_t *refunds = apr_array_make(p, 1, sizeof(trv_hrefund));
    trv_dbc *c;
    int i, same_currency = out->currency && strcmp(out->currency, b->currency) == 0;

    if (same_currency) {
        fee = trv_money_decimal(p, out->fee_minor, exponent);
    }
    if (!job_begin(env, p, &c) || trv_hcancellation_refunded(c, p, b->id, &refunded) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "reading earlier refunds");
        return;
    }
    minor_of(refunded, exponent, &before);
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_hpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_hpayment);
        if (pay->status == TRV_PAY_CAPTURED && minor_of(pay->amount, exponent, &m)) {
            captured += m;
        }
    }
    /* The intended refund: the released price less the supplier's fee,
     * capped by what was captured less earlier refund intents. Unknown
     * (NULL, for review) when the fee or the price cannot be read. */
    if (same_currency && released >= 0) {
        left = released - out->fee_minor;
        if (left > captured - before) {
            left = captured - before;
        }
        if (left < 0) {
            left = 0;
        }
        refund = trv_money_decimal(p, left, exponent);
        for (i = 0; b->payments && i < b->payments->nelts && left > 0; i++) {
            const trv_hpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_hpayment);
            apr_int64_t part;
            if (pay->status != TRV_PAY_CAPTURED || !minor_of(pay->amount, exponent, &m)) {
                continue;
            }
            part = m < left ? m : left;
            left -= part;
            json_array_append_new(refund_to, json_pack("{s:s}", "payment_id", pay->id));
            if (service_pays && pay->collected_by == TRV_COLLECTOR_SERVICE) {
                trv_hrefund *r = apr_array_push(refunds);
                memset(r, 0, sizeof(*r));
                r->id = trv_id_new(p, "rfd");
                r->booking_id = b->id;
                r->payment_id = pay->id;
                r->currency = b->currency;
                r->amount = trv_money_decimal(p, part, exponent);
            }
        }
    }
    if (trv_hcancellation_succeeded(c, p, b->id, b->cancel_attempt, fee, refund,
                                    trv_json_dump(p, refund_to), &can_id) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a cancellation");
        return;
    }
    if (can_id) {
        for (i = 0; i < refunds->nelts; i++) {
            trv_hrefund *r = &APR_ARRAY_IDX(refunds, i, trv_hrefund);
            r->cancellation_id = can_id;
            if (trv_hcancellation_refund_insert(c, p, r) != APR_SUCCESS) {
                job_db_failed(env, p, c, res, "recording refunds");
                return;
            }
        }
        if ((refunds->nelts > 0
             && trv_hcancel_enqueue(c, p, &trv_hjob_refund, b->id, -1, trv_job_request_id(job))
                != APR_SUCCESS)
            || settle(c, p, b->id, TRV_HEV_CANCELED) != APR_SUCCESS) {
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
    if (!refund) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, trv_job_request_id(job),
                    TRVLOGNO(1451) "hotel booking %s: canceled, but the refund could not be "
                    "established (fee in %s, booking in %s): review it", b->id,
                    out->currency ? out->currency : "-", b->currency);
    }
    trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                TRVLOGNO(1452) "hotel booking %s canceled at %s (%s), %d refund(s) to submit",
                b->id, b->supplier, b->supplier_booking_id, refunds->nelts);
}

/* The API's error_code for a supplier's refusal: a stored restriction and
 * a booking still being confirmed are told apart, anything else the
 * supplier refused is cancellation_failed (its message kept beside). */
static const char *refusal_code(apr_pool_t *p, const char *code)
{
    char *lc = apr_pstrdup(p, code ? code : "");
    int i;
    for (i = 0; lc[i]; i++) {
        lc[i] = (char)tolower((unsigned char)lc[i]);
    }
    if (strcmp(lc, "cancellation_restricted") == 0 || strcmp(lc, "booking_pending") == 0) {
        return lc;
    }
    return "cancellation_failed";
}

void trv_hjob_cancel_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    const char *id = trv_json_str(job->payload, "id");
    int attempt = (int)json_integer_value(json_object_get(job->payload, "attempt"));
    const trv_supplier *row;
    const trv_hotel_supplier *sup;
    trv_hotel_ctx ctx;
    trv_hotel_canceled out;
    trv_hotel_err err = {0};
    trv_hbooking *b;
    trv_dbc *c;
    trv_up_status st;

    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "database unavailable";
        return;
    }
    if (trv_hbooking_get_any(c, p, id ? id : "", &b) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "reading the booking");
        return;
    }
    trv_db_close(env->db, c);
    if (!b || b->status != TRV_HB_CANCELING || b->cancel_attempt != attempt) {
        return; /* finished, or another run's */
    }
    row = trv_hotel_supplier_row(env, b->supplier);
    sup = row ? trv_hotel_supplier_for(env, p, trv_job_request_id(job), row, &ctx) : NULL;
    ctx.org_id = b->org_id;
    ctx.booking_id = b->id;
    if (!sup || !sup->cancel || !b->supplier_booking_id) {
        failed(env, p, job, b, "cancellation_failed",
               "The booking's supplier cannot be reached to cancel it", res);
        return;
    }
    memset(&out, 0, sizeof(out));
    st = sup->cancel(&ctx, b->supplier_booking_id, &out, &err);
    switch (st) {
    case TRV_UP_OK:
        canceled(env, p, job, b, &out, res);
        return;
    case TRV_UP_REJECTED:
    case TRV_UP_NOT_FOUND:
    case TRV_UP_DECLINED:
        failed(env, p, job, b, refusal_code(p, err.code),
               err.message && *err.message ? err.message : "The supplier refused to cancel",
               res);
        return;
    default:
        /* Unanswered or unavailable: asked again (a cancel that did land
         * answers the same). The last attempt gives up: the booking stays
         * CONFIRMED and a repeated cancel resumes the attempt. */
        if (job->attempt >= job->max_attempts) {
            trv_log_msg(&env->log, TRV_LOG_ERR, trv_job_request_id(job),
                        TRVLOGNO(1453) "hotel booking %s: cancellation %d given up: %s: %s",
                        b->id, b->cancel_attempt, trv_up_status_name(st),
                        err.message ? err.message : "");
            failed(env, p, job, b, "supplier_unavailable",
                   "The supplier could not be reached to cancel; the booking is still "
                   "confirmed. Cancel again to retry", res);
            return;
        }
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "cancel at %s: %s", b->supplier, trv_up_status_name(st));
    }
}

/* ---- refunds ---- */

void trv_hjob_refund_run(trv_env *env, apr_pool_t *p, const trv_job *job,
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
    if (trv_hcancellation_refunds_pending(c, p, id ? id : "", &pending) != APR_SUCCESS) {
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
        trv_hrefund *r = &APR_ARRAY_IDX(pending, i, trv_hrefund);
        trv_pay_err err = {0};
        json_t *refund = NULL;
        trv_money amount;
        trv_up_status st;
        const char *error = NULL;
        trv_refund_status status = TRV_REFUND_PENDING; /* PENDING: no result yet */

        if (!r->provider_ref
            || trv_money_parse_decimal(r->amount, trv_currency_exponent(r->currency),
                                       &amount.minor) != APR_SUCCESS) {
            status = TRV_REFUND_FAILED;
            error = r->provider_ref ? "unreadable amount" : "the payment has no authorization";
        }
        else {
            memcpy(amount.currency, r->currency, 4);
            /* The refund's id is its idempotency key: a resend after a lost
             * answer makes no second refund. */
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
                        TRVLOGNO(1454) "hotel booking %s: refund %s of %s %s failed: %s (a "
                        "repeated cancel restarts it)", r->booking_id, r->id, r->amount,
                        r->currency, error);
        }
        if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
            res->outcome = TRV_JOB_RETRY;
            res->error = "database unavailable";
            return;
        }
        if (trv_hcancellation_refund_result(c, p, &env->log, trv_job_request_id(job), r->id, status,
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
