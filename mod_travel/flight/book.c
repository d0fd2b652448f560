#include "book.h"
#include "events.h"
#include "intents.h"
#include "order_status.h"
#include "enqueue.h"
#include "core/owner.h"
#include "booking_store.h"
#include "upstreams.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

int trv_fbook_service_pays(const trv_env *env, const trv_fbooking *b)
{
    /* A supplier that collects payment itself books with {}. */
    return !trv_supplier_can(trv_flight_supplier_row(env->cfg, b->supplier),
                             TRV_SUP_COLLECTS_PAYMENT);
}

apr_interval_time_t trv_fbook_phase_budget(const trv_env *env, const trv_fbooking *b,
                                           trv_fb_phase phase)
{
    if (phase == TRV_FB_PHASE_AUTHORIZING) {
        return trv_flight_step_budget(env, b->supplier, 0, 1);
    }
    /* ordering: book, then capture (or void) */
    return trv_flight_step_budget(env, b->supplier, 1, trv_fbook_service_pays(env, b) ? 1 : 0);
}

static int booking_total(const trv_fbooking *b, trv_money *m)
{
    int e = trv_currency_exponent(b->currency);
    if (e < 0 || !b->total_amount
        || trv_money_parse_decimal(b->total_amount, e, &m->minor) != APR_SUCCESS) {
        return 0;
    }
    memcpy(m->currency, b->currency, 4);
    return 1;
}

/* The booking's live payment (not voided), or NULL. */
static const trv_fpayment *live_payment(const trv_fbooking *b)
{
    int i;
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_fpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_fpayment);
        if (pay->status != TRV_PAY_VOIDED) {
            return pay;
        }
    }
    return NULL;
}

static const char *key(trv_fbook_run *run, const char *what)
{
    return apr_psprintf(run->p, "%s:%s:%d", run->b->id, what, run->b->book_attempt);
}

/* ---- database steps: one short transaction each ---- */

static trv_fbook_outcome db_failed(trv_fbook_run *run, trv_dbc *c, int logno, const char *what)
{
    trv_log_msg(run->log, TRV_LOG_ERR, run->request_id, "TRV%d: booking %s: %s: %s", logno,
                run->b->id, what, c ? (c->error ? c->error : "failed") : "no connection");
    run->db_down = !c || c->unavailable;
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(run->env->db, c);
    }
    return TRV_BOOK_DB;
}

static int begin(trv_fbook_run *run, trv_dbc **c)
{
    *c = NULL;
    if (trv_db_open(run->env->db, run->p, c) != APR_SUCCESS) {
        *c = NULL;
        return 0;
    }
    if (trv_db_begin(*c, run->p) != APR_SUCCESS) {
        return 0;
    }
    return 1;
}

static int commit(trv_fbook_run *run, trv_dbc *c)
{
    if (trv_db_commit(c) != APR_SUCCESS) {
        return 0;
    }
    trv_db_close(run->env->db, c);
    trv_env_wake(run->env);
    return 1;
}

/* Someone else moved the booking on (a takeover, a racing job): read it
 * and report where it stands. */
static trv_fbook_outcome lost(trv_fbook_run *run, trv_dbc *c)
{
    trv_fbooking *b = NULL;
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    if (trv_fbooking_get_any(c, run->p, run->b->id, &b) != APR_SUCCESS || !b) {
        return db_failed(run, c, 330, "re-reading after a lost race");
    }
    trv_db_close(run->env->db, c);
    run->b = b;
    if (b->status == TRV_FB_CONFIRMED) {
        return TRV_BOOK_CONFIRMED;
    }
    if (b->status == TRV_FB_FAILED) {
        return TRV_BOOK_FAILED;
    }
    if (b->book_phase == TRV_FB_PHASE_UNKNOWN) {
        return TRV_BOOK_UNKNOWN;
    }
    return TRV_BOOK_PENDING;
}

/* What becomes of an authorization intent, written in the same
 * transaction as the booking's move (so a step that dies before it
 * leaves the intent PENDING for whoever takes the step over). */
typedef struct settle {
    const char *intent_id;      /* the intent; NULL: the one of by_auth */
    const char *by_auth;        /* the intent whose authorization this is */
    const char *outcome;        /* RESOLVED with it; NULL: UNRESOLVED */
    const char *provider_ref;   /* the authorization, when known */
    apr_interval_time_t after;  /* UNRESOLVED: the release job voids it from then */
    int sdk;                    /* the booking's SDK session (no intent before) */
} settle;

