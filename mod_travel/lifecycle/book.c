/* The book runner (book.h): the steps every domain shares, the payment
 * ones above all; the domain's own (its supplier order, its reads, its
 * rows) come in through trv_lifecycle_book_domain. */
#include "book.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/owner.h"

#include <apr_strings.h>
#include <string.h>

void trv_lifecycle_book_init(trv_lifecycle_book_run *run, const trv_lifecycle_book_domain *dom,
                             trv_env *env, apr_pool_t *p, const char *request_id,
                             const trv_log *log, const char *owner, void *b)
{
    memset(run, 0, sizeof(*run));
    run->dom = dom;
    run->env = env;
    run->p = p;
    run->request_id = request_id;
    run->log = log;
    run->owner = owner;
    run->b = b;
}

trv_lifecycle_booking trv_lifecycle_book_view(const trv_lifecycle_book_run *run)
{
    trv_lifecycle_booking v;
    memset(&v, 0, sizeof(v));
    run->dom->view(run->b, &v);
    return v;
}

trv_lifecycle_book_step trv_lifecycle_book_step_of(int completing, int phase, int confirmed,
                                                   int failed)
{
    static const trv_lifecycle_book_step steps[] = {
        [TRV_LIFECYCLE_PHASE_NONE] = TRV_LIFECYCLE_BOOK_IDLE,
        [TRV_LIFECYCLE_PHASE_AUTHORIZING] = TRV_LIFECYCLE_BOOK_AUTHORIZING,
        [TRV_LIFECYCLE_PHASE_ORDERING] = TRV_LIFECYCLE_BOOK_ORDERING,
        [TRV_LIFECYCLE_PHASE_WAITING] = TRV_LIFECYCLE_BOOK_WAITING,
        [TRV_LIFECYCLE_PHASE_UNKNOWN] = TRV_LIFECYCLE_BOOK_LOST_ANSWER};
    return completing ? steps[phase]
         : confirmed ? TRV_LIFECYCLE_BOOK_DONE_CONFIRMED
         : failed ? TRV_LIFECYCLE_BOOK_DONE_FAILED
         : TRV_LIFECYCLE_BOOK_OTHER;
}

const trv_payment_record *trv_lifecycle_book_live_payment(const trv_lifecycle_book_run *run)
{
    trv_lifecycle_booking v = trv_lifecycle_book_view(run);
    int i;
    for (i = 0; v.payments && i < v.payments->nelts; i++) {
        const trv_payment_record *pay = &APR_ARRAY_IDX(v.payments, i, trv_payment_record);
        if (pay->status != TRV_PAY_VOIDED) {
            return pay;
        }
    }
    return NULL;
}

int trv_lifecycle_book_total(const trv_lifecycle_book_run *run, trv_money *m)
{
    trv_lifecycle_booking v = trv_lifecycle_book_view(run);
    int e = v.currency ? trv_currency_exponent(v.currency) : -1;
    if (e < 0 || !v.total_amount
        || trv_money_parse_decimal(v.total_amount, e, &m->minor) != APR_SUCCESS) {
        return 0;
    }
    memcpy(m->currency, v.currency, 4);
    return 1;
}

const char *trv_lifecycle_book_key(const trv_lifecycle_book_run *run, const char *what)
{
    trv_lifecycle_booking v = trv_lifecycle_book_view(run);
    return apr_psprintf(run->p, "%s:%s:%d", v.id, what, v.attempt);
}

json_t *trv_lifecycle_book_card_of(const json_t *obj)
{
    const json_t *card = json_object_get(obj, "card");
    return json_is_object(card) ? (json_t *)card : NULL;
}

static const char *bid(const trv_lifecycle_book_run *run)
{
    return trv_lifecycle_book_view(run).id;
}

/* ---- database steps ---- */

trv_lifecycle_book_outcome trv_lifecycle_book_db_failed(trv_lifecycle_book_run *run,
                                                        trv_dbc *c, int logno,
                                                        const char *what)
{
    trv_log_msg(run->log, TRV_LOG_ERR, run->request_id, "TRV%d: %s %s: %s: %s", logno,
                run->dom->noun, bid(run), what,
                c ? (c->error ? c->error : "failed") : "no connection");
    run->db_down = !c || c->unavailable;
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(run->env->db, c);
    }
    return TRV_LIFECYCLE_BOOK_DB;
}

