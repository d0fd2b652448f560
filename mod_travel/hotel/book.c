/* Completing a hotel booking (book.h). Each database step is one short
 * transaction; no connection is held while the supplier or the payment
 * provider is asked. */
#include "book.h"
#include "lifecycle/book.h"
#include "reply.h"
#include "booked_status.h"
#include "booking_store.h"
#include "customer.h"
#include "enqueue.h"
#include "events.h"
#include "intents.h"
#include "policy.h"
#include "render.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

int trv_hbook_service_pays(const trv_env *env, const trv_hbooking *b)
{
    return !trv_supplier_can(trv_hotel_supplier_row(env, b->supplier),
                             TRV_SUP_COLLECTS_PAYMENT);
}

apr_interval_time_t trv_hbook_budget(const trv_env *env, const trv_hbooking *b, trv_hb_phase phase)
{
    if (phase == TRV_HB_PHASE_AUTHORIZING) {
        return trv_config_call_budget(env->cfg, trv_config_hotel_upstream, b->supplier, 0, 1);
    }
    /* ordering: book, then a read of the booking and the capture; a
     * merchant of record captures nothing, but its book goes through the
     * payment provider's forward, which waits for the supplier as well */
    return trv_config_call_budget(env->cfg, trv_config_hotel_upstream, b->supplier, 2, 1);
}

const char *trv_hbook_client_reference(apr_pool_t *p, const trv_hbooking *b)
{
    /* The reference triggers of the sandbox (and a person reading the
     * supplier's extranet) see the caller's reference; the id keeps it
     * unique. */
    size_t room = 64 - strlen(b->id) - 1;
    return apr_psprintf(p, "%s/%.*s", b->id, (int)room, b->reference_id);
}

/* ---- the domain's part of the runner (lifecycle/book.h) ---- */

#define B(run) ((trv_hbooking *)(run)->b)

TRV_LIFECYCLE_PHASES(TRV_HB_PHASE_NONE, TRV_HB_PHASE_AUTHORIZING, TRV_HB_PHASE_ORDERING,
                     TRV_HB_PHASE_CONFIRMING, TRV_HB_PHASE_UNKNOWN);

static void view(const void *bp, trv_lifecycle_booking *v)
{
    const trv_hbooking *b = bp;
    *v = (trv_lifecycle_booking){
        b->id, b->book_attempt,
        trv_lifecycle_book_step_of(b->status == TRV_HB_COMPLETING, b->book_phase,
                                   b->status == TRV_HB_CONFIRMED, b->status == TRV_HB_FAILED),
        b->currency, b->total_amount, b->payment_instrument_id, b->use_payment_sdk,
        b->sdk_token, b->payments};
}

static apr_status_t reread(trv_lifecycle_book_run *run, trv_dbc *c, const char *id, void **out)
{
    return trv_hbooking_get_any(c, run->p, id, (trv_hbooking **)out);
}

/* Every move is kept rendered (render.h) in its transaction. */
static apr_status_t kept(trv_lifecycle_book_run *run, trv_dbc *c, apr_status_t rv, void **out)
{
    return rv == APR_SUCCESS && *out ? trv_hrender_keep(c, run->p, *out) : rv;
}

static apr_status_t to_ready(trv_lifecycle_book_run *run, trv_dbc *c, void **out)
{
    return kept(run, c, trv_hbooking_book_revert(c, run->p, B(run)->id, run->owner,
                                                 (trv_hbooking **)out), out);
}

/* The booking comes back read whole after the move (moved_booking), with
 * the payment the runner recorded before it. */
static apr_status_t authorized(trv_lifecycle_book_run *run, trv_dbc *c, void **out)
{
    return kept(run, c,
                trv_hbooking_phase(c, run->p, run->log, run->request_id, B(run)->id,
                                   TRV_HB_PHASE_AUTHORIZING, run->owner, TRV_HB_PHASE_ORDERING,
                                   run->owner,
                                   trv_hbook_budget(run->env, B(run), TRV_HB_PHASE_ORDERING),
                                   NULL, (trv_hbooking **)out), out);
}