static apr_status_t apply_settle(trv_fbook_run *run, trv_dbc *c, const settle *s)
{
    trv_frelease rel;
    const char *id;
    if (!s) {
        return APR_SUCCESS;
    }
    if (s->sdk) {
        /* Released once the booking can no longer use it (FAILED). */
        if (s->outcome) {
            return APR_SUCCESS;
        }
        if (trv_fintent_sdk_release(c, run->p, run->b->id, run->b->book_attempt,
                                    run->b->currency, run->b->total_amount, s->provider_ref,
                                    &rel) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        return trv_fintent_schedule(c, run->p, &rel, run->request_id);
    }
    id = s->intent_id;
    if (!id && s->by_auth) {
        trv_fintent *in = NULL;
        if (trv_fintent_of_auth(c, run->p, run->b->id, s->by_auth, &in) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        id = in ? in->id : NULL;
    }
    if (!id) {
        return APR_SUCCESS;
    }
    if (s->outcome) {
        return trv_fintent_resolved(c, run->p, id, s->outcome, s->provider_ref);
    }
    if (trv_fintent_unresolved(c, run->p, id, s->provider_ref, s->after, &rel) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return trv_fintent_schedule(c, run->p, &rel, run->request_id);
}

static void settle_resolved(settle *s, const char *intent_id, const char *outcome)
{
    memset(s, 0, sizeof(*s));
    s->intent_id = intent_id;
    s->outcome = outcome;
}

/* No answer that settles it: the next attempt with the same instrument
 * takes it up, else the release job voids whatever it was. */
static void settle_unresolved(trv_fbook_run *run, settle *s, const char *intent_id)
{
    memset(s, 0, sizeof(*s));
    s->intent_id = intent_id;
    s->after = trv_pintent_grace(run->env);
}

/* Voids an authorization the booking will not use. *s: its intent
 * RESOLVED when the provider voided it, else UNRESOLVED and due at once
 * (the release job voids it, and retries until it is). Returns 1 when
 * voided. */
static int void_authorization(trv_fbook_run *run, const char *authorization_id, int sdk,
                              settle *s)
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
        s->outcome = "voided";
        return 1;
    }
    trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                TRVLOGNO(331) "booking %s: voiding authorization %s failed (%s): %s; "
                "the flight.payment.release job voids it", run->b->id, authorization_id,
                trv_up_status_name(st), err.message ? err.message : "");
    return 0;
}

/* A failed SDK booking's session is canceled before its authorization is
 * voided, so the customer's device can pay it no more (the release job's
 * order too). Returns 1 when canceled; otherwise *s hands the session and
 * its authorization to the flight.payment.release job, which cancels and
 * voids until the provider does. */
static int cancel_sdk_session(trv_fbook_run *run, const char *authorization_id, settle *s)
{
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_up_status st = TRV_UP_UNAVAILABLE;
    if (trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
        st = trv_payment_adapter.sdk_cancel(&pc, run->b->sdk_token, &auth, &err);
    }
    if (st == TRV_UP_OK) {
        return 1;
    }
    memset(s, 0, sizeof(*s));
    s->by_auth = authorization_id;
    s->provider_ref = authorization_id;
    s->sdk = 1;
    trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                TRVLOGNO(1305) "booking %s: canceling its SDK session failed (%s): %s; "
                "the flight.payment.release job cancels it and voids %s", run->b->id,
                trv_up_status_name(st), err.message ? err.message : "",
                authorization_id ? authorization_id : "its payment");
    return 0;
}

/* Back to READY_FOR_COMPLETE: this attempt changed nothing the customer
 * pays for. Its payment row goes with it (a READY_FOR_COMPLETE booking
 * shows none); s says what becomes of its authorization. */
static trv_fbook_outcome revert(trv_fbook_run *run, trv_fbook_outcome why, const settle *s)
{
    trv_dbc *c;
    trv_fbooking *b;
    if (!begin(run, &c)) {
        return db_failed(run, c, 332, "reverting to READY_FOR_COMPLETE");
    }
    if (trv_fbooking_book_revert(c, run->p, run->b->id, run->owner, &b) != APR_SUCCESS) {
        return db_failed(run, c, 333, "reverting to READY_FOR_COMPLETE");
    }
    if (!b) {
        return lost(run, c);
    }
    if (apply_settle(run, c, s) != APR_SUCCESS) {
        return db_failed(run, c, 1251, "settling the attempt's authorization");
    }
    if (!commit(run, c)) {
        return db_failed(run, c, 334, "reverting to READY_FOR_COMPLETE");
    }
    run->b = b;
    return why;
}

/* Reverts an attempt that holds an authorization (the supplier could not
 * be reached): a saved instrument's authorization is voided; an SDK
 * payment is kept, as it is the booking's only way to pay (the next
 * attempt finds it again; it is voided when the booking fails or
 * expires). */