int trv_lifecycle_book_open(trv_lifecycle_book_run *run, trv_dbc **c)
{
    *c = NULL;
    if (trv_db_open(run->env->db, run->p, c) != APR_SUCCESS) {
        *c = NULL;
        return 0;
    }
    return trv_db_begin(*c, run->p) == APR_SUCCESS;
}

int trv_lifecycle_book_commit(trv_lifecycle_book_run *run, trv_dbc *c)
{
    if (trv_db_commit(c) != APR_SUCCESS) {
        return 0;
    }
    trv_db_close(run->env->db, c);
    trv_env_wake(run->env);
    return 1;
}

trv_lifecycle_book_outcome trv_lifecycle_book_confirmed(trv_lifecycle_book_run *run, trv_dbc *c,
                                                        void *b, apr_status_t kept,
                                                        int logno_failed, int logno,
                                                        const char *ref_name,
                                                        const char *ref)
{
    if (kept != APR_SUCCESS || !trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, logno_failed, "confirming");
    }
    run->b = b;
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id, "TRV%d: %s %s confirmed: %s %s", logno,
                run->dom->noun, bid(run), ref_name, ref ? ref : "-");
    return TRV_LIFECYCLE_BOOK_CONFIRMED;
}

trv_lifecycle_book_outcome trv_lifecycle_book_lost(trv_lifecycle_book_run *run, trv_dbc *c)
{
    void *b = NULL;
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    if (run->dom->reread(run, c, bid(run), &b) != APR_SUCCESS || !b) {
        return trv_lifecycle_book_db_failed(run, c, 2660, "re-reading after a lost race");
    }
    trv_db_close(run->env->db, c);
    run->b = b;
    switch (trv_lifecycle_book_view(run).step) {
    case TRV_LIFECYCLE_BOOK_DONE_CONFIRMED:
        return TRV_LIFECYCLE_BOOK_CONFIRMED;
    case TRV_LIFECYCLE_BOOK_DONE_FAILED:
        return TRV_LIFECYCLE_BOOK_FAILED;
    case TRV_LIFECYCLE_BOOK_LOST_ANSWER:
        return TRV_LIFECYCLE_BOOK_UNKNOWN;
    case TRV_LIFECYCLE_BOOK_OTHER:
    case TRV_LIFECYCLE_BOOK_IDLE:
    case TRV_LIFECYCLE_BOOK_AUTHORIZING:
    case TRV_LIFECYCLE_BOOK_ORDERING:
    case TRV_LIFECYCLE_BOOK_WAITING:
        break;
    }
    return TRV_LIFECYCLE_BOOK_PENDING;
}

/* ---- settling authorizations ---- */

