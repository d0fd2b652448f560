/* The background half of a hotel cancellation (cancel_jobs.h): the hotel
 * steps of the cancel runner (lifecycle/cancel.h). The request (cancel.c)
 * has moved the booking to CANCEL_IN_PROGRESS with an IN_PROGRESS attempt;
 * the runner asks the supplier and records the outcome, whose rendering
 * and event these steps write in the same transaction. */
#include "cancel_jobs.h"
#include "booking.h"
#include "booking_store.h"
#include "cancellation_store.h"
#include "events.h"
#include "render.h"
#include "supplier.h"
#include "customer.h"
#include "core/json.h"
#include "core/money.h"
#include "lifecycle/cancel.h"
#include "webhook/outbox.h"

#include <apr_strings.h>
#include <string.h>

/* A supplier is asked again (same outcome for a repeated cancel) for
 * about a quarter of an hour of backoff; refunds likewise. */
const trv_job_spec trv_hjob_cancel = {"hotel.booking.cancel", 8};
const trv_job_spec trv_hjob_refund = {"hotel.refund.submit", 8};

/* The booking read whole again in this transaction, its rendering kept
 * for its new revision and the event emitted with it. */
static apr_status_t emit(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *cb,
                         const trv_lifecycle_cancel_moved *moved, const char *event)
{
    trv_hbooking *b;
    apr_status_t rv = trv_hbooking_get_any(c, p, cb->id, &b);
    (void)moved;
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

static apr_status_t load(trv_env *env, trv_dbc *c, apr_pool_t *p, const char *id,
                         trv_lifecycle_cancel_booking **out)
{
    trv_hbooking *hb;
    apr_status_t rv = trv_hbooking_get_any(c, p, id, &hb);
    *out = rv == APR_SUCCESS && hb ? trv_lifecycle_cancel_view(p, hb, &hb->row,
        hb->supplier_booking_id, hb->status == TRV_HB_CANCELING,
        !trv_supplier_can(trv_hotel_supplier_row(env, hb->supplier), TRV_SUP_COLLECTS_PAYMENT)) : NULL;
    return rv;
}

static int ask(trv_env *env, apr_pool_t *p, const char *request_id,
               const trv_lifecycle_cancel_booking *b, trv_lifecycle_cancel_answer *ans)
{
    const trv_supplier *row = trv_hotel_supplier_row(env, b->supplier);
    trv_hotel_ctx ctx;
    trv_hotel_err err = {0};
    trv_hotel_canceled *out = apr_pcalloc(p, sizeof(*out));
    const trv_hotel_supplier *sup = row ? trv_hotel_supplier_for(env, p, request_id, row, &ctx)
                                        : NULL;
    if (!sup || !sup->cancel || !b->supplier_ref) {
        return 0;
    }
    ctx.org_id = b->org_id;
    ctx.booking_id = b->id;
    /* The traveller prebook kept (the cancellation may run in a job). */
    trv_hcustomer_apply_kept(&ctx, ((const trv_hbooking *)b->own)->customer);
    ans->status = sup->cancel(&ctx, b->supplier_ref, out, &err);
    ans->code = err.code;
    ans->message = err.message;
    ans->own = out;
    return 1;
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

/* The intended refund: the released price less the supplier's fee, capped
 * by what was captured less earlier refund intents. Unknown (NULL, for
 * review) when the fee or the price cannot be read. plan->own: the fee as
 * decimal text, or NULL. */
static apr_status_t plan(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                         const trv_lifecycle_cancel_answer *ans, trv_lifecycle_cancel_plan *out)
{
    const trv_hotel_canceled *can = ans->own;
    int exponent = trv_currency_exponent(b->currency), i;
    int same_currency = can->currency && strcmp(can->currency, b->currency) == 0;
    apr_int64_t released = released_minor(b->own, exponent), captured = 0, before = 0, left, m;
    const char *refunded;
    apr_status_t rv = trv_hcancellation_refunded(c, p, b->id, &refunded);

    if (rv != APR_SUCCESS) {
        return rv;
    }
    minor_of(refunded, exponent, &before);
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_lifecycle_cancel_payment *pay =
            &APR_ARRAY_IDX(b->payments, i, trv_lifecycle_cancel_payment);
        if (pay->status == TRV_PAY_CAPTURED && minor_of(pay->amount, exponent, &m)) {
            captured += m;
        }
    }
    out->own = same_currency ? (void *)trv_money_decimal(p, can->fee_minor, exponent) : NULL;
    if (!same_currency || released < 0) {
        out->review = apr_psprintf(p, "fee in %s, booking in %s",
                                   can->currency ? can->currency : "-", b->currency);
        return APR_SUCCESS;
    }
    left = released - can->fee_minor;
    if (left > captured - before) {
        left = captured - before;
    }
    out->known = 1;
    out->refund_minor = left < 0 ? 0 : left;
    return APR_SUCCESS;
}

static apr_status_t canceled(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                             const trv_lifecycle_cancel_plan *plan, json_t *refund_to,
                             trv_lifecycle_cancel_moved *out)
{
    const char *refund = plan->known ? trv_money_decimal(p, plan->refund_minor,
                                                         trv_currency_exponent(b->currency))
                                     : NULL;
    apr_status_t rv = trv_hcancellation_succeeded(c, p, b->id, b->attempt, plan->own, refund,
                                                  trv_json_dump(p, refund_to),
                                                  &out->cancellation_id);
    out->moved = rv == APR_SUCCESS && out->cancellation_id;
    return rv;
}

/* The attempt FAILED with a code the API shows, the booking CONFIRMED
 * again; a restriction the supplier reported is kept. */
static apr_status_t failed(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                           const char *code, const char *message,
                           trv_lifecycle_cancel_moved *out)
{
    apr_status_t rv = trv_hcancellation_failed(c, p, b->id, b->attempt, code, message,
                                               &out->moved);
    if (rv == APR_SUCCESS && out->moved && strcmp(code, "cancellation_restricted") == 0) {
        rv = trv_hcancellation_restrict(c, p, b->id, code, message);
    }
    return rv;
}

/* The API's error_code for a supplier's refusal: a stored restriction and
 * a booking still being confirmed are told apart, anything else the
 * supplier refused is cancellation_failed (its message kept beside). */
static const char *const kept_codes[] = {"cancellation_restricted", "booking_pending", NULL};

const trv_lifecycle_cancel_ops trv_hcancel_ops = {
    "hotel booking", &trv_hcancellation_refunds, load, ask, plan, canceled, failed, emit,
    TRV_HEV_CANCELED, TRV_HEV_CANCELLATION_FAILED, kept_codes, "cancellation_failed",
    "The supplier refused to cancel", "supplier_unavailable",
    "The supplier could not be reached to cancel; the booking is still confirmed. Cancel "
    "again to retry"};