static trv_fbook_outcome revert_paid(trv_fbook_run *run, trv_fbook_outcome why,
                                     const trv_fpayment *pay)
{
    settle s;
    if (!pay || !pay->provider_ref || run->b->use_payment_sdk) {
        return revert(run, why, NULL);
    }
    void_authorization(run, pay->provider_ref, 0, &s);
    return revert(run, why, &s);
}

static json_t *failure_json(const char *code, const char *description)
{
    return json_pack("{s:s,s:s}", "code", code && *code ? code : "book_failed",
                     "description", description && *description ? description
                     : "The airline could not issue the ticket");
}

/* FAILED with failure {code, description}: the authorization is voided
 * (by the release job if the provider does not void it now), and every
 * other authorization intent of the booking left unsettled goes too. An
 * SDK booking's session is canceled before anything is voided, so the
 * customer's device cannot pay it afterwards. */
static trv_fbook_outcome finish_failed(trv_fbook_run *run, json_t *failure)
{
    const trv_fpayment *pay = live_payment(run->b);
    trv_dbc *c;
    trv_fbooking *b;
    apr_array_header_t *others;
    const char *fj = trv_json_dump(run->p, failure);
    settle s;
    int settles = 0, voided = 0, i;

    trv_json_bind(run->p, failure);
    if (pay && pay->status == TRV_PAY_AUTHORIZED && pay->provider_ref
        && pay->collected_by == TRV_COLLECTOR_SERVICE) {
        settles = 1;
        if (!run->b->use_payment_sdk || cancel_sdk_session(run, pay->provider_ref, &s)) {
            voided = void_authorization(run, pay->provider_ref, run->b->use_payment_sdk, &s);
        }
    }
    else if (!pay && run->b->use_payment_sdk && run->b->sdk_token) {
        /* No payment recorded from the session (the device may still pay
         * it): the release job cancels it and voids what it made. */
        settles = 1;
        memset(&s, 0, sizeof(s));
        s.sdk = 1;
    }
    if (!begin(run, &c)) {
        return db_failed(run, c, 335, "recording a failed booking");
    }
    if (trv_fbooking_book_failed(c, run->p, run->b->id, fj, &b) != APR_SUCCESS) {
        return db_failed(run, c, 336, "recording a failed booking");
    }
    if (!b) {
        return lost(run, c);
    }
    /* Intents of earlier attempts first (the payment's own is AUTHORIZED,
     * not among them); a payment not voided yet stays AUTHORIZED until
     * the job voids it. */
    if (trv_fintent_release_others(c, run->p, run->b->id, NULL, &others) != APR_SUCCESS) {
        return db_failed(run, c, 336, "recording a failed booking");
    }
    for (i = 0; i < others->nelts; i++) {
        if (trv_fintent_schedule(c, run->p, &APR_ARRAY_IDX(others, i, trv_frelease),
                                 run->request_id) != APR_SUCCESS) {
            return db_failed(run, c, 336, "recording a failed booking");
        }
    }
    if ((voided && trv_fbooking_payment_voided(c, run->p, pay->id) != APR_SUCCESS)
        || (settles && apply_settle(run, c, &s) != APR_SUCCESS)) {
        return db_failed(run, c, 336, "recording a failed booking");
    }
    if (trv_flight_emit(c, run->p, b, TRV_EV_FAILED) != APR_SUCCESS || !commit(run, c)) {
        return db_failed(run, c, 337, "recording a failed booking");
    }
    run->b = b;
    run->message = trv_json_str(failure, "description");
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                TRVLOGNO(338) "booking %s failed: %s", b->id, fj);
    return TRV_BOOK_FAILED;
}

static json_t *card_of(const json_t *obj)
{
    const json_t *card = json_object_get(obj, "card");
    return json_is_object(card) ? (json_t *)card : NULL;
}

/* The order is ticketed: capture what the service authorized (or record
 * the payment the supplier collected) and confirm, with the event. */
