/* GET /v1/hotel/bookings/{id}/cancellation-estimate: what cancelling the
 * booking's remaining rooms would cost now, from fresh supplier data.
 * SUPPLIER_QUOTE: the supplier's own cancellation preview (the suppliers
 * with the cancellation-preview capability, SUPPLIER_C). POLICY_ESTIMATE:
 * the booking read again at the supplier (retrieve) and its rooms'
 * policies applied at this instant (estimate_calc.c) to the rooms' prices.
 * Advisory: nothing is stored. A stored restriction is a 422 before the
 * supplier is asked, a restriction the preview reports a 422 after; a
 * failed read or an unusable preview is an error (never stale terms); a
 * local change to the booking while the supplier was read is a 409. */
#include "handlers.h"
#include "booked_status.h"
#include "booking_store.h"
#include "cancellation_store.h"
#include "estimate_calc.h"
#include "render.h"
#include "supplier.h"
#include "customer.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

/* The remaining rooms' prices and their count; -1 when a price is unknown. */
static apr_int64_t released(const trv_hbooking *b, int exponent, int *n)
{
    apr_int64_t sum = 0, m;
    int i;
    *n = 0;
    for (i = 0; b->rooms && i < b->rooms->nelts; i++) {
        const trv_hroom *r = &APR_ARRAY_IDX(b->rooms, i, trv_hroom);
        if (r->canceled_at) {
            continue;
        }
        if (!r->total_amount || !r->currency || strcmp(r->currency, b->currency) != 0
            || trv_money_parse_decimal(r->total_amount, exponent, &m) != APR_SUCCESS) {
            return -1;
        }
        sum += m;
        (*n)++;
    }
    return sum;
}

/* The supplier's policy of the room at position (retrieve's rooms). */
static const json_t *policy_at(const json_t *rooms, int position)
{
    size_t i;
    const json_t *r;
    json_array_foreach(rooms, i, r) {
        if (json_integer_value(json_object_get(r, "position")) == position) {
            return json_object_get(r, "cancellation_policy");
        }
    }
    return NULL;
}

static json_t *money_or_null(int available, apr_int64_t minor, const char *currency)
{
    return available ? trv_hwire_money(minor, currency) : json_null();
}

