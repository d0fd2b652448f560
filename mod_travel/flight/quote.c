/* GET /v1/flight/bookings/{id}/cancellation-quote: advisory, moves no
 * money. The airline is asked on every call (SUPPLIER_QUOTE); when it
 * cannot answer, the fare terms stored at prebook give a
 * FARE_RULES_ESTIMATE, or unavailable_reason no_policy without money. */
#include "handlers.h"
#include "quote_calc.h"
#include "state.h"
#include "booking_store.h"
#include "upstreams.h"
#include "core/clock.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

void trv_flight_quote(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    const trv_flight_supplier *sup;
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    json_t *answer = NULL, *quote = NULL;
    trv_fbooking *b;
    trv_dbc *c;
    trv_money total;
    int exponent;

    if (!trv_api_db_open(req, resp, &c, 380, "reading a booking to quote")) {
        return;
    }
    if (trv_fbooking_get(c, req->pool, req->org_id, req->user_id, id, &b)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 381, "reading a booking to quote");
        return;
    }
    trv_db_close(req->env->db, c);
    if (!b) {
        trv_freply_no_booking(req, resp, id);
        return;
    }
    if (b->status != TRV_FB_CONFIRMED || !b->supplier_reference) {
        trv_fail(req, resp, 409, "invalid_state", "Booking %s is %s; only a CONFIRMED "
                 "booking has a cancellation to quote", id,
                 trv_transit_text(&trv_fb_status_table, trv_fb_effective_status(b->status, b->past_expiry)));
        return;
    }
    sup = trv_flight_supplier_for(req->env, req->pool, req->request_id, b->supplier, &sc);
    if (sup) {
        trv_up_status st = sup->cancellation_quote(&sc, b->supplier_reference, &answer, &err);
        if (st == TRV_UP_OK) {
            quote = trv_fquote_calc_supplier(req->pool, answer,
                                             trv_time_format(req->pool, apr_time_now()));
        }
        if (!quote) {
            trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                        TRVLOGNO(382) "booking %s: no airline quote (%s%s%s); estimating "
                        "from the fare terms", id, trv_up_status_name(st),
                        err.message ? ": " : "", err.message ? err.message : "");
        }
    }
    if (!quote) {
        exponent = trv_currency_exponent(b->currency);
        memset(&total, 0, sizeof(total));
        if (exponent < 0 || !b->total_amount
            || trv_money_parse_decimal(b->total_amount, exponent, &total.minor)
               != APR_SUCCESS) {
            total.minor = -1;
        }
        else {
            memcpy(total.currency, b->currency, 4);
        }
        quote = trv_fquote_calc_estimate(req->pool, total.minor >= 0 ? &total : NULL,
                                         b->fare_conditions, b->cancellation_policy,
                                         trv_time_format(req->pool, apr_time_now()));
    }
    trv_ok(req, resp, 200, quote, NULL);
}
