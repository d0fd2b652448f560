#include "book.h"
#include "lifecycle/book.h"
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
#include "core/clock.h"

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
        return trv_config_call_budget(env->cfg, trv_config_upstream, b->supplier, 0, 1);
    }
    /* ordering: book, then capture (or void) */
    return trv_config_call_budget(env->cfg, trv_config_upstream, b->supplier, 1,
                                  trv_fbook_service_pays(env, b) ? 1 : 0);
}

/* ---- the domain's part of the runner (lifecycle/book.h) ---- */

#define B(run) ((trv_fbooking *)(run)->b)

TRV_LIFECYCLE_PHASES(TRV_FB_PHASE_NONE, TRV_FB_PHASE_AUTHORIZING, TRV_FB_PHASE_ORDERING,
                     TRV_FB_PHASE_TICKETING, TRV_FB_PHASE_UNKNOWN);

static void view(const void *bp, trv_lifecycle_booking *v)
{
    const trv_fbooking *b = bp;
    v->id = b->id;
    v->attempt = b->book_attempt;
    v->step = trv_lifecycle_book_step_of(b->status == TRV_FB_COMPLETING, b->book_phase,
                                         b->status == TRV_FB_CONFIRMED,
                                         b->status == TRV_FB_FAILED);
    v->currency = b->currency;
    v->total_amount = b->total_amount;
    v->instrument = b->payment_instrument_id;
    v->use_sdk = b->use_payment_sdk;
    v->sdk_token = b->sdk_token;
    v->payments = b->payments;
}

static apr_status_t reread(trv_lifecycle_book_run *run, trv_dbc *c, const char *id, void **out)
{
    return trv_fbooking_get_any(c, run->p, id, (trv_fbooking **)out);
}

static apr_status_t to_ready(trv_lifecycle_book_run *run, trv_dbc *c, void **out)
{
    return trv_fbooking_book_revert(c, run->p, B(run)->id, run->owner, (trv_fbooking **)out);
}

static apr_status_t authorized(trv_lifecycle_book_run *run, trv_dbc *c, void **out)
{
    return trv_fbooking_phase(c, run->p, run->log, run->request_id, B(run)->id,
                              TRV_FB_PHASE_AUTHORIZING, run->owner, TRV_FB_PHASE_ORDERING,
                              run->owner,
                              trv_fbook_phase_budget(run->env, B(run), TRV_FB_PHASE_ORDERING),
                              NULL, (trv_fbooking **)out);
}

/* The job carries on from the same phase. */
static apr_status_t take_over(trv_lifecycle_book_run *run, trv_dbc *c, void **out)
{
    const trv_fbooking *b = B(run);
    return trv_fbooking_phase(c, run->p, run->log, run->request_id, b->id, b->book_phase,
                              b->phase_owner, b->book_phase, run->owner,
                              trv_fbook_phase_budget(run->env, b, b->book_phase), NULL,
                              (trv_fbooking **)out);
}

/* The booking's supplier, its call context scoped to the booking (its calls
 * are recorded against it); NULL when its line is gone. */
static const trv_flight_supplier *booking_supplier(trv_lifecycle_book_run *run,
                                                   trv_flight_ctx *sc)
{
    const trv_flight_supplier *sup =
        trv_flight_supplier_for(run->env, run->p, run->request_id, B(run)->supplier, sc);
    sc->org_id = B(run)->org_id;
    sc->booking_id = B(run)->id;
    return sup;
}

static trv_lifecycle_book_outcome step_order(trv_lifecycle_book_run *run);
static trv_lifecycle_book_outcome step_wait(trv_lifecycle_book_run *run);

const trv_lifecycle_book_domain trv_book_lifecycle = {
    "booking", &trv_flight_intents, &trv_fbooking_payments, view, reread, to_ready, authorized,
    step_order, step_wait, take_over};

/* Reverts an attempt that holds an authorization (the supplier could not
 * be reached): a saved instrument's authorization is voided; an SDK
 * payment is kept, as it is the booking's only way to pay (the next
 * attempt finds it again; it is voided when the booking fails or
 * expires). */