void trv_hotel_cancellation_estimate(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *source;
    const trv_supplier *row;
    const trv_hotel_supplier *sup;
    trv_hotel_ctx ctx;
    trv_hotel_err err = {0};
    trv_hbooking *b, *again;
    trv_dbc *c;
    trv_up_status st;
    trv_hotel_estimate est;
    apr_int64_t price;
    int exponent, restricted = 0, n_rooms;
    const char *revision, *unusable = NULL;

    if (!trv_api_db_open(req, resp, &c, 1460, "reading a hotel booking to estimate")) {
        return;
    }
    if (trv_hbooking_get(c, req->pool, req->org_id, id, &b) != APR_SUCCESS
        || (b && trv_hcancellation_restricted(c, req->pool, id, &restricted) != APR_SUCCESS)) {
        trv_fail_db(req, resp, c, 1460, "reading a hotel booking to estimate");
        trv_db_close(req->env->db, c);
        return;
    }
    /* No connection is held while the supplier is asked. */
    trv_db_close(req->env->db, c);
    if (!b) {
        trv_fail(req, resp, 404, "not_found", "No hotel booking %s", id);
        return;
    }
    if (trv_hbooking_status(b) != TRV_HB_CONFIRMED) {
        trv_fail(req, resp, 409, "invalid_state", "Hotel booking %s is %s; only a CONFIRMED "
                 "booking's cancellation can be estimated", id,
                 trv_transit_text(&trv_hb_status_table, trv_hbooking_status(b)));
        return;
    }
    if (restricted) {
        trv_fail(req, resp, 422, "cancellation_restricted", "The supplier has restricted "
                 "cancellation of hotel booking %s; it cannot be cancelled online", id);
        return;
    }
    revision = b->revision;
    exponent = trv_currency_exponent(b->currency);
    price = released(b, exponent, &n_rooms);
    row = trv_hotel_supplier_row(req->env, b->supplier);
    sup = row ? trv_hotel_supplier_for(req->env, req->pool, req->request_id, row, &ctx) : NULL;
    if (sup) {
        trv_hcustomer_apply_kept(&ctx, b->customer);
    }
    if (!sup || !b->supplier_booking_id) {
        trv_fail_upstream(req, resp, TRV_UP_UNAVAILABLE, 1461, "hotel ", b->supplier,
                          "the booking's supplier is not configured here");
        return;
    }
    memset(&est, 0, sizeof(est));
    if (trv_supplier_can(row, TRV_SUP_CANCEL_PREVIEW) && sup->cancel_preview) {
        trv_hotel_preview pv;
        source = "SUPPLIER_QUOTE";
        memset(&pv, 0, sizeof(pv));
        st = sup->cancel_preview(&ctx, b->supplier_booking_id, &pv, &err);
        if (st != TRV_UP_OK) {
            trv_fail_upstream(req, resp, st, 1462, "hotel ", b->supplier, err.message);
            return;
        }
        restricted = pv.restricted;
        if (!pv.currency || strcmp(pv.currency, b->currency) != 0 || pv.fee_minor < 0) {
            unusable = "the cancellation preview is not in the booking's currency";
        }
        est.available = price >= 0;
        est.fee_minor = pv.fee_minor;
        est.refund_minor = price > pv.fee_minor ? price - pv.fee_minor : 0;
        est.deadline = pv.fee_minor == 0 ? pv.deadline : 0;
    }
    else if (sup->retrieve) {
        trv_hotel_booked got;
        trv_hotel_room_terms *terms = apr_pcalloc(req->pool, sizeof(*terms)
                                                  * (apr_size_t)(n_rooms > 0 ? n_rooms : 1));
        int i, k = 0;
        source = "POLICY_ESTIMATE";
        memset(&got, 0, sizeof(got));
        st = sup->retrieve(&ctx, b->supplier_booking_id, NULL, &got, &err);
        if (st != TRV_UP_OK) {
            trv_fail_upstream(req, resp, st, 1462, "hotel ", b->supplier, err.message);
            return;
        }
        if (trv_transit_from_text(&trv_hbooked_status_table, got.status) != TRV_HBOOKED_CONFIRMED) {
            unusable = apr_psprintf(req->pool, "the supplier holds the booking as %s",
                                    got.status ? got.status : "unknown");
        }
        for (i = 0; price >= 0 && b->rooms && i < b->rooms->nelts; i++) {
            const trv_hroom *r = &APR_ARRAY_IDX(b->rooms, i, trv_hroom);
            if (!r->canceled_at) {
                trv_hotel_terms_of(policy_at(got.rooms, r->position),
                                   trv_json_bind(req->pool,
                                                 trv_hrender_money(r->total_amount, r->currency)),
                                   b->currency, &terms[k++]);
            }
        }
        /* Unreadable or missing policies (or prices): available = false. */
        trv_hotel_estimate_at(terms, price >= 0 ? k : 0, apr_time_now(), &est);
    }
    else {
        trv_fail_upstream(req, resp, TRV_UP_UNAVAILABLE, 1461, "hotel ", b->supplier,
                          "the supplier can neither preview nor read a booking");
        return;
    }
    /* The supplier reads are done: checked_at, then the booking as it
     * stands now, which must be the one that was read (a local change,
     * such as a cancel, also explains a supplier answer that no longer
     * fits: that is a 409, not a supplier error). */
    {
        apr_time_t checked_at = apr_time_now();
        int preview_restricted = restricted;
        if (!trv_api_db_open(req, resp, &c, 1464, "reading a hotel booking to estimate")) {
            return;
        }
        if (trv_hbooking_get(c, req->pool, req->org_id, id, &again) != APR_SUCCESS
            || (again && trv_hcancellation_restricted(c, req->pool, id, &restricted)
                         != APR_SUCCESS)) {
            trv_fail_db(req, resp, c, 1464, "reading a hotel booking to estimate");
            trv_db_close(req->env->db, c);
            return;
        }
        trv_db_close(req->env->db, c);
        if (!again || strcmp(again->revision, revision) != 0) {
            trv_fail(req, resp, 409, "booking_changed", "Hotel booking %s changed while the "
                     "supplier was read; ask again", id);
            return;
        }
        if (restricted || preview_restricted) {
            trv_fail(req, resp, 422, "cancellation_restricted", "The supplier has restricted "
                     "cancellation of hotel booking %s; it cannot be cancelled online", id);
            return;
        }
        if (unusable) {
            trv_fail_upstream(req, resp, TRV_UP_BAD_RESPONSE, 1463, "hotel ", b->supplier,
                              unusable);
            return;
        }
        trv_ok(req, resp, 200, json_pack("{s:s,s:b,s:s,s:o,s:o,s:o}", "source", source,
                                         "available", est.available,
                                         "checked_at", trv_time_format(req->pool, checked_at),
                                         "fee", money_or_null(est.available, est.fee_minor,
                                                              b->currency),
                                         "refund", money_or_null(est.available,
                                                                 est.refund_minor,
                                                                 b->currency),
                                         "deadline", est.available && est.deadline
                                             ? json_string(trv_time_format(req->pool,
                                                                           est.deadline))
                                             : json_null()),
               NULL);
    }
}