static trv_fbook_outcome finish_confirmed(trv_fbook_run *run, const json_t *order)
{
    const trv_fpayment *pay = live_payment(run->b);
    const char *order_id = trv_json_str(order, "order_id");
    const char *pnr = trv_json_str(order, "airline_pnr");
    json_t *card = NULL;
    int captured = 0, settle = 0, inserted;
    trv_fpayment supplier_pay;
    trv_dbc *c;
    trv_fbooking *b;

    if (trv_fbook_service_pays(run->env, run->b)) {
        if (pay && pay->status == TRV_PAY_AUTHORIZED) {
            trv_pay_ctx pc;
            trv_pay_err err = {0};
            json_t *auth = NULL;
            trv_money total;
            trv_up_status st = TRV_UP_UNAVAILABLE;
            if (booking_total(run->b, &total)
                && trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
                st = trv_payment_adapter.capture(&pc, pay->provider_ref, &total,
                                                 key(run, "capture"), &auth, &err);
            }
            if (st == TRV_UP_OK) {
                captured = 1;
                card = card_of(auth);
            }
            else {
                /* The ticket is issued: the booking is confirmed, and the
                 * capture is retried in the background. */
                trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                            TRVLOGNO(339) "booking %s: capture of %s failed (%s): %s; "
                            "retrying in the background", run->b->id, pay->provider_ref,
                            trv_up_status_name(st), err.message ? err.message : "");
            }
            settle = !captured || !card;
        }
        else if (pay) {
            settle = !pay->card;
        }
    }
    else {
        const json_t *op = json_object_get(order, "payment");
        trv_money amount;
        const char *why;
        memset(&supplier_pay, 0, sizeof(supplier_pay));
        supplier_pay.id = trv_id_new(run->p, "pay");
        supplier_pay.booking_id = run->b->id;
        supplier_pay.status = TRV_PAY_CAPTURED;
        supplier_pay.collected_by = TRV_COLLECTOR_SUPPLIER;
        if (trv_money_from_json(json_object_get(op, "amount"), &amount, &why) != APR_SUCCESS
            && !booking_total(run->b, &amount)) {
            amount.minor = 0;
            memcpy(amount.currency, run->b->currency ? run->b->currency : "EUR", 4);
        }
        supplier_pay.currency = apr_pstrdup(run->p, amount.currency);
        supplier_pay.amount = trv_money_decimal(run->p, amount.minor,
                                                trv_currency_exponent(amount.currency));
        supplier_pay.card = card_of(op);
        settle = !supplier_pay.card;
    }

    if (!begin(run, &c)) {
        return db_failed(run, c, 340, "confirming");
    }
    if (trv_fbooking_confirm(c, run->p, run->b->id, order_id, pnr, &b) != APR_SUCCESS) {
        return db_failed(run, c, 341, "confirming");
    }
    if (!b) {
        return lost(run, c);
    }
    if (trv_fbook_service_pays(run->env, run->b)) {
        if (captured && trv_fbooking_payment_captured(c, run->p, pay->id,
                                                      card ? trv_json_dump(run->p, card)
                                                           : NULL) != APR_SUCCESS) {
            return db_failed(run, c, 342, "recording the capture");
        }
    }
    else if (trv_fbooking_payment_insert(c, run->p, &supplier_pay, &inserted) != APR_SUCCESS) {
        return db_failed(run, c, 343, "recording the supplier's payment");
    }
    if (settle) {
        const char *pay_id = trv_fbook_service_pays(run->env, run->b) ? (pay ? pay->id : NULL)
                                                           : supplier_pay.id;
        if (pay_id && trv_fjob_enqueue(c, run->p, TRV_FJOB_SETTLE, pay_id, -1,
                                       run->request_id, apr_time_from_msec(500))
                      != APR_SUCCESS) {
            return db_failed(run, c, 344, "queueing the payment settlement");
        }
    }
    if (trv_flight_emit(c, run->p, b, TRV_EV_CONFIRMED) != APR_SUCCESS || !commit(run, c)) {
        return db_failed(run, c, 345, "confirming");
    }
    run->b = b;
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                TRVLOGNO(346) "booking %s confirmed: order %s", b->id,
                b->supplier_reference ? b->supplier_reference : "-");
    return TRV_BOOK_CONFIRMED;
}

/* ---- authorizing ---- */

/* The authorization intent this attempt authorizes with, recorded before
 * the call: the attempt's own (a takeover of a step whose process died),
 * else the one an unanswered earlier attempt left for this instrument and
 * amount (its key finds the authorization the provider made late, or
 * makes it now: the customer is authorized once), else a new one. Any
 * other unsettled intent of the booking will not be used: released now. */
