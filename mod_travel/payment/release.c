/* The release job of authorization intents (intents.h), for any domain
 * (flight.payment.release, hotel.payment.release): voids an authorization
 * no booking will use, so the customer's funds are not held until the
 * authorization lapses.
 *
 * The job takes an UNRESOLVED intent once it is due (RELEASING; a book
 * attempt taking the intent at the same moment gets it instead, and this
 * job stands down), then finds the authorization:
 *   - known (a void that failed earlier): that one;
 *   - a saved instrument: authorize again with the intent's own
 *     idempotency key and body, so the provider answers the authorization
 *     it made when the first call went unanswered (or makes it now);
 *   - an SDK session, once the booking is FAILED or EXPIRED (until then
 *     the session is the booking's only way to pay): the session is
 *     canceled first, so the customer's device can pay it no more, and
 *     the cancel answers the authorization the device made before it, if
 *     any. A device paying at any moment of the release is therefore
 *     either refused (after the cancel) or named by the cancel (before),
 *     and voided: never left held.
 * and voids it. Declined, refused or unknown answers mean nothing is held.
 * Anything else (no answer, the provider down) is retried with backoff:
 * RELEASING is resumed by the next run. The outcome is written on the
 * intent (RESOLVED) and on the booking's payment row if it names it. */
#include "intents.h"
#include "pay_status.h"


#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

static void retry(trv_job_result *res, apr_interval_time_t in, const char *why)
{
    res->outcome = TRV_JOB_RETRY;
    res->retry_in = in;
    res->error = why;
}

/* Whether an SDK session's booking can still pay with it. */
static int sdk_in_use(const trv_pintent *in)
{
    return !in->booking_past_expiry && !in->booking_ended;
}

/* Records the outcome: the intent RESOLVED, and a payment row naming the
 * voided authorization VOIDED. */
static void resolve(const trv_pintent_kind *k, trv_env *env, apr_pool_t *p,
                    const trv_job *job, const trv_pintent *in, trv_pintent_outcome outcome,
                    const char *auth_id, trv_job_result *res)
{
    trv_dbc *c;
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS
        || trv_pintent_resolved(k, c, p, in->id, outcome, auth_id) != APR_SUCCESS
        || (auth_id && outcome == TRV_PINTENT_OUTCOME_VOIDED
            && trv_pintent_payment_voided(k, c, p, in->booking_id, auth_id) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        retry(res, 0, apr_psprintf(p, "recording the release of %s: %s", in->id, c->error));
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                TRVLOGNO(1260) "%s booking %s: authorization intent %s released: %s%s%s",
                k->domain, in->booking_id, in->id, trv_pintent_outcome_text(outcome), auth_id ? " " : "",
                auth_id ? auth_id : "");
}

/* What a provider's answer that is not an authorization says: *outcome
 * when it settles the intent (nothing is held), else 0 (ask again later). */
static int settled_without(trv_pay_ctx *pc, trv_up_status st, const trv_pay_err *err,
                           trv_pintent_outcome *outcome, trv_job_result *res)
{
    switch (st) {
    case TRV_UP_DECLINED:
        *outcome = TRV_PINTENT_OUTCOME_DECLINED;
        return 1;
    case TRV_UP_NOT_FOUND:
        *outcome = TRV_PINTENT_OUTCOME_NOT_FOUND;
        return 1;
    case TRV_UP_REJECTED:
        *outcome = TRV_PINTENT_OUTCOME_REJECTED;
        return 1;
    default:
        retry(res, 0, apr_psprintf(pc->pool, "payment provider: %s: %s",
                                   trv_up_status_name(st), err->message ? err->message : ""));
        return 0;
    }
}

/* Asks the provider which authorization a saved instrument's intent made:
 * *auth (NULL with *outcome set when there is none). 0: ask again later. */
static int reveal(trv_pay_ctx *pc, const trv_pintent *in, json_t **auth,
                  trv_pintent_outcome *outcome, trv_job_result *res)
{
    trv_pay_err err = {0};
    trv_money amount;
    trv_up_status st;
    int e = trv_currency_exponent(in->currency);
    *auth = NULL;
    *outcome = TRV_PINTENT_OUTCOME_NONE;
    if (e < 0 || trv_money_parse_decimal(in->amount, e, &amount.minor) != APR_SUCCESS) {
        *outcome = TRV_PINTENT_OUTCOME_UNREADABLE;
        return 1;
    }
    memcpy(amount.currency, in->currency, 4);
    st = trv_payment_adapter.authorize(pc, in->instrument, &amount, in->key, auth, &err);
    if (st != TRV_UP_OK) {
        return settled_without(pc, st, &err, outcome, res);
    }
    if (!trv_json_str(*auth, "id")) {
        retry(res, 0, "the provider answered without an authorization id");
        return 0;
    }
    return 1;
}

/* Cancels an SDK intent's session, so the customer's device can no longer
 * pay it: *auth is the authorization the device made before the cancel
 * (NULL with *outcome set when it made none and none is known). The
 * cancel comes before any void, also when the authorization is known (a
 * void that failed): voiding first would leave a window in which the
 * device could pay the session again on a provider that allows it.
 * 0: ask again later. */