static trv_lifecycle_book_outcome revert_paid(trv_lifecycle_book_run *run,
                                              trv_lifecycle_book_outcome why,
                                              const trv_fpayment *pay)
{
    trv_lifecycle_book_settle s;
    if (!pay || !pay->provider_ref || B(run)->use_payment_sdk) {
        return trv_lifecycle_book_revert(run, why, NULL);
    }
    trv_lifecycle_book_void(run, pay->provider_ref, 0, &s);
    return trv_lifecycle_book_revert(run, why, &s);
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
static trv_lifecycle_book_outcome finish_failed(trv_lifecycle_book_run *run, json_t *failure)
{
    const trv_fpayment *pay = trv_lifecycle_book_live_payment(run);
    trv_dbc *c;
    trv_fbooking *b;
    apr_array_header_t *others;
    const char *fj = trv_json_dump(run->p, failure);
    trv_lifecycle_book_settle s;
    int settles = 0, voided = 0, i;

    trv_json_bind(run->p, failure);
    if (pay && pay->status == TRV_PAY_AUTHORIZED && pay->provider_ref
        && pay->collected_by == TRV_COLLECTOR_SERVICE) {
        settles = 1;
        if (!B(run)->use_payment_sdk
            || trv_lifecycle_book_cancel_sdk(run, pay->provider_ref, B(run)->sdk_token, &s)) {
            voided = trv_lifecycle_book_void(run, pay->provider_ref, B(run)->use_payment_sdk, &s);
        }
    }
    else if (!pay && B(run)->use_payment_sdk && B(run)->sdk_token) {
        /* No payment recorded from the session (the device may still pay
         * it): the release job cancels it and voids what it made. */
        settles = 1;
        memset(&s, 0, sizeof(s));
        s.sdk = 1;
    }
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 335, "recording a failed booking");
    }
    if (trv_fbooking_book_failed(c, run->p, B(run)->id, fj, &b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 336, "recording a failed booking");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    /* Intents of earlier attempts first (the payment's own is AUTHORIZED,
     * not among them); a payment not voided yet stays AUTHORIZED until
     * the job voids it. */
    if (trv_fintent_release_others(c, run->p, B(run)->id, NULL, &others) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 336, "recording a failed booking");
    }
    for (i = 0; i < others->nelts; i++) {
        if (trv_fintent_schedule(c, run->p, &APR_ARRAY_IDX(others, i, trv_frelease),
                                 run->request_id) != APR_SUCCESS) {
            return trv_lifecycle_book_db_failed(run, c, 336, "recording a failed booking");
        }
    }
    if ((voided && trv_payments_voided(&trv_fbooking_payments, c, run->p, pay->id)
                   != APR_SUCCESS)
        || (settles && trv_lifecycle_book_apply_settle(run, c, &s) != APR_SUCCESS)) {
        return trv_lifecycle_book_db_failed(run, c, 336, "recording a failed booking");
    }
    if (trv_flight_emit(c, run->p, b, TRV_EV_FAILED) != APR_SUCCESS
        || !trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 337, "recording a failed booking");
    }
    run->b = b;
    run->message = trv_json_str(failure, "description");
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                TRVLOGNO(338) "booking %s failed: %s", b->id, fj);
    return TRV_LIFECYCLE_BOOK_FAILED;
}

/* The order is ticketed: capture what the service authorized (or record
 * the payment the supplier collected) and confirm, with the event. */