static trv_lifecycle_book_outcome step_order(trv_lifecycle_book_run *run);
static trv_lifecycle_book_outcome step_read(trv_lifecycle_book_run *run);

/* An interrupted order is read at the supplier, not sent again (its
 * answer may have been lost after the supplier booked). */
static apr_status_t take_over(trv_lifecycle_book_run *run, trv_dbc *c, void **out)
{
    const trv_hbooking *b = B(run);
    trv_hb_phase to = b->book_phase == TRV_HB_PHASE_ORDERING ? TRV_HB_PHASE_UNKNOWN
                                                             : b->book_phase;
    return trv_hbooking_phase(c, run->p, run->log, run->request_id, b->id, b->book_phase,
                              b->phase_owner, to, run->owner,
                              trv_hbook_budget(run->env, b, TRV_HB_PHASE_ORDERING), NULL,
                              (trv_hbooking **)out);
}

const trv_lifecycle_book_domain trv_hbook_lifecycle = {
    "hotel booking", &trv_hotel_intents, &trv_hbooking_payments, view, reread, to_ready,
    authorized, step_order, step_read, take_over};

/* The service's own authorization (not the supplier's payment). */
static int service_authorization(const trv_hpayment *pay)
{
    return pay && pay->status == TRV_PAY_AUTHORIZED && pay->provider_ref
           && pay->collected_by == TRV_COLLECTOR_SERVICE;
}

/* Back to READY_FOR_COMPLETE: the attempt bought nothing (its payment,
 * voided first, goes; its intent RESOLVED voided, or released by the job
 * when the void failed). */
static trv_lifecycle_book_outcome revert_voided(trv_lifecycle_book_run *run,
                                                trv_lifecycle_book_outcome why)
{
    const trv_hpayment *pay = trv_lifecycle_book_live_payment(run);
    trv_lifecycle_book_settle s;
    if (!service_authorization(pay)) {
        return trv_lifecycle_book_revert(run, why, NULL);
    }
    trv_lifecycle_book_void(run, pay->provider_ref, 0, &s);
    return trv_lifecycle_book_revert(run, why, &s);
}

/* FAILED with failure {code, description}; the authorization voided. A
 * failed SDK booking's session goes to the hotel.payment.release job, in
 * the transaction that makes it FAILED: the job cancels the session first
 * (the customer's device can pay it no more; a payment the device made
 * before is named by the cancel), then voids the authorization, and
 * retries until the provider answers. Voiding here first would leave the
 * session payable again. */
static trv_lifecycle_book_outcome finish_failed(trv_lifecycle_book_run *run, const char *code,
                                                const char *description)
{
    const trv_hpayment *pay = trv_lifecycle_book_live_payment(run);
    json_t *failure = trv_json_bind(run->p, json_pack(
        "{s:s,s:s}", "code", code ? code : "book_failed", "description",
        description && *description ? description : "The hotel refused the booking"));
    int sdk = B(run)->use_payment_sdk && B(run)->sdk_token, voided = 0, settles = 0;
    trv_lifecycle_book_settle s;
    trv_dbc *c;
    trv_hbooking *b;
    memset(&s, 0, sizeof(s));
    if (sdk && B(run)->currency && B(run)->total_amount) {
        settles = 1;
        s.sdk = 1;
        s.provider_ref = service_authorization(pay) ? pay->provider_ref : NULL;
    }
    else if (!sdk && service_authorization(pay)) {
        settles = 1;
        voided = trv_lifecycle_book_void(run, pay->provider_ref, 0, &s);
    }
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 1430, "recording a failed booking");
    }
    if ((voided && trv_payments_voided(&trv_hbooking_payments, c, run->p, pay->id) != APR_SUCCESS)
        || (!sdk && settles && trv_lifecycle_book_apply_settle(run, c, &s) != APR_SUCCESS)
        || trv_hbooking_book_failed(c, run->p, B(run)->id, trv_json_dump(run->p, failure), &b)
           != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 1430, "recording a failed booking");
    }
    if (b && sdk && settles && trv_lifecycle_book_apply_settle(run, c, &s) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 1469,
                                            "releasing the failed booking's SDK session");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    if (trv_hrender_keep(c, run->p, b) != APR_SUCCESS || !trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 1430, "recording a failed booking");
    }
    run->b = b;
    run->message = trv_json_str(failure, "description");
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                TRVLOGNO(1431) "hotel booking %s failed: %s", b->id,
                trv_json_dump(run->p, failure));
    return TRV_LIFECYCLE_BOOK_FAILED;
}