apr_status_t trv_lifecycle_book_apply_settle(trv_lifecycle_book_run *run, trv_dbc *c,
                                             const trv_lifecycle_book_settle *s)
{
    const trv_pintent_kind *k = run->dom->intents;
    trv_lifecycle_booking v = trv_lifecycle_book_view(run);
    trv_prelease rel;
    const char *id;
    if (!s) {
        return APR_SUCCESS;
    }
    if (s->sdk) {
        /* Released once the booking can no longer use it (FAILED). */
        if (s->outcome != TRV_PINTENT_OUTCOME_NONE) {
            return APR_SUCCESS;
        }
        if (trv_pintent_sdk_release(k, c, run->p, v.id, v.attempt, v.currency, v.total_amount,
                                    s->provider_ref, &rel) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        return trv_pintent_schedule(k, c, run->p, &rel, run->request_id);
    }
    id = s->intent_id;
    if (!id && s->by_auth) {
        trv_pintent *in = NULL;
        if (trv_pintent_of_auth(k, c, run->p, v.id, s->by_auth, &in) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        id = in ? in->id : NULL;
    }
    if (!id) {
        return APR_SUCCESS;
    }
    if (s->outcome != TRV_PINTENT_OUTCOME_NONE) {
        return trv_pintent_resolved(k, c, run->p, id, s->outcome, s->provider_ref);
    }
    if (trv_pintent_unresolved(k, c, run->p, id, s->provider_ref, s->after, &rel)
        != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return trv_pintent_schedule(k, c, run->p, &rel, run->request_id);
}

static trv_lifecycle_book_settle *resolved(trv_lifecycle_book_settle *s, const char *intent_id,
                                           trv_pintent_outcome outcome)
{
    memset(s, 0, sizeof(*s));
    s->intent_id = intent_id;
    s->outcome = outcome;
    return s;
}

/* No answer that settles it: the next attempt with the same instrument
 * takes it up, else the release job voids whatever it was. */
static trv_lifecycle_book_settle *unresolved(trv_lifecycle_book_run *run,
                                             trv_lifecycle_book_settle *s,
                                             const char *intent_id)
{
    memset(s, 0, sizeof(*s));
    s->intent_id = intent_id;
    s->after = trv_pintent_grace(run->env);
    return s;
}

int trv_lifecycle_book_void(trv_lifecycle_book_run *run, const char *authorization_id, int sdk,
                            trv_lifecycle_book_settle *s)
{
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_up_status st = TRV_UP_UNAVAILABLE;
    memset(s, 0, sizeof(*s));
    s->by_auth = authorization_id;
    s->provider_ref = authorization_id;
    s->sdk = sdk;
    if (trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
        st = trv_payment_adapter.void_auth(&pc, authorization_id, &auth, &err);
    }
    if (st == TRV_UP_OK) {
        s->outcome = TRV_PINTENT_OUTCOME_VOIDED;
        return 1;
    }
    trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                TRVLOGNO(2661) "%s %s: voiding authorization %s failed (%s): %s; "
                "the %s job voids it", run->dom->noun, bid(run), authorization_id,
                trv_up_status_name(st), err.message ? err.message : "",
                run->dom->intents->release_job->kind);
    return 0;
}

int trv_lifecycle_book_cancel_sdk(trv_lifecycle_book_run *run, const char *authorization_id,
                                  const char *sdk_token, trv_lifecycle_book_settle *s)
{
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_up_status st = TRV_UP_UNAVAILABLE;
    if (trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
        st = trv_payment_adapter.sdk_cancel(&pc, sdk_token, &auth, &err);
    }
    if (st == TRV_UP_OK) {
        return 1;
    }
    memset(s, 0, sizeof(*s));
    s->by_auth = authorization_id;
    s->provider_ref = authorization_id;
    s->sdk = 1;
    trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                TRVLOGNO(2662) "%s %s: canceling its SDK session failed (%s): %s; "
                "the %s job cancels it and voids %s", run->dom->noun, bid(run),
                trv_up_status_name(st), err.message ? err.message : "",
                run->dom->intents->release_job->kind,
                authorization_id ? authorization_id : "its payment");
    return 0;
}

trv_up_status trv_lifecycle_book_capture(trv_lifecycle_book_run *run,
                                         const trv_payment_record *pay, const char *key,
                                         json_t **card)
{
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_money total;
    trv_up_status st = TRV_UP_UNAVAILABLE;
    *card = NULL;
    if (trv_lifecycle_book_total(run, &total)
        && trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
        st = trv_payment_adapter.capture(&pc, pay->provider_ref, &total, key, &auth, &err);
    }
    if (st == TRV_UP_OK) {
        *card = trv_lifecycle_book_card_of(auth);
        return st;
    }
    /* Bought: the booking is confirmed, and the domain retries the
     * capture in the background. */
    trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                TRVLOGNO(2663) "%s %s: capture of %s failed (%s): %s; "
                "retrying in the background", run->dom->noun, bid(run), pay->provider_ref,
                trv_up_status_name(st), err.message ? err.message : "");
    return st;
}

void trv_lifecycle_book_supplier_payment(trv_lifecycle_book_run *run, const json_t *payment,
                                         json_t *card, trv_payment_record *out)
{
    trv_lifecycle_booking v = trv_lifecycle_book_view(run);
    trv_money amount;
    const char *why;
    memset(out, 0, sizeof(*out));
    out->id = trv_id_new(run->p, "pay");
    out->booking_id = v.id;
    out->status = TRV_PAY_CAPTURED;
    out->collected_by = TRV_COLLECTOR_SUPPLIER;
    if (trv_money_from_json(json_object_get(payment, "amount"), &amount, &why) != APR_SUCCESS
        && !trv_lifecycle_book_total(run, &amount)) {
        amount.minor = 0;
        memcpy(amount.currency, v.currency ? v.currency : "EUR", 4);
    }
    out->currency = apr_pstrdup(run->p, amount.currency);
    out->amount = trv_money_decimal(run->p, amount.minor, trv_currency_exponent(amount.currency));
    out->card = card;
}

