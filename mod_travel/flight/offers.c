/* POST /v1/flight/offers and GET /v1/flight/offers/{offer_reference}/bags.
 * One supplier answers a search: the one named in `supplier`, else the
 * routing rule (upstreams.h). Offers are not stored; their references are
 * wrapped (offer_ref.h) so bags and prebook know the supplier and party. */
#include "handlers.h"
#include "input.h"
#include "offer_filter.h"
#include "offer_ref.h"
#include "upstreams.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/json_text.h"
#include "core/metrics.h"

#include <apr_strings.h>
#include <string.h>

static const unsigned char *secret(const trv_req *req)
{
    return req->env->cfg && req->env->cfg->have_secret_key ? req->env->cfg->secret_key : NULL;
}

void trv_flight_offers(trv_req *req, trv_resp *resp)
{
    trv_errs *errs = trv_errs_new(req->pool);
    trv_offers_input in;
    const trv_flight_supplier *sup = NULL;
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    apr_array_header_t *offers = NULL, *kept;
    json_t *meta;
    trv_jtext data;
    int truncated = 0, more = 0, i;
    const char *name, *text;
    trv_up_status st;

    if (!req->json) {
        trv_errs_add(errs, "body", "is required: {journeys, passengers}");
        trv_fail_invalid(req, resp, errs);
        return;
    }
    trv_finput_offers(req->pool, req->json, apr_time_now(),
                      trv_flight_supplier_names(req->env->cfg, req->pool), &in, errs);
    name = in.supplier ? in.supplier : trv_flight_route_supplier(req->env);
    if (name) {
        sup = trv_flight_supplier_for(req->env, req->pool, req->request_id, name, &sc);
    }
    if (!sup && in.supplier) {
        trv_errs_add(errs, "supplier", "%s is not available here", in.supplier);
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!sup) {
        trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                    TRVLOGNO(383) "no flight supplier is configured (TravelSupplier)");
        trv_fail(req, resp, 503, "unavailable", "No flight supplier is available");
        return;
    }
    /* Filters the gateway applies need more than `limit` to choose from. */
    if (in.max_stops >= 0 || in.carriers) {
        json_object_set_new(in.query, "limit", json_integer(TRV_OFFERS_MAX_LIMIT));
    }
    trv_metrics_upstream_event(req->env->metrics, name, TRV_METRIC_SEARCH);
    st = sup->search(&sc, in.query, &offers, &truncated, &err);
    if (st == TRV_UP_REJECTED || st == TRV_UP_NOT_FOUND) {
        trv_errs_add(errs, "journeys", "%s", err.message && *err.message ? err.message
                     : "the supplier cannot price this itinerary");
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (st != TRV_UP_OK) {
        trv_freply_upstream_fail(req, resp, st, name, err.message);
        return;
    }
    kept = trv_foffer_filter_apply(req->pool, offers, in.max_stops, in.carriers, in.limit,
                                   &more);
    trv_jtext_init(&data, req->pool, 64 * 1024);
    trv_jtext_arr(&data);
    for (i = 0; i < kept->nelts; i++) {
        const trv_foffer_text *o = APR_ARRAY_IDX(kept, i, const trv_foffer_text *);
        trv_foffer_ref ref;
        apr_time_t exp = 0;
        memset(&ref, 0, sizeof(ref));
        ref.supplier = name;
        ref.ref = o->ref;
        ref.adults = in.adults;
        ref.children = in.children;
        ref.infants = in.infants;
        if (o->expires_at && trv_time_parse(o->expires_at, &exp) == APR_SUCCESS) {
            ref.expires_at = exp;
        }
        trv_foffer_text_write(&data, o, trv_foffer_ref_encode(req->pool, secret(req),
                                                              req->org_id, &ref));
    }
    trv_jtext_end(&data);
    if (!(text = trv_jtext_done(&data, NULL))) {
        trv_freply_upstream_fail(req, resp, TRV_UP_BAD_RESPONSE, name, "offers not writable");
        return;
    }
    meta = json_pack("{s:s,s:O}", "supplier", name, "unsupported_filters", in.unsupported);
    /* "appears when more matched" */
    if (truncated || more) {
        json_object_set_new(meta, "truncated", json_true());
    }
    trv_ok_text(req, resp, 200, text, meta);
}

void trv_flight_bags(trv_req *req, trv_resp *resp)
{
    const char *text = apr_table_get(req->params, "offer_reference");
    const trv_flight_supplier *sup;
    trv_flight_ctx sc;
    trv_sup_err err = {0};
    trv_foffer_ref ref;
    json_t *bags = NULL;
    const char *why;
    trv_up_status st;

    if (trv_foffer_ref_decode(req->pool, secret(req), req->org_id, text, &ref, &why)
        != APR_SUCCESS) {
        trv_fail(req, resp, 404, "not_found", "No such offer; search again");
        return;
    }
    if (ref.expires_at && apr_time_now() >= ref.expires_at) {
        trv_fail(req, resp, 404, "not_found", "The offer has expired; search again");
        return;
    }
    sup = trv_flight_supplier_for(req->env, req->pool, req->request_id, ref.supplier, &sc);
    if (!sup) {
        trv_fail(req, resp, 404, "not_found", "The offer's supplier is not available");
        return;
    }
    st = sup->bags(&sc, ref.ref, &bags, &err);
    if (st == TRV_UP_NOT_FOUND) {
        trv_fail(req, resp, 404, "not_found", "The offer has expired or is sold out; "
                 "search again");
        return;
    }
    if (st != TRV_UP_OK || !json_is_array(bags)) {
        trv_freply_upstream_fail(req, resp, st == TRV_UP_OK ? TRV_UP_BAD_RESPONSE : st,
                                 ref.supplier, err.message);
        return;
    }
    trv_ok(req, resp, 200, json_incref(bags), NULL);
}