/* The rooms' references and the policy the supplier stated at book (or in
 * the read that confirmed the booking) into cf, in the shape prebook
 * stored its own (policy.h). Taken only whole: when every room of the
 * booking states one; else (an answer without policies, or with other
 * rooms) the prebook's policy stays, rooms and booking alike. */
static void booked_terms(trv_lifecycle_book_run *run, const trv_hotel_booked *bk,
                         trv_hconfirmed *cf)
{
    int whole = bk->rooms && bk->cancellation_policy && B(run)->rooms
                && json_array_size(bk->rooms) == (size_t)B(run)->rooms->nelts;
    json_t *rooms;
    const json_t *r;
    size_t i;
    if (!bk->rooms) {
        return;
    }
    rooms = trv_json_bind(run->p, json_array());
    json_array_foreach(bk->rooms, i, r) {
        json_t *one = json_deep_copy(r);
        json_object_set_new(one, "cancellation_policy",
                            whole ? trv_hotel_policy_doc(json_object_get(r, "cancellation_policy"))
                                  : json_null());
        json_array_append_new(rooms, one);
    }
    cf->rooms = trv_json_dump(run->p, rooms);
    if (whole) {
        cf->cancellation_policy = trv_json_dump(
            run->p, trv_json_bind(run->p, trv_hotel_policy_doc(bk->cancellation_policy)));
    }
}

/* The supplier confirmed: capture what the service authorized (or record
 * what the supplier collected), confirm, emit hotel.booking.confirmed. */
static trv_lifecycle_book_outcome finish_confirmed(trv_lifecycle_book_run *run,
                                                   const trv_hotel_booked *bk)
{
    const trv_hpayment *pay = trv_lifecycle_book_live_payment(run);
    json_t *card = NULL;
    int captured = 0, inserted;
    trv_hpayment sp;
    trv_hconfirmed cf;
    trv_dbc *c;
    trv_hbooking *b;

    if (trv_hbook_service_pays(run->env, run->b) && pay && pay->status == TRV_PAY_AUTHORIZED) {
        /* One key per booking: a capture repeated by a takeover is the
         * same capture. Bought: the booking is confirmed; a failed capture
         * is retried by the job until the provider takes it. */
        captured = trv_lifecycle_book_capture(run, pay,
                                              apr_pstrcat(run->p, B(run)->id, ":capture", NULL),
                                              &card) == TRV_UP_OK;
    }
    memset(&sp, 0, sizeof(sp));
    if (!trv_hbook_service_pays(run->env, run->b) && bk->payment) {
        trv_lifecycle_book_supplier_payment(
            run, bk->payment,
            trv_json_str(bk->payment, "last4")
                ? trv_json_bind(run->p, json_pack("{s:n,s:s,s:n,s:n}", "brand", "last4",
                                                  trv_json_str(bk->payment, "last4"),
                                                  "funding", "wallet"))
                : NULL,
            &sp);
    }
    memset(&cf, 0, sizeof(cf));
    cf.supplier_booking_id = bk->booking_id;
    cf.hotel_confirmation_code = bk->hotel_confirmation_code;
    cf.hotel_remarks = bk->hotel_remarks;
    booked_terms(run, bk, &cf);
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 1433, "confirming");
    }
    if (trv_hbooking_confirm(c, run->p, B(run)->id, &cf, &b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 1433, "confirming");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    if ((captured && trv_payments_captured(&trv_hbooking_payments, c, run->p, pay->id,
                                           card ? trv_json_dump(run->p, card) : NULL)
                     != APR_SUCCESS)
        || (sp.id && trv_payments_insert(&trv_hbooking_payments, c, run->p, &sp, &inserted)
                     != APR_SUCCESS)
        || (trv_hbook_service_pays(run->env, run->b) && pay && !captured
            && trv_hjob_enqueue(c, run->p, TRV_HJOB_COMPLETE, B(run)->id, run->request_id,
                                apr_time_from_sec(5)) != APR_SUCCESS)) {
        return trv_lifecycle_book_db_failed(run, c, 1434, "recording the booking's payment");
    }
    /* Read again whole: the payment's change raised the revision. */
    if (trv_hbooking_get_any(c, run->p, B(run)->id, &b) != APR_SUCCESS || !b
        || trv_hrender_keep(c, run->p, b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 1433, "confirming");
    }
    return trv_lifecycle_book_confirmed(run, c, b, trv_hotel_emit(c, run->p, b, TRV_HEV_CONFIRMED),
                                        1433, 1435, "supplier booking", b->supplier_booking_id);
}