static trv_fbook_outcome take_intent(trv_fbook_run *run, const trv_money *total,
                                     trv_fintent **in)
{
    const trv_fbooking *bk = run->b;
    const char *instrument = bk->payment_instrument_id;
    apr_array_header_t *others;
    trv_dbc *c;
    int held = 0, i;

    *in = NULL;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1252, "recording the authorization intent");
    }
    if (trv_fintent_lock_step(c, run->p, bk->id, run->owner, &held) != APR_SUCCESS) {
        return db_failed(run, c, 1252, "recording the authorization intent");
    }
    if (!held) {
        return lost(run, c);
    }
    if (trv_fintent_own(c, run->p, bk->id, bk->book_attempt, in) != APR_SUCCESS
        || (!*in && trv_fintent_reuse(c, run->p, bk->id, bk->book_attempt, instrument,
                                      total->currency, bk->total_amount, in) != APR_SUCCESS)
        || (!*in && trv_fintent_insert(c, run->p, bk->id, bk->book_attempt, instrument,
                                       total->currency, bk->total_amount, in)
                    != APR_SUCCESS)) {
        return db_failed(run, c, 1253, "recording the authorization intent");
    }
    if (!*in) {
        c->error = "the attempt's authorization key is taken";
        return db_failed(run, c, 1253, "recording the authorization intent");
    }
    if (trv_fintent_release_others(c, run->p, bk->id, (*in)->id, &others) != APR_SUCCESS) {
        return db_failed(run, c, 1254, "releasing unused authorization intents");
    }
    for (i = 0; i < others->nelts; i++) {
        if (trv_fintent_schedule(c, run->p, &APR_ARRAY_IDX(others, i, trv_frelease),
                                 run->request_id) != APR_SUCCESS) {
            return db_failed(run, c, 1254, "releasing unused authorization intents");
        }
    }
    if (!commit(run, c)) {
        return db_failed(run, c, 1255, "recording the authorization intent");
    }
    if (strcmp((*in)->key, apr_psprintf(run->p, "%s:authorize:%d", bk->id,
                                        bk->book_attempt)) != 0) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(1256) "booking %s: authorizing with the unresolved key %s",
                    bk->id, (*in)->key);
    }
    if (others->nelts > 0) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(1257) "booking %s: %d unresolved authorization(s) of another "
                    "instrument or amount to release", bk->id, others->nelts);
    }
    return TRV_BOOK_RETRY;
}

/* Records the authorization as the booking's payment and moves on to
 * ordering. intent_id: the intent it settles (NULL: an SDK payment). */
static trv_fbook_outcome record_authorization(trv_fbook_run *run, const trv_money *total,
                                              const json_t *auth, const char *intent_id)
{
    trv_fpayment pay;
    trv_dbc *c;
    trv_fbooking *b;
    int inserted, updated = 1;

    memset(&pay, 0, sizeof(pay));
    pay.id = trv_id_new(run->p, "pay");
    pay.booking_id = run->b->id;
    pay.status = TRV_PAY_AUTHORIZED;
    pay.currency = total->currency;
    pay.amount = run->b->total_amount;
    pay.collected_by = TRV_COLLECTOR_SERVICE;
    pay.provider_ref = trv_json_str(auth, "id");
    pay.card = card_of(auth);
    if (!begin(run, &c)) {
        return db_failed(run, c, 349, "recording the authorization");
    }
    if (trv_fbooking_payment_insert(c, run->p, &pay, &inserted) != APR_SUCCESS
        || (intent_id && trv_fintent_authorized(c, run->p, intent_id, pay.provider_ref,
                                                &updated) != APR_SUCCESS)
        || trv_fbooking_phase(c, run->p, run->log, run->request_id, run->b->id,
                              TRV_FB_PHASE_AUTHORIZING, run->owner, TRV_FB_PHASE_ORDERING,
                              run->owner,
                              trv_fbook_phase_budget(run->env, run->b, TRV_FB_PHASE_ORDERING),
                              NULL, NULL, &b) != APR_SUCCESS) {
        return db_failed(run, c, 350, "recording the authorization");
    }
    if (!b || !updated) {
        return lost(run, c);
    }
    if (!commit(run, c)) {
        return db_failed(run, c, 351, "recording the authorization");
    }
    run->b = b;
    return TRV_BOOK_RETRY; /* go on to ordering */
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

/* A saved instrument: the service authorizes it with the intent's key. */
static trv_fbook_outcome authorize_instrument(trv_fbook_run *run, trv_pay_ctx *pc,
                                              const trv_money *total)
{
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_fintent *in;
    trv_up_status st;
    const char *auth_id, *status;
    settle s;
    trv_fbook_outcome out = take_intent(run, total, &in);

    if (out != TRV_BOOK_RETRY) {
        return out;
    }
    st = trv_payment_adapter.authorize(pc, in->instrument, total, in->key, &auth, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        break;
    case TRV_UP_DECLINED:
        settle_resolved(&s, in->id, "declined");
        return revert(run, TRV_BOOK_DECLINED, &s);
    case TRV_UP_NOT_FOUND:
        settle_resolved(&s, in->id, "not_found");
        return revert(run, TRV_BOOK_BAD_INSTRUMENT, &s);
    case TRV_UP_REJECTED:
        settle_resolved(&s, in->id, "rejected");
        return revert(run, TRV_BOOK_BAD_INSTRUMENT, &s);
    case TRV_UP_UNAVAILABLE:
        /* The provider answered an error or could not be reached: it
         * authorized nothing (core/upstream.h), and a fresh key is better
         * than one it may have stored that error under. */
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(348) "booking %s: payment provider %s: %s", run->b->id,
                    trv_up_status_name(st), err.message ? err.message : "");
        settle_resolved(&s, in->id, "unavailable");
        return revert(run, TRV_BOOK_UNAVAILABLE, &s);
    case TRV_UP_TIMEOUT:
        /* An authorization may exist: the intent keeps its key for the
         * next attempt, or the release job voids what it finds. */
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(1258) "booking %s: authorize %s unanswered: kept for the next "
                    "attempt or released in %" APR_TIME_T_FMT " s", run->b->id, in->key,
                    apr_time_sec(trv_pintent_grace(run->env)));
        settle_unresolved(run, &s, in->id);
        return revert(run, TRV_BOOK_TIMEOUT, &s);
    default:
        /* An answer that is not an authorization: one may exist. */
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(348) "booking %s: payment provider %s: %s", run->b->id,
                    trv_up_status_name(st), err.message ? err.message : "");
        settle_unresolved(run, &s, in->id);
        return revert(run, TRV_BOOK_UNAVAILABLE, &s);
    }
    auth_id = trv_json_str(auth, "id");
    status = trv_json_str(auth, "status");
    if (!auth_id || !status) {
        run->message = "the payment provider answered without an authorization id";
        settle_unresolved(run, &s, in->id);
        return revert(run, TRV_BOOK_UNAVAILABLE, &s);
    }
    if (!trv_pay_status_text_is(status, TRV_PAY_AUTHORIZED)) {
        /* Its key answered an authorization that is voided (or, never
         * by this service, captured): the next attempt starts afresh. */
        run->message = apr_psprintf(run->p, "the payment provider's authorization %s is %s",
                                    auth_id, status);
        settle_resolved(&s, in->id, trv_pay_status_text_is(status, TRV_PAY_VOIDED) ? "voided"
                                                                                : "captured");
        s.provider_ref = auth_id;
        return revert(run, TRV_BOOK_UNAVAILABLE, &s);
    }
    if (!covers(auth, total)) {
        run->message = "the authorized amount is not the booking's total_amount";
        void_authorization(run, auth_id, 0, &s);
        s.intent_id = in->id;
        return revert(run, TRV_BOOK_NOT_PAID, &s);
    }
    return record_authorization(run, total, auth, in->id);
}

