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
#include "lifecycle/cancel.h"

#include <apr_strings.h>
#include <string.h>


void trv_flight_cancel(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_fbooking *b, *started = NULL;
    trv_dbc *c;

    if (!(b = trv_api_booking_open(req, resp, NULL, &trv_freply_reader, id, 361, 362,
                                   "reading a booking to cancel", &c))) {
        return;
    }
    switch (trv_fb_cancel_decision(b->status)) {
    case TRV_FB_CANCEL_START:
        if (trv_db_begin(c, req->pool) != APR_SUCCESS
            || trv_fbooking_cancel_start(c, req->pool, req->org_id, req->user_id, id, &started)
               != APR_SUCCESS
            || (started && trv_lifecycle_cancel_enqueue(c, req->pool, TRV_FJOB_CANCEL, id,
                                                        started->cancel_attempt,
                                                        req->request_id) != APR_SUCCESS)
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
        if (trv_lifecycle_cancel_refunds_restart(&trv_fcancel_ops, req, resp, c, id)) {
            trv_freply_booking(req, resp, 200, b, NULL);
        }
        return;
    default:
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "invalid_state", "Booking %s is %s; only a CONFIRMED "
                 "booking can be canceled", id, trv_transit_text(&trv_fb_status_table, b->status));
    }
}

/* ---- the flight steps of the cancel runner (lifecycle/cancel.h) ---- */

static apr_status_t load(trv_env *env, trv_dbc *c, apr_pool_t *p, const char *id,
                         trv_lifecycle_cancel_booking **out)
{
    trv_fbooking *fb;
    apr_status_t rv = trv_fbooking_get_any(c, p, id, &fb);
    *out = rv == APR_SUCCESS && fb ? trv_lifecycle_cancel_view(p, fb, &fb->row,
        fb->supplier_reference, fb->status == TRV_FB_CANCELING,
        !trv_supplier_can(trv_flight_supplier_row(env->cfg, fb->supplier), TRV_SUP_COLLECTS_PAYMENT)) : NULL;
    return rv;
}

static int ask(trv_env *env, apr_pool_t *p, const char *request_id,
               const trv_lifecycle_cancel_booking *b, trv_lifecycle_cancel_answer *ans)
{
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    json_t *result = NULL;
    const trv_flight_supplier *sup = trv_flight_supplier_for(env, p, request_id, b->supplier,
                                                             &sc);
    sc.org_id = b->org_id;
    sc.booking_id = b->id;
    if (!sup || !b->supplier_ref) {
        return 0;
    }
    /* Each attempt its own key: a resend after a lost answer is the same
     * cancel, and the supplier answers with its result. */
    ans->status = sup->cancel(&sc, b->supplier_ref,
                              apr_psprintf(p, "%s:cancel:%d", b->id, b->attempt), &result,
                              &err);
    ans->code = err.code;
    ans->message = err.message;
    ans->own = result;
    return 1;
}

static int money_of(const json_t *v, const char *currency, trv_money *m)
{
    const char *why;
    return trv_money_from_json(v, m, &why) == APR_SUCCESS
        && (!currency || strcmp(m->currency, currency) == 0);
}

/* The figures of a flight cancellation, for its cancellation block. */
typedef struct {
    trv_money fee, refund;
} figures;

static apr_status_t plan(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                         const trv_lifecycle_cancel_answer *ans, trv_lifecycle_cancel_plan *out)
{
    const trv_fbooking *fb = b->own;
    const json_t *result = ans->own;
    int exponent = trv_currency_exponent(b->currency);
    figures *f = apr_pcalloc(p, sizeof(*f));
    trv_money total;

    (void)c;
    memset(&total, 0, sizeof(total));
    if (fb->currency && fb->total_amount && exponent >= 0) {
        trv_money_parse_decimal(fb->total_amount, exponent, &total.minor);
        memcpy(total.currency, fb->currency, 4);
    }
    if (!money_of(json_object_get(result, "fee"), fb->currency, &f->fee)) {
        f->fee = total;
        f->fee.minor = 0;
    }
    /* The intended refund: the supplier's figure, else what is left after
     * the fee; never more than was paid. */
    if (!money_of(json_object_get(result, "refund_amount"), fb->currency, &f->refund)) {
        f->refund = total;
        f->refund.minor = total.minor - f->fee.minor > 0 ? total.minor - f->fee.minor : 0;
    }
    if (f->refund.minor > total.minor) {
        f->refund.minor = total.minor;
    }
    out->known = 1;
    out->refund_minor = f->refund.minor;
    out->own = f;
    return APR_SUCCESS;
}

static apr_status_t canceled(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                             const trv_lifecycle_cancel_plan *plan, json_t *refund_to,
                             trv_lifecycle_cancel_moved *out)
{
    const figures *f = plan->own;
    trv_fbooking *after;
    json_t *cancellation = trv_json_bind(p, json_pack("{s:o,s:s,s:o,s:O}",
        "fee", trv_money_json(&f->fee),
        "refunded_by", b->service_pays ? "SERVICE" : "SUPPLIER",
        "refund_amount", trv_money_json(&f->refund),
        "refund_to", refund_to));
    apr_status_t rv = trv_fbooking_canceled(c, p, b->id, b->attempt,
                                            trv_json_dump(p, cancellation), &after);
    out->moved = rv == APR_SUCCESS && after;
    out->own = after;
    return rv;
}

/* CONFIRMED again, with failure: the ticket stays valid. */
static apr_status_t failed(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                           const char *code, const char *message,
                           trv_lifecycle_cancel_moved *out)
{
    trv_fbooking *after;
    const char *fj = trv_json_dump(p, trv_json_bind(p, json_pack("{s:s,s:s}", "code", code,
                                                                 "description", message)));
    apr_status_t rv = trv_fbooking_cancel_rejected(c, p, b->id, b->attempt, fj, &after);
    out->moved = rv == APR_SUCCESS && after;
    out->own = after;
    return rv;
}

/* The event carries the booking as the move wrote it. */
static apr_status_t emit(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                         const trv_lifecycle_cancel_moved *moved, const char *event)
{
    (void)b;
    return trv_flight_emit(c, p, moved->own, event);
}

const trv_lifecycle_cancel_ops trv_fcancel_ops = {
    "booking", &trv_fbooking_refunds, load, ask, plan, canceled, failed, emit,
    TRV_EV_CANCELED, TRV_EV_CANCEL_REJECTED, NULL, "cancellation_rejected",
    "The airline refused the cancellation", "cancellation_failed",
    "The supplier could not be reached to cancel; the ticket is still valid. Cancel again "
    "to retry"};