/* ---- revert ---- */

trv_lifecycle_book_outcome trv_lifecycle_book_revert(trv_lifecycle_book_run *run,
                                                     trv_lifecycle_book_outcome why,
                                                     const trv_lifecycle_book_settle *s)
{
    trv_dbc *c;
    void *b = NULL;
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 2664, "reverting to READY_FOR_COMPLETE");
    }
    if (run->dom->revert(run, c, &b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 2664, "reverting to READY_FOR_COMPLETE");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    if (trv_lifecycle_book_apply_settle(run, c, s) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 2665,
                                            "settling the attempt's authorization");
    }
    if (!trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 2664, "reverting to READY_FOR_COMPLETE");
    }
    run->b = b;
    return why;
}

/* ---- authorizing ---- */

/* The authorization intent this attempt authorizes with, recorded before
 * the call: the attempt's own (a takeover of a step whose process died),
 * else the one an unanswered earlier attempt left for this instrument and
 * amount (its key finds the authorization the provider made late, or
 * makes it now: the customer is authorized once), else a new one. Any
 * other unsettled intent of the booking will not be used: released now. */
static trv_lifecycle_book_outcome take_intent(trv_lifecycle_book_run *run,
                                              const trv_money *total, trv_pintent **in)
{
    const trv_pintent_kind *k = run->dom->intents;
    trv_lifecycle_booking v = trv_lifecycle_book_view(run);
    apr_array_header_t *others;
    trv_dbc *c;
    int held = 0, i;

    *in = NULL;
    if (!trv_lifecycle_book_open(run, &c)
        || trv_pintent_lock_step(k, c, run->p, v.id, run->owner, &held) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 2666, "recording the authorization intent");
    }
    if (!held) {
        return trv_lifecycle_book_lost(run, c);
    }
    if (trv_pintent_own(k, c, run->p, v.id, v.attempt, in) != APR_SUCCESS
        || (!*in && trv_pintent_reuse(k, c, run->p, v.id, v.attempt, v.instrument,
                                      total->currency, v.total_amount, in) != APR_SUCCESS)
        || (!*in && trv_pintent_insert(k, c, run->p, v.id, v.attempt, v.instrument,
                                       total->currency, v.total_amount, in) != APR_SUCCESS)) {
        return trv_lifecycle_book_db_failed(run, c, 2666, "recording the authorization intent");
    }
    if (!*in) {
        c->error = "the attempt's authorization key is taken";
        return trv_lifecycle_book_db_failed(run, c, 2666, "recording the authorization intent");
    }
    if (trv_pintent_release_others(k, c, run->p, v.id, (*in)->id, &others) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 2667,
                                            "releasing unused authorization intents");
    }
    for (i = 0; i < others->nelts; i++) {
        if (trv_pintent_schedule(k, c, run->p, &APR_ARRAY_IDX(others, i, trv_prelease),
                                 run->request_id) != APR_SUCCESS) {
            return trv_lifecycle_book_db_failed(run, c, 2667,
                                                "releasing unused authorization intents");
        }
    }
    if (!trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 2666, "recording the authorization intent");
    }
    if (strcmp((*in)->key, trv_lifecycle_book_key(run, "authorize")) != 0) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(2668) "%s %s: authorizing with the unresolved key %s",
                    run->dom->noun, v.id, (*in)->key);
    }
    if (others->nelts > 0) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(2669) "%s %s: %d unresolved authorization(s) of another "
                    "instrument or amount to release", run->dom->noun, v.id, others->nelts);
    }
    return TRV_LIFECYCLE_BOOK_RETRY;
}

/* Records the authorization as the booking's payment and moves on to
 * ordering. intent_id: the intent it settles (NULL: an SDK payment). */