/* An SDK payment: the customer's device authorized the session, the
 * service looks it up (a read: nothing to settle when it goes
 * unanswered). */
static trv_fbook_outcome authorize_sdk(trv_fbook_run *run, trv_pay_ctx *pc,
                                       const trv_money *total)
{
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_up_status st;
    const char *auth_id, *status;
    settle s;

    st = trv_payment_adapter.sdk_authorization(pc, run->b->sdk_token, &auth, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        break;
    case TRV_UP_NOT_FOUND:
        return revert(run, TRV_BOOK_NOT_PAID, NULL);
    case TRV_UP_DECLINED:
        return revert(run, TRV_BOOK_DECLINED, NULL);
    case TRV_UP_REJECTED:
        return revert(run, TRV_BOOK_BAD_INSTRUMENT, NULL);
    case TRV_UP_TIMEOUT:
        return revert(run, TRV_BOOK_TIMEOUT, NULL);
    default:
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(348) "booking %s: payment provider %s: %s", run->b->id,
                    trv_up_status_name(st), err.message ? err.message : "");
        return revert(run, TRV_BOOK_UNAVAILABLE, NULL);
    }
    auth_id = trv_json_str(auth, "id");
    status = trv_json_str(auth, "status");
    if (!auth_id || !status) {
        run->message = "the payment provider answered without an authorization id";
        return revert(run, TRV_BOOK_UNAVAILABLE, NULL);
    }
    if (!trv_pay_status_text_is(status, TRV_PAY_AUTHORIZED)) {
        run->message = apr_psprintf(run->p, "the SDK payment's authorization is %s", status);
        return revert(run, TRV_BOOK_NOT_PAID, NULL);
    }
    if (!covers(auth, total)) {
        /* It can never pay this booking: released now (or, if the
         * provider does not void it now, when the booking expires). */
        run->message = "the authorized amount is not the booking's total_amount";
        void_authorization(run, auth_id, 1, &s);
        return revert(run, TRV_BOOK_NOT_PAID, NULL);
    }
    return record_authorization(run, total, auth, NULL);
}

static trv_fbook_outcome step_authorize(trv_fbook_run *run)
{
    trv_pay_ctx pc;
    trv_money total;

    if (!booking_total(run->b, &total)) {
        run->message = "the booking has no price";
        return revert(run, TRV_BOOK_UNAVAILABLE, NULL);
    }
    if (!trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
        trv_log_msg(run->log, TRV_LOG_ERR, run->request_id,
                    TRVLOGNO(347) "booking %s: no TravelPaymentProvider is configured",
                    run->b->id);
        run->message = "no payment provider is configured";
        return revert(run, TRV_BOOK_UNAVAILABLE, NULL);
    }
    return run->b->use_payment_sdk ? authorize_sdk(run, &pc, &total)
                                   : authorize_instrument(run, &pc, &total);
}