/* A phase move held by this owner (the supplier's booking id kept). */
static trv_lifecycle_book_outcome move(trv_lifecycle_book_run *run, trv_hb_phase to,
                                       const char *booking_id, trv_lifecycle_book_outcome then)
{
    trv_dbc *c;
    trv_hbooking *b;
    if (!trv_lifecycle_book_open(run, &c)) {
        return trv_lifecycle_book_db_failed(run, c, 1436, "moving the book step");
    }
    if (trv_hbooking_phase(c, run->p, run->log, run->request_id, B(run)->id,
                           B(run)->book_phase, run->owner, to, run->owner,
                           trv_hbook_budget(run->env, run->b, TRV_HB_PHASE_ORDERING),
                           &booking_id, &b) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 1436, "moving the book step");
    }
    if (!b) {
        return trv_lifecycle_book_lost(run, c);
    }
    if ((to == TRV_HB_PHASE_CONFIRMING || to == TRV_HB_PHASE_UNKNOWN)
        && trv_hjob_enqueue(c, run->p, TRV_HJOB_COMPLETE, b->id, run->request_id,
                            apr_time_from_sec(1)) != APR_SUCCESS) {
        return trv_lifecycle_book_db_failed(run, c, 1436, "moving the book step");
    }
    if (trv_hrender_keep(c, run->p, b) != APR_SUCCESS || !trv_lifecycle_book_commit(run, c)) {
        return trv_lifecycle_book_db_failed(run, c, 1436, "moving the book step");
    }
    run->b = b;
    return then;
}

/* ---- ordering ---- */

static int party_of(trv_lifecycle_book_run *run, trv_hotel_party *pt)
{
    const trv_hbooking *b = run->b;
    int i, k;
    memset(pt, 0, sizeof(*pt));
    pt->first_name = trv_json_str(b->contact, "first_name");
    pt->last_name = trv_json_str(b->contact, "last_name");
    pt->email = trv_json_str(b->contact, "email");
    pt->phone = trv_json_str(b->contact, "phone");
    pt->n_rooms = b->rooms->nelts;
    if (pt->n_rooms < 1 || pt->n_rooms > TRV_HOTEL_MAX_ROOMS) {
        return 0;
    }
    for (i = 0; i < pt->n_rooms; i++) {
        const trv_hroom *r = &APR_ARRAY_IDX(b->rooms, i, trv_hroom);
        trv_hotel_guest *gs = apr_pcalloc(run->p, sizeof(*gs) * (r->guests->nelts + 1));
        for (k = 0; k < r->guests->nelts; k++) {
            const trv_hguest *g = &APR_ARRAY_IDX(r->guests, k, trv_hguest);
            gs[k].first_name = g->first_name;
            gs[k].last_name = g->last_name;
            gs[k].is_lead = g->is_lead;
            gs[k].child = strcmp(g->type, "CHILD") == 0;
        }
        pt->n_guests[i] = r->guests->nelts;
        pt->guests[i] = gs;
    }
    return 1;
}