static trv_lifecycle_book_outcome record_authorization(trv_lifecycle_book_run *run,
                                                       const trv_money *total,
                                                       const json_t *auth,
                                                       const char *intent_id)
{
    trv_lifecycle_booking v = trv_lifecycle_book_view(run);
    trv_payment_record pay;
    trv_dbc *c;
    void *b = NULL;
    int updated = 1, inserted;

    memset(&pay, 0, sizeof(pay));
    pay.id = trv_id_new(run->p, "pay");
    pay.booking_id = v.id;
    pay.status = TRV_PAY_AUTHORIZED;
    pay.currency = total->currency;
    pay.amount = v.total_amount;
    pay.collected_by = TRV_COLLECTOR_SERVICE;
    pay.provider_ref = trv_json_str(auth, "id");
    pay.card = trv_lifecycle_book_card_of(auth);
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 2670, "recording the authorization");
    }
    if (trv_payments_insert(run->dom->payments, c, run->p, &pay, &inserted) != APR_SUCCESS
        || run->dom->authorized(run, c, &b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 2670, "recording the authorization");
    }
    if (b && intent_id
        && trv_pintent_authorized(run->dom->intents, c, run->p, intent_id, pay.provider_ref,
                                  &updated) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 2670, "recording the authorization");
    }
    if (!b || !updated) {
        return trv_lifecycle_book_lost(run, c);
    }
    if (!trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 2670, "recording the authorization");
    }
    run->b = b;
    return TRV_LIFECYCLE_BOOK_RETRY; /* go on to ordering */
}

/* The amount authorized must be the booking's total. */
static int covers(const json_t *auth, const trv_money *total)
{
    trv_money authorized;
    const char *why;
    return trv_money_from_json(json_object_get(auth, "amount"), &authorized, &why)
               == APR_SUCCESS
        && strcmp(authorized.currency, total->currency) == 0
        && authorized.minor >= total->minor;
}

static void provider_failed(trv_lifecycle_book_run *run, trv_up_status st,
                            const trv_pay_err *err)
{
    trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                TRVLOGNO(2671) "%s %s: payment provider %s: %s", run->dom->noun, bid(run),
                trv_up_status_name(st), err->message ? err->message : "");
}

/* A saved instrument: the service authorizes it with the intent's key. */
static trv_lifecycle_book_outcome authorize_instrument(trv_lifecycle_book_run *run,
                                                       trv_pay_ctx *pc, const trv_money *total)
{
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_pintent *in;
    trv_up_status st;
    const char *auth_id, *status;
    trv_lifecycle_book_settle s;
    trv_lifecycle_book_outcome out = take_intent(run, total, &in);

    if (out != TRV_LIFECYCLE_BOOK_RETRY) {
        return out;
    }
    st = trv_payment_adapter.authorize(pc, in->instrument, total, in->key, &auth, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        break;
    case TRV_UP_DECLINED:
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_DECLINED,
                                         resolved(&s, in->id, TRV_PINTENT_OUTCOME_DECLINED));
    case TRV_UP_NOT_FOUND:
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_BAD_INSTRUMENT,
                                         resolved(&s, in->id, TRV_PINTENT_OUTCOME_NOT_FOUND));
    case TRV_UP_REJECTED:
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_BAD_INSTRUMENT,
                                         resolved(&s, in->id, TRV_PINTENT_OUTCOME_REJECTED));
    case TRV_UP_UNAVAILABLE:
        /* The provider answered an error or could not be reached: it
         * authorized nothing (core/upstream.h), and a fresh key is better
         * than one it may have stored that error under. */
        provider_failed(run, st, &err);
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE,
                                         resolved(&s, in->id, TRV_PINTENT_OUTCOME_UNAVAILABLE));
    case TRV_UP_TIMEOUT:
        /* An authorization may exist: the intent keeps its key for the
         * next attempt, or the release job voids what it finds. */
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(2672) "%s %s: authorize %s unanswered: kept for the next "
                    "attempt or released in %" APR_TIME_T_FMT " s", run->dom->noun, bid(run),
                    in->key, apr_time_sec(trv_pintent_grace(run->env)));
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_TIMEOUT,
                                         unresolved(run, &s, in->id));
    default:
        /* An answer that is not an authorization: one may exist. */
        provider_failed(run, st, &err);
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE,
                                         unresolved(run, &s, in->id));
    }
    auth_id = trv_json_str(auth, "id");
    status = trv_json_str(auth, "status");
    if (!auth_id || !status) {
        run->message = "the payment provider answered without an authorization id";
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE,
                                         unresolved(run, &s, in->id));
    }
    if (!trv_pay_status_text_is(status, TRV_PAY_AUTHORIZED)) {
        /* Its key answered an authorization that is voided (or, never
         * by this service, captured): the next attempt starts afresh. */
        run->message = apr_psprintf(run->p, "the payment provider's authorization %s is %s",
                                    auth_id, status);
        resolved(&s, in->id, trv_pay_status_text_is(status, TRV_PAY_VOIDED)
                                  ? TRV_PINTENT_OUTCOME_VOIDED
                                  : TRV_PINTENT_OUTCOME_CAPTURED);
        s.provider_ref = auth_id;
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, &s);
    }
    if (!covers(auth, total)) {
        run->message = "the authorized amount is not the booking's total_amount";
        trv_lifecycle_book_void(run, auth_id, 0, &s);
        s.intent_id = in->id;
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_NOT_PAID, &s);
    }
    return record_authorization(run, total, auth, in->id);
}