/* ---- ordering ---- */

static trv_fbook_outcome to_unknown(trv_fbook_run *run, trv_fb_phase from)
{
    trv_dbc *c;
    trv_fbooking *b;
    if (!begin(run, &c)) {
        return db_failed(run, c, 352, "recording an unknown outcome");
    }
    if (trv_fbooking_phase(c, run->p, run->log, run->request_id, run->b->id, from, run->owner,
                           TRV_FB_PHASE_UNKNOWN, NULL, 0, NULL, NULL, &b) != APR_SUCCESS) {
        return db_failed(run, c, 353, "recording an unknown outcome");
    }
    if (!b) {
        return lost(run, c);
    }
    if (!commit(run, c)) {
        return db_failed(run, c, 354, "recording an unknown outcome");
    }
    run->b = b;
    /* An error line: an operator settles this booking with the supplier. */
    trv_log_msg(run->log, TRV_LOG_ERR, run->request_id,
                TRVLOGNO(355) "booking %s: the outcome of book at %s is unknown (%s); "
                "it is not sent again", b->id, b->supplier,
                run->message ? run->message : "no answer");
    return TRV_BOOK_UNKNOWN;
}

/* The order is PENDING: ticketing goes on (recorded once, from ordering). */
static trv_fbook_outcome order_pending(trv_fbook_run *run, const json_t *order,
                                       trv_fb_phase from)
{
    trv_dbc *c;
    trv_fbooking *b;
    const char *order_id = trv_json_str(order, "order_id");
    if (from == TRV_FB_PHASE_TICKETING) {
        return TRV_BOOK_RETRY;
    }
    if (!begin(run, &c)) {
        return db_failed(run, c, 356, "recording ticketing in progress");
    }
    if (trv_fbooking_phase(c, run->p, run->log, run->request_id, run->b->id, from,
                           run->owner, TRV_FB_PHASE_TICKETING, NULL, 0, order_id,
                           trv_json_str(order, "airline_pnr"), &b)
        != APR_SUCCESS) {
        return db_failed(run, c, 357, "recording ticketing in progress");
    }
    if (!b) {
        return lost(run, c);
    }
    if (!commit(run, c)) {
        return db_failed(run, c, 358, "recording ticketing in progress");
    }
    run->b = b;
    return TRV_BOOK_PENDING;
}

static trv_fbook_outcome order_result(trv_fbook_run *run, const json_t *order,
                                      trv_fb_phase from)
{
    const char *status = trv_json_str(order, "status");
    const json_t *failure = json_object_get(order, "failure");
    trv_forder_status st;
    if (trv_forder_status_from_text(status, &st)) {
        switch (st) {
        case TRV_FORDER_TICKETED:
            return finish_confirmed(run, order);
        case TRV_FORDER_PENDING:
            return order_pending(run, order, from);
        case TRV_FORDER_FAILED:
        case TRV_FORDER_CANCELED:
            return finish_failed(run, failure_json(trv_json_str(failure, "code"),
                                                   trv_json_str(failure, "description")));
        }
    }
    run->message = apr_psprintf(run->p, "the supplier answered book with status %s",
                                status ? status : "(none)");
    return from == TRV_FB_PHASE_TICKETING ? TRV_BOOK_RETRY : to_unknown(run, from);
}

/* The services as prebook gave them to the supplier: [{id: bag id,
 * quantity}], one entry per bag (the priced entries of one bag summed). */
static json_t *requested_services(const json_t *services)
{
    json_t *out = json_array();
    size_t i, j;
    for (i = 0; i < json_array_size(services); i++) {
        const json_t *s = json_array_get(services, i);
        const char *bag = trv_json_str(s, "bag_id");
        json_int_t q = json_integer_value(json_object_get(s, "quantity"));
        json_t *seen = NULL;
        if (!bag) {
            continue;
        }
        for (j = 0; j < json_array_size(out); j++) {
            if (strcmp(trv_json_str(json_array_get(out, j), "id"), bag) == 0) {
                seen = json_array_get(out, j);
            }
        }
        if (seen) {
            json_object_set_new(seen, "quantity", json_integer(
                json_integer_value(json_object_get(seen, "quantity")) + q));
        }
        else {
            json_array_append_new(out, json_pack("{s:s,s:I}", "id", bag, "quantity", q));
        }
    }
    return out;
}