/* The stay as the supplier priced it, from the rooms. */
static void stay_of(const trv_hbooking *b, trv_hotel_stay *stay)
{
    int i, k;
    memset(stay, 0, sizeof(*stay));
    stay->check_in = b->check_in;
    stay->check_out = b->check_out;
    memcpy(stay->currency, b->currency, 4);
    stay->n_rooms = b->rooms->nelts < TRV_HOTEL_MAX_ROOMS ? b->rooms->nelts : TRV_HOTEL_MAX_ROOMS;
    for (i = 0; i < stay->n_rooms; i++) {
        const trv_hroom *r = &APR_ARRAY_IDX(b->rooms, i, trv_hroom);
        stay->rooms[i].adults = r->adults;
        for (k = 0; k < (int)json_array_size(r->children) && k < TRV_HOTEL_MAX_CHILDREN; k++) {
            stay->rooms[i].ages[k] = (int)json_integer_value(json_array_get(r->children, k));
        }
        stay->rooms[i].n_children = k;
    }
}

static const trv_hotel_supplier *adapter(trv_lifecycle_book_run *run, trv_hotel_ctx *ctx)
{
    const trv_supplier *row;
    const trv_hotel_supplier *s = trv_hreply_supplier(run->env, run->p, run->request_id,
                                                      B(run)->supplier, &row, ctx);
    ctx->org_id = B(run)->org_id;
    ctx->booking_id = B(run)->id;
    ctx->contact_email = trv_json_str(B(run)->contact, "email");
    /* The traveller prebook kept: book and its reads, which may run in
     * a job, speak for the same one. */
    trv_hcustomer_apply_kept(ctx, B(run)->customer);
    return s;
}

static trv_lifecycle_book_outcome settle_booked(trv_lifecycle_book_run *run,
                                                const trv_hotel_booked *bk)
{
    const char *ours = trv_hbook_client_reference(run->p, run->b);
    trv_hbooked_status st;
    if (bk->client_reference && strcmp(bk->client_reference, ours) != 0) {
        /* Another booking's (a supplier that books a prebook once answers
         * a second book of it with the first booking): never ours. */
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(1447) "hotel booking %s: %s answered booking %s of reference %s",
                    B(run)->id, B(run)->supplier, bk->booking_id ? bk->booking_id : "-",
                    bk->client_reference);
        return finish_failed(run, "book_failed", "The supplier's offer was already booked "
                             "under another reference; prebook again");
    }
    /* Anything but CONFIRMED or PENDING reads as canceled. */
    st = TRV_HBOOKED_CANCELED;
    st = trv_transit_or(&trv_hbooked_status_table, bk->status, (int)st);
    switch (st) {
    case TRV_HBOOKED_CONFIRMED:
        return finish_confirmed(run, bk);
    case TRV_HBOOKED_PENDING:
        if (B(run)->book_phase == TRV_HB_PHASE_CONFIRMING) {
            return TRV_LIFECYCLE_BOOK_PENDING;
        }
        return move(run, TRV_HB_PHASE_CONFIRMING, bk->booking_id, TRV_LIFECYCLE_BOOK_PENDING);
    case TRV_HBOOKED_CANCELED:
        break;
    }
    return finish_failed(run, "book_failed", "The supplier canceled the booking");
}