static trv_lifecycle_book_outcome finish_confirmed(trv_lifecycle_book_run *run, const json_t *order)
{
    const trv_fpayment *pay = trv_lifecycle_book_live_payment(run);
    const char *order_id = trv_json_str(order, "order_id");
    const char *pnr = trv_json_str(order, "airline_pnr");
    json_t *card = NULL;
    int captured = 0, settle = 0, inserted;
    trv_fpayment supplier_pay;
    trv_dbc *c;
    trv_fbooking *b;

    if (trv_fbook_service_pays(run->env, run->b)) {
        if (pay && pay->status == TRV_PAY_AUTHORIZED) {
            /* The ticket is issued: a failed capture is retried in the
             * background (the settle job). */
            captured = trv_lifecycle_book_capture(run, pay,
                                                  trv_lifecycle_book_key(run, "capture"), &card)
                       == TRV_UP_OK;
            settle = !captured || !card;
        }
        else if (pay) {
            settle = !pay->card;
        }
    }
    else {
        const json_t *op = json_object_get(order, "payment");
        trv_lifecycle_book_supplier_payment(run, op, trv_lifecycle_book_card_of(op),
                                            &supplier_pay);
        /* Read the order again for the card only when the supplier says
         * it will show one (LiteAPI Flights shows none: nothing to wait
         * for, and no job that can only fail). */
        settle = !supplier_pay.card && json_is_true(json_object_get(op, "card_pending"));
    }

    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 340, "confirming");
    }
    if (trv_fbooking_confirm(c, run->p, B(run)->id, order_id, pnr, &b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 341, "confirming");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    if (trv_fbook_service_pays(run->env, run->b)) {
        if (captured && trv_payments_captured(&trv_fbooking_payments, c, run->p, pay->id,
                                              card ? trv_json_dump(run->p, card) : NULL)
                        != APR_SUCCESS) {
            return trv_lifecycle_book_db_failed(run, c, 342, "recording the capture");
        }
    }
    else if (trv_payments_insert(&trv_fbooking_payments, c, run->p, &supplier_pay, &inserted)
             != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 343, "recording the supplier's payment");
    }
    if (settle) {
        const char *pay_id = trv_fbook_service_pays(run->env, run->b) ? (pay ? pay->id : NULL)
                                                           : supplier_pay.id;
        if (pay_id && trv_fjob_enqueue(c, run->p, TRV_FJOB_SETTLE, pay_id, -1,
                                       run->request_id, apr_time_from_msec(500))
                      != APR_SUCCESS) {
            return trv_lifecycle_book_db_failed(run, c, 344, "queueing the payment settlement");
        }
    }
    return trv_lifecycle_book_confirmed(run, c, b, trv_flight_emit(c, run->p, b, TRV_EV_CONFIRMED),
                                        345, 346, "order", b->supplier_reference);
}

/* ---- ordering ---- */

static trv_lifecycle_book_outcome to_unknown(trv_lifecycle_book_run *run, trv_fb_phase from)
{
    trv_dbc *c;
    trv_fbooking *b;
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 352, "recording an unknown outcome");
    }
    if (trv_fbooking_phase(c, run->p, run->log, run->request_id, B(run)->id, from, run->owner,
                           TRV_FB_PHASE_UNKNOWN, NULL, 0, NULL, &b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 353, "recording an unknown outcome");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    if (!trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 354, "recording an unknown outcome");
    }
    run->b = b;
    /* An error line: the order is looked up at the supplier when its
     * adapter can (trv_fbook_finds_orders), else an operator settles it. */
    trv_log_msg(run->log, TRV_LOG_ERR, run->request_id,
                TRVLOGNO(355) "booking %s: the outcome of book at %s is unknown (%s); "
                "it is not sent again%s", b->id, b->supplier,
                run->message ? run->message : "no answer",
                trv_fbook_finds_orders(run->env, b) ? ": the order is looked up at the supplier"
                                                    : ": settle it with the supplier");
    return TRV_LIFECYCLE_BOOK_UNKNOWN;
}

/* The order is PENDING: ticketing goes on (recorded once, from ordering). */
static trv_lifecycle_book_outcome order_pending(trv_lifecycle_book_run *run, const json_t *order,
                                                trv_fb_phase from)
{
    trv_dbc *c;
    trv_fbooking *b;
    const char *order_id = trv_json_str(order, "order_id");
    if (from == TRV_FB_PHASE_TICKETING) {
        return TRV_LIFECYCLE_BOOK_RETRY;
    }
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 356, "recording ticketing in progress");
    }
    if (trv_fbooking_phase(c, run->p, run->log, run->request_id, B(run)->id, from,
                           run->owner, TRV_FB_PHASE_TICKETING, NULL, 0,
                           (const char *[]){order_id, trv_json_str(order, "airline_pnr")},
                           &b)
        != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 357, "recording ticketing in progress");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    if (!trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 358, "recording ticketing in progress");
    }
    run->b = b;
    return TRV_LIFECYCLE_BOOK_PENDING;
}