static json_t *book_document(trv_fbook_run *run)
{
    const trv_fbooking *b = run->b;
    return trv_json_bind(run->p, json_pack("{s:s,s:O,s:o,s:O,s:O,s:o}",
        "id", b->id,
        "supplier_data", b->supplier_data ? b->supplier_data : json_null(),
        "total_amount", json_pack("{s:s,s:s}", "amount", b->total_amount ? b->total_amount
                                  : "0", "currency", b->currency ? b->currency : ""),
        "passengers", b->passengers ? b->passengers : json_null(),
        "contact", b->contact ? b->contact : json_null(),
        "services", requested_services(b->services)));
}

static trv_fbook_outcome step_order(trv_fbook_run *run)
{
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    const trv_flight_supplier *sup;
    const trv_fpayment *pay = live_payment(run->b);
    json_t *order = NULL, *payment = NULL, *doc;
    trv_money total;
    trv_up_status st;

    sup = trv_flight_supplier_for(run->env, run->p, run->request_id, run->b->supplier, &sc);
    sc.org_id = run->b->org_id;
    sc.booking_id = run->b->id;
    if (!sup) {
        run->message = "the supplier is not configured";
        return revert_paid(run, TRV_BOOK_UNAVAILABLE, pay);
    }
    if (trv_fbook_service_pays(run->env, run->b)) {
        if (!pay) {
            run->message = "no authorization to pay with";
            return revert(run, TRV_BOOK_UNAVAILABLE, NULL);
        }
        payment = trv_json_bind(run->p, json_pack("{s:s}", "authorization_id",
                                                  pay->provider_ref));
    }
    doc = book_document(run);
    /* total_amount as Money: the adapters take the API shape. */
    if (booking_total(run->b, &total)) {
        json_object_set_new(doc, "total_amount", trv_money_json(&total));
    }
    st = sup->book(&sc, doc, payment, key(run, "book"), &order, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        return order_result(run, order, TRV_FB_PHASE_ORDERING);
    case TRV_UP_REJECTED:
    case TRV_UP_NOT_FOUND:
        return finish_failed(run, failure_json("book_failed", err.message));
    case TRV_UP_DECLINED:
        return finish_failed(run, failure_json("payment_declined", err.message));
    case TRV_UP_UNAVAILABLE:
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(359) "booking %s: %s book unavailable: %s", run->b->id,
                    run->b->supplier, err.message ? err.message : "");
        return revert_paid(run, TRV_BOOK_UNAVAILABLE, pay);
    default:
        /* No answer in time (or nonsense): the order may exist or not. */
        return to_unknown(run, TRV_FB_PHASE_ORDERING);
    }
}

trv_fbook_outcome trv_fbook_poll_ticketing(trv_fbook_run *run)
{
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    const trv_flight_supplier *sup;
    json_t *order = NULL;
    trv_up_status st;

    sup = trv_flight_supplier_for(run->env, run->p, run->request_id, run->b->supplier, &sc);
    sc.org_id = run->b->org_id;
    sc.booking_id = run->b->id;
    if (!sup || !run->b->supplier_reference) {
        return TRV_BOOK_RETRY;
    }
    st = sup->read_order(&sc, run->b->supplier_reference, &order, &err);
    if (st != TRV_UP_OK) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(360) "booking %s: reading order %s: %s", run->b->id,
                    run->b->supplier_reference, trv_up_status_name(st));
        return TRV_BOOK_RETRY;
    }
    if (!trv_json_str(order, "order_id")) {
        json_object_set_new(order, "order_id", json_string(run->b->supplier_reference));
    }
    return order_result(run, order, TRV_FB_PHASE_TICKETING);
}

trv_fbook_outcome trv_fbook_continue(trv_fbook_run *run)
{
    for (;;) {
        trv_fbook_outcome out;
        if (run->b->status != TRV_FB_COMPLETING) {
            return run->b->status == TRV_FB_CONFIRMED ? TRV_BOOK_CONFIRMED
                 : run->b->status == TRV_FB_FAILED ? TRV_BOOK_FAILED
                 : TRV_BOOK_PENDING;
        }
        switch (run->b->book_phase) {
        case TRV_FB_PHASE_NONE:
            return TRV_BOOK_PENDING;
        case TRV_FB_PHASE_AUTHORIZING:
            out = step_authorize(run);
            if (out != TRV_BOOK_RETRY) {
                return out;
            }
            continue;
        case TRV_FB_PHASE_ORDERING:
            return step_order(run);
        case TRV_FB_PHASE_TICKETING:
            return TRV_BOOK_PENDING;
        case TRV_FB_PHASE_UNKNOWN:
            return TRV_BOOK_UNKNOWN;
        }
        return TRV_BOOK_UNKNOWN;
    }
}