static trv_lifecycle_book_outcome step_order(trv_lifecycle_book_run *run)
{
    trv_hotel_ctx ctx;
    const trv_hotel_supplier *s = adapter(run, &ctx);
    trv_hotel_book_req rq;
    trv_hotel_party pt;
    trv_hotel_stay stay;
    trv_hotel_booked bk;
    trv_hotel_err err = {0};
    trv_money total;
    trv_up_status st;

    if (!s || !s->book || !party_of(run, &pt) || !trv_hreply_total(run->b, &total)) {
        run->message = "the supplier is not configured";
        return revert_voided(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE);
    }
    stay_of(run->b, &stay);
    memset(&rq, 0, sizeof(rq));
    rq.stay = &stay;
    rq.sid = B(run)->supplier_hotel_id;
    rq.prebook_id = B(run)->supplier_prebook_id;
    rq.total_minor = total.minor;
    rq.client_reference = trv_hbook_client_reference(run->p, run->b);
    rq.party = &pt;
    rq.payment_instrument_id = B(run)->payment_instrument_id;
    /* One key per booking: the supplier answers a repeat with the same
     * booking. A merchant of record's order carries the card the provider
     * forwards for this attempt's instrument, so each attempt (another
     * instrument after a decline) is an order of its own; the client
     * reference still keeps it to one booking at the supplier. */
    rq.idempotency_key = trv_hbook_service_pays(run->env, run->b)
                             ? apr_pstrcat(run->p, B(run)->id, ":book", NULL)
                             : trv_lifecycle_book_key(run, "book");
    st = s->book(&ctx, &rq, &bk, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        return settle_booked(run, &bk);
    case TRV_UP_DECLINED:
        if (!trv_hbook_service_pays(run->env, run->b)) {
            /* The merchant of record declined the card: nothing was bought. */
            return revert_voided(run, TRV_LIFECYCLE_BOOK_DECLINED);
        }
        /* fall through */
    case TRV_UP_REJECTED:
    case TRV_UP_NOT_FOUND:
        if (err.code && strcmp(err.code, "payment_instrument_invalid") == 0) {
            return revert_voided(run, TRV_LIFECYCLE_BOOK_BAD_INSTRUMENT);
        }
        return finish_failed(run, err.code && strcmp(err.code, "price_changed") == 0
                                      ? "price_changed" : "book_failed", err.message);
    case TRV_UP_UNAVAILABLE:
        /* The supplier answered an error or could not be reached: it
         * booked nothing. */
        return revert_voided(run, TRV_LIFECYCLE_BOOK_UNAVAILABLE);
    default:
        /* No answer, or one that is not a booking: the booking may exist.
         * Never sent again: it is read at the supplier. */
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(1439) "hotel booking %s: book at %s: %s (%s): the outcome is "
                    "unknown; reading it at the supplier", B(run)->id, B(run)->supplier,
                    trv_up_status_name(st), err.message ? err.message : "");
        return move(run, TRV_HB_PHASE_UNKNOWN, NULL, TRV_LIFECYCLE_BOOK_UNKNOWN);
    }
}

/* ---- confirming, unknown: read at the supplier ---- */

static trv_lifecycle_book_outcome step_read(trv_lifecycle_book_run *run)
{
    trv_hotel_ctx ctx;
    const trv_hotel_supplier *s = adapter(run, &ctx);
    trv_hotel_booked bk;
    trv_hotel_err err = {0};
    trv_up_status st;
    if (!s || !s->retrieve) {
        return TRV_LIFECYCLE_BOOK_RETRY;
    }
    st = s->retrieve(&ctx, B(run)->supplier_booking_id,
                     trv_hbook_client_reference(run->p, run->b), &bk, &err);
    if (st == TRV_UP_OK) {
        return settle_booked(run, &bk);
    }
    if (st == TRV_UP_NOT_FOUND && !B(run)->supplier_booking_id && B(run)->phase_due) {
        /* Every call of the step has timed out and the supplier has no
         * booking under the reference: nothing was bought. */
        return finish_failed(run, "book_failed", "The supplier has no record of the booking");
    }
    return TRV_LIFECYCLE_BOOK_RETRY;
}