static trv_lifecycle_book_outcome order_result(trv_lifecycle_book_run *run, const json_t *order,
                                               trv_fb_phase from)
{
    const char *status = trv_json_str(order, "status");
    const json_t *failure = json_object_get(order, "failure");
    int known = trv_transit_from_text(&trv_forder_status_table, status);
    if (known >= 0) {
        trv_forder_status st = known;
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
    return from == TRV_FB_PHASE_ORDERING ? to_unknown(run, from) : TRV_LIFECYCLE_BOOK_RETRY;
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

static json_t *book_document(trv_lifecycle_book_run *run)
{
    const trv_fbooking *b = run->b;
    return trv_json_bind(run->p, json_pack("{s:s,s:s?,s:O,s:o,s:O,s:O,s:o}",
        "id", b->id, "created_at", b->created_at,
        "supplier_data", b->supplier_data ? b->supplier_data : json_null(),
        "total_amount", json_pack("{s:s,s:s}", "amount", b->total_amount ? b->total_amount
                                  : "0", "currency", b->currency ? b->currency : ""),
        "passengers", b->passengers ? b->passengers : json_null(),
        "contact", b->contact ? b->contact : json_null(),
        "services", requested_services(b->services)));
}

static trv_lifecycle_book_outcome step_order(trv_lifecycle_book_run *run)
{
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    const trv_flight_supplier *sup;
    const trv_fpayment *pay = trv_lifecycle_book_live_payment(run);
    json_t *order = NULL, *payment = NULL, *doc;
    trv_money total;
    trv_up_status st;

    sup = booking_supplier(run, &sc);
    if (!sup) {
        run->message = "the supplier is not configured";
        return revert_paid(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, pay);
    }
    if (trv_fbook_service_pays(run->env, run->b)) {
        if (!pay) {
            run->message = "no authorization to pay with";
            return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, NULL);
        }
        payment = trv_json_bind(run->p, json_pack("{s:s}", "authorization_id",
                                                  pay->provider_ref));
    }
    doc = book_document(run);
    /* total_amount as Money: the adapters take the API shape. */
    if (trv_lifecycle_book_total(run, &total)) {
        json_object_set_new(doc, "total_amount", trv_money_json(&total));
    }
    st = sup->book(&sc, doc, payment, trv_lifecycle_book_key(run, "book"), &order, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        return order_result(run, order, TRV_FB_PHASE_ORDERING);
    case TRV_UP_REJECTED:
        /* A supplier that sells an offer once refuses a second order for
         * it: when an earlier run's book (a request that died, whose step
         * was taken over) made the order, that order is the answer. */
        switch (sup->find_order ? sup->find_order(&sc, doc, &order, &err) : TRV_UP_NOT_FOUND) {
        case TRV_UP_OK:
            trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                        TRVLOGNO(3304) "booking %s: book refused, an earlier book made order "
                        "%s at %s", B(run)->id, trv_json_str(order, "order_id")
                        ? trv_json_str(order, "order_id") : "-", B(run)->supplier);
            return order_result(run, order, TRV_FB_PHASE_ORDERING);
        case TRV_UP_NOT_FOUND:
            return finish_failed(run, failure_json("book_failed", run->message));
        default:
            /* Whether an order exists cannot be told now: looked up later. */
            return to_unknown(run, TRV_FB_PHASE_ORDERING);
        }
    case TRV_UP_NOT_FOUND:
        return finish_failed(run, failure_json("book_failed", err.message));
    case TRV_UP_DECLINED:
        if (B(run)->use_payment_sdk && !trv_fbook_service_pays(run->env, run->b)) {
            /* The vendor's intent is not paid yet (the traveller has not
             * confirmed it with the vendor's SDK, or the card was refused
             * there): nothing was booked and the same intent can still be
             * paid, so the booking goes back to be booked again. */
            return trv_lifecycle_book_revert(run, TRV_LIFECYCLE_BOOK_NOT_PAID, NULL);
        }
        return finish_failed(run, failure_json("payment_declined", err.message));
    case TRV_UP_UNAVAILABLE:
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(359) "booking %s: %s book unavailable: %s", B(run)->id,
                    B(run)->supplier, err.message ? err.message : "");
        return revert_paid(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE, pay);
    default:
        /* No answer in time (or nonsense): the order may exist or not. */
        return to_unknown(run, TRV_FB_PHASE_ORDERING);
    }
}