static int cancel_session(trv_pay_ctx *pc, const trv_pintent *in, json_t **auth,
                          trv_pintent_outcome *outcome, trv_job_result *res)
{
    trv_pay_err err = {0};
    trv_up_status st = trv_payment_adapter.sdk_cancel(pc, in->sdk_token, auth, &err);
    *outcome = TRV_PINTENT_OUTCOME_NONE;
    if (st == TRV_UP_OK) {
        if (*auth && !trv_json_str(*auth, "id")) {
            retry(res, 0, "the provider answered without an authorization id");
            return 0;
        }
        /* Canceled unpaid: nothing is held, and nothing can be any more. */
        if (!*auth && !in->provider_ref) {
            *outcome = TRV_PINTENT_OUTCOME_CANCELED;
        }
        return 1;
    }
    *auth = NULL;
    if (st == TRV_UP_REJECTED) {
        /* Its payment was captured, which the service never does to a
         * session no booking uses. An operator looks at it. */
        trv_log_msg(&pc->env->log, TRV_LOG_ERR, pc->request_id,
                    TRVLOGNO(1304) "booking %s: its SDK session cannot be canceled: %s",
                    in->booking_id, err.message ? err.message : "refused");
    }
    if (st == TRV_UP_NOT_FOUND && in->provider_ref) {
        /* No session to cancel, but an authorization to void. */
        return 1;
    }
    return settled_without(pc, st, &err, outcome, res);
}

void trv_pintent_release_run(const trv_pintent_kind *k, trv_env *env, apr_pool_t *p,
                             const trv_job *job, trv_job_result *res)
{
    const char *id = trv_json_str(job->payload, "id"), *auth_id, *status;
    trv_pintent_outcome outcome = TRV_PINTENT_OUTCOME_NONE;
    trv_pintent *in = NULL;
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_up_status st;
    trv_dbc *c;
    int claimed = 0;

    if (!id) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload has no id";
        return;
    }
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_pintent_get(k, c, p, id, &in) != APR_SUCCESS) {
        retry(res, 0, apr_psprintf(p, "reading intent %s: %s", id, c->error));
        trv_db_close(env->db, c);
        return;
    }
    if (in && in->status == TRV_PINTENT_UNRESOLVED) {
        if (!in->key && sdk_in_use(in)) {
            trv_db_close(env->db, c);
            retry(res, apr_time_from_sec(30), "the booking may still pay with its SDK session");
            return;
        }
        if (in->release_in > 0) {
            trv_db_close(env->db, c);
            retry(res, in->release_in + apr_time_from_msec(50), "not due yet");
            return;
        }
        if (trv_pintent_claim(k, c, p, id, &claimed) != APR_SUCCESS) {
            retry(res, 0, apr_psprintf(p, "taking intent %s: %s", id, c->error));
            trv_db_close(env->db, c);
            return;
        }
    }
    trv_db_close(env->db, c);
    /* Taken up by a book attempt, settled, or someone else's to release. */
    if (!in || (!claimed && in->status != TRV_PINTENT_RELEASING)) {
        return;
    }
    if (!trv_pay_ctx_init(env, p, trv_job_request_id(job), &pc)) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "no TravelPaymentProvider is configured";
        return;
    }
    auth_id = in->provider_ref;
    if (!in->key || !auth_id) {
        if (!(in->key ? reveal(&pc, in, &auth, &outcome, res)
                      : cancel_session(&pc, in, &auth, &outcome, res))) {
            return;
        }
        if (outcome != TRV_PINTENT_OUTCOME_NONE) {
            /* Nothing was authorized (or can be): nothing is held. */
            resolve(k, env, p, job, in, outcome, in->provider_ref, res);
            return;
        }
        if (auth) {
            auth_id = trv_json_str(auth, "id");
            status = trv_json_str(auth, "status");
            if (trv_pay_status_text_is(status, TRV_PAY_VOIDED)
                && (!in->provider_ref || strcmp(in->provider_ref, auth_id) == 0)) {
                resolve(k, env, p, job, in, TRV_PINTENT_OUTCOME_VOIDED, auth_id, res);
                return;
            }
        }
    }
    st = trv_payment_adapter.void_auth(&pc, auth_id, &auth, &err);
    switch (st) {
    case TRV_UP_OK:
        resolve(k, env, p, job, in, TRV_PINTENT_OUTCOME_VOIDED, auth_id, res);
        return;
    case TRV_UP_NOT_FOUND:
        resolve(k, env, p, job, in, TRV_PINTENT_OUTCOME_NOT_FOUND, auth_id, res);
        return;
    case TRV_UP_REJECTED:
        /* Not voidable: it was captured, which the service never does to
         * an authorization no booking uses. An operator looks at it. */
        trv_log_msg(&env->log, TRV_LOG_ERR, trv_job_request_id(job),
                    TRVLOGNO(1261) "booking %s: authorization %s cannot be voided: %s",
                    in->booking_id, auth_id, err.message ? err.message : "refused");
        resolve(k, env, p, job, in, TRV_PINTENT_OUTCOME_REJECTED, auth_id, res);
        return;
    default:
        retry(res, 0, apr_psprintf(p, "voiding %s: %s: %s", auth_id, trv_up_status_name(st),
                                   err.message ? err.message : ""));
    }
}