/* An SDK payment: the customer's device authorized the session, the
 * service looks it up (a read: nothing to settle when it goes
 * unanswered). */
static trv_lifecycle_book_outcome authorize_sdk(trv_lifecycle_book_run *run, trv_pay_ctx *pc,
                                                const trv_money *total)
{
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_up_status st;
    const char *auth_id, *status;
    trv_lifecycle_book_settle s;

    st = trv_payment_adapter.sdk_authorization(pc, trv_lifecycle_book_view(run).sdk_token,
                                               &auth, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        break;
    case TRV_UP_NOT_FOUND:
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_NOT_PAID, NULL);
    case TRV_UP_DECLINED:
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_DECLINED, NULL);
    case TRV_UP_REJECTED:
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_BAD_INSTRUMENT, NULL);
    case TRV_UP_TIMEOUT:
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_TIMEOUT, NULL);
    default:
        provider_failed(run, st, &err);
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, NULL);
    }
    auth_id = trv_json_str(auth, "id");
    status = trv_json_str(auth, "status");
    if (!auth_id || !status) {
        run->message = "the payment provider answered without an authorization id";
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, NULL);
    }
    if (!trv_pay_status_text_is(status, TRV_PAY_AUTHORIZED)) {
        run->message = apr_psprintf(run->p, "the SDK payment's authorization is %s", status);
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_NOT_PAID, NULL);
    }
    if (!covers(auth, total)) {
        /* It can never pay this booking: released now (or, if the
         * provider does not void it now, when the booking expires). */
        run->message = "the authorized amount is not the booking's total_amount";
        trv_lifecycle_book_void(run, auth_id, 1, &s);
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_NOT_PAID, NULL);
    }
    return record_authorization(run, total, auth, NULL);
}

static trv_lifecycle_book_outcome step_authorize(trv_lifecycle_book_run *run)
{
    trv_pay_ctx pc;
    trv_money total;

    if (!trv_lifecycle_book_total(run, &total)) {
        run->message = "the booking has no price";
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, NULL);
    }
    if (!trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
        trv_log_msg(run->log, TRV_LOG_ERR, run->request_id,
                    TRVLOGNO(2673) "%s %s: no TravelPaymentProvider is configured",
                    run->dom->noun, bid(run));
        run->message = "no payment provider is configured";
        return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, NULL);
    }
    return trv_lifecycle_book_view(run).use_sdk ? authorize_sdk(run, &pc, &total)
                                                : authorize_instrument(run, &pc, &total);
}

/* ---- the run ---- */