int trv_fbook_finds_orders(const trv_env *env, const trv_fbooking *b)
{
    const trv_supplier *row = trv_flight_supplier_row(env->cfg, b->supplier);
    const trv_flight_supplier *sup = row ? row->adapter : NULL;
    return sup && sup->find_order;
}

apr_interval_time_t trv_fbook_order_settled_in(const trv_fbooking *b, apr_time_t now)
{
    apr_time_t exp;
    if (!b->expires_at || trv_time_parse(b->expires_at, &exp) != APR_SUCCESS) {
        return -1;
    }
    exp += TRV_FBOOK_LATE_ORDER_GRACE;
    return exp > now ? exp - now : 0;
}

/* unknown: the order the unanswered book made, looked up at the supplier
 * (never ordered again). Found, it settles the booking as book's answer
 * would have; not found (yet: the supplier may still be making it), the
 * booking stays unknown and is looked up again -- until a lookup that
 * began once no order could be made any more (the offer expired, plus
 * the grace: trv_fbook_order_settled_in) still finds none. Then none was
 * made, and the booking ends FAILED (order_not_found) through the same
 * finish as a refused order: the authorization voided, the event sent,
 * the job done. */
static trv_lifecycle_book_outcome find_lost_order(trv_lifecycle_book_run *run)
{
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    const trv_flight_supplier *sup;
    json_t *order = NULL;
    trv_up_status st;
    /* Decided before the lookup goes out: only a lookup that began after
     * the last moment an order could appear proves there is none. */
    int settled = trv_fbook_order_settled_in(B(run), apr_time_now()) == 0;

    sup = booking_supplier(run, &sc);
    if (!sup || !sup->find_order) {
        return TRV_LIFECYCLE_BOOK_RETRY;
    }
    st = sup->find_order(&sc, book_document(run), &order, &err);
    if (st == TRV_UP_NOT_FOUND && settled) {
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(3460) "booking %s: %s has no order for the unanswered book and "
                    "its offer expired at %s: none was made, the booking fails", B(run)->id,
                    B(run)->supplier, B(run)->expires_at);
        return finish_failed(run, failure_json("order_not_found", apr_psprintf(run->p,
            "The supplier did not answer the order, and no order was made before the offer "
            "expired at %s; nothing was charged and the payment authorization was released",
            B(run)->expires_at)));
    }
    if (st != TRV_UP_OK) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(3302) "booking %s: looking up the order book made at %s: %s (%s)",
                    B(run)->id, B(run)->supplier, trv_up_status_name(st),
                    err.message ? err.message : "");
        return TRV_LIFECYCLE_BOOK_RETRY;
    }
    trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                TRVLOGNO(3303) "booking %s: the unanswered book made order %s at %s (%s)",
                B(run)->id, trv_json_str(order, "order_id") ? trv_json_str(order, "order_id")
                                                            : "-",
                B(run)->supplier, trv_json_str(order, "status") ? trv_json_str(order, "status")
                                                               : "-");
    return order_result(run, order, TRV_FB_PHASE_UNKNOWN);
}

static trv_lifecycle_book_outcome step_wait(trv_lifecycle_book_run *run)
{
    return B(run)->book_phase == TRV_FB_PHASE_UNKNOWN ? find_lost_order(run)
                                                      : trv_fbook_poll_ticketing(run);
}

trv_lifecycle_book_outcome trv_fbook_poll_ticketing(trv_lifecycle_book_run *run)
{
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    const trv_flight_supplier *sup;
    json_t *order = NULL;
    trv_up_status st;

    sup = booking_supplier(run, &sc);
    if (!sup || !B(run)->supplier_reference) {
        return TRV_LIFECYCLE_BOOK_RETRY;
    }
    st = sup->read_order(&sc, B(run)->supplier_reference, &order, &err);
    if (st != TRV_UP_OK) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(360) "booking %s: reading order %s: %s", B(run)->id,
                    B(run)->supplier_reference, trv_up_status_name(st));
        return TRV_LIFECYCLE_BOOK_RETRY;
    }
    if (!trv_json_str(order, "order_id")) {
        json_object_set_new(order, "order_id", json_string(B(run)->supplier_reference));
    }
    return order_result(run, order, TRV_FB_PHASE_TICKETING);
}