trv_lifecycle_book_outcome trv_lifecycle_book_continue(trv_lifecycle_book_run *run)
{
    for (;;) {
        trv_lifecycle_book_outcome out = TRV_LIFECYCLE_BOOK_UNKNOWN;
        trv_lifecycle_book_step step = trv_lifecycle_book_view(run).step;
        switch (step) {
        case TRV_LIFECYCLE_BOOK_DONE_CONFIRMED:
            return TRV_LIFECYCLE_BOOK_CONFIRMED;
        case TRV_LIFECYCLE_BOOK_DONE_FAILED:
            return TRV_LIFECYCLE_BOOK_FAILED;
        case TRV_LIFECYCLE_BOOK_OTHER:
        case TRV_LIFECYCLE_BOOK_IDLE:
            return TRV_LIFECYCLE_BOOK_PENDING;
        case TRV_LIFECYCLE_BOOK_AUTHORIZING:
            out = step_authorize(run);
            break;
        case TRV_LIFECYCLE_BOOK_ORDERING:
            out = run->dom->order(run);
            break;
        case TRV_LIFECYCLE_BOOK_WAITING:
        case TRV_LIFECYCLE_BOOK_LOST_ANSWER:
            out = run->dom->wait ? run->dom->wait(run) : TRV_LIFECYCLE_BOOK_RETRY;
            if (out == TRV_LIFECYCLE_BOOK_RETRY) {
                return step == TRV_LIFECYCLE_BOOK_LOST_ANSWER ? TRV_LIFECYCLE_BOOK_UNKNOWN
                                                              : TRV_LIFECYCLE_BOOK_PENDING;
            }
            break;
        }
        if (out != TRV_LIFECYCLE_BOOK_RETRY) {
            return out;
        }
    }
}

/* ---- the domain's complete job ---- */

void *trv_lifecycle_book_job_load(const trv_lifecycle_book_domain *dom, trv_env *env,
                                  apr_pool_t *p, const trv_job *job, trv_job_result *res)
{
    trv_lifecycle_book_run run;
    const char *id;
    void *b = NULL;
    trv_dbc *c;
    if (!trv_job_open(env, p, job, &id, &c, res)) {
        return NULL;
    }
    trv_lifecycle_book_init(&run, dom, env, p, trv_job_request_id(job), &env->log, NULL, NULL);
    if (dom->reread(&run, c, id, &b) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "reading %s %s: %s", dom->noun, id, c->error);
        b = NULL;
    }
    trv_db_close(env->db, c);
    return b;
}

int trv_lifecycle_book_job_may_take(apr_pool_t *p, int phase_due, const char *phase_owner,
                                    trv_job_result *res)
{
    if (!phase_due && !trv_owner_gone(p, phase_owner)) {
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = apr_time_from_sec(1);
        res->error = "the request is still at it";
        return 0;
    }
    return 1;
}

int trv_lifecycle_book_job_take_over(trv_lifecycle_book_run *run, trv_job_result *res)
{
    trv_dbc *c;
    void *took = NULL;
    if (!trv_job_db_open(run->env, run->p, &c, res)) {
        return 0;
    }
    if (run->dom->take_over(run, c, &took) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(run->p, "taking over: %s", c->error);
        trv_db_close(run->env->db, c);
        return 0;
    }
    trv_db_close(run->env->db, c);
    if (!took) {
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = apr_time_from_sec(1);
        res->error = "moved on meanwhile";
        return 0;
    }
    run->b = took;
    return 1;
}

void trv_lifecycle_book_job_result(const trv_lifecycle_book_run *run,
                                   trv_lifecycle_book_outcome out, const trv_job *job,
                                   const char *waiting, trv_job_result *res)
{
    switch (out) {
    case TRV_LIFECYCLE_BOOK_UNKNOWN:
        if (!run->dom->wait) {
            return; /* never sent again, and nobody reads it */
        }
        /* fall through */
    case TRV_LIFECYCLE_BOOK_PENDING:
    case TRV_LIFECYCLE_BOOK_RETRY:
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = job->attempt < 60 ? apr_time_from_sec(1) : apr_time_from_sec(30);
        res->error = waiting;
        return;
    case TRV_LIFECYCLE_BOOK_DB:
        res->outcome = TRV_JOB_RETRY;
        res->error = "database step failed";
        return;
    case TRV_LIFECYCLE_BOOK_CONFIRMED:
    case TRV_LIFECYCLE_BOOK_FAILED:
    case TRV_LIFECYCLE_BOOK_DECLINED:
    case TRV_LIFECYCLE_BOOK_BAD_INSTRUMENT:
    case TRV_LIFECYCLE_BOOK_NOT_PAID:
    case TRV_LIFECYCLE_BOOK_UNAVAILABLE:
    case TRV_LIFECYCLE_BOOK_TIMEOUT:
        return;
    }
}
