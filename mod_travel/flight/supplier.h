/* The flight supplier interface: what every supplier adapter implements.
 * Adapters translate one supplier's wire API (over core/upstream) into the
 * shapes below, which are the service's own API shapes where one exists.
 * All JSON handed back is pool-bound (trv_json_bind on ctx->pool).
 *
 * Results: TRV_UP_OK, or the trv_up_status that says what happened:
 *   NOT_FOUND     the offer / order / airline does not exist (or expired)
 *   REJECTED      the supplier refused for good (code + message say why)
 *   UNAVAILABLE   nothing happened; safe to retry later
 *   TIMEOUT       no answer in time: for book, the outcome is unknown
 *   BAD_RESPONSE  the supplier answered nonsense
 * with err->code / err->message filled for every non-OK result. */
#ifndef TRV_FLIGHT_SUPPLIER_H
#define TRV_FLIGHT_SUPPLIER_H

#include "core/registry.h"
#include "core/supplier_call.h"
#include "core/upstream.h"
#include "flight/offer_text.h"

#include <jansson.h>

/* A flight adapter's call (core/supplier_call.h) and what only flight
 * adapters read. */
typedef struct trv_flight_ctx {
    TRV_SUPPLIER_CALL;
    /* prebook, for a supplier with TRV_SUP_VENDOR_SDK: the traveller pays
     * through the vendor's SDK, so *priced also carries payment_sdk
     * {provider, token} (the intent's client secret, for the client once:
     * never stored, never logged). */
    int vendor_sdk;
} trv_flight_ctx;

typedef trv_supplier_err trv_sup_err;

typedef struct trv_flight_supplier {
    const char *name;            /* a label for its logs; the wire name is ctx->up->name */
    /* How the offer references its search makes begin ("off_"): prebook
     * and bags are given a reference alone. */
    const char *offer_prefix;

    /* query: {journeys: [{origin, destination, date}], passengers: {adults,
     *   children, infants}, cabin_class?, limit} (validated by the caller).
     * *offers: trv_foffer_text (flight/offer_text.h), the API flight
     *   offers written as text: offer_reference (the supplier's, in ref),
     *   then the members total_amount, expires_at, fare_family,
     *   refundable, fare_conditions, documents_required, included_baggage,
     *   journeys[], total_duration_minutes.
     * *truncated: more offers matched than returned. */
    trv_up_status (*search)(trv_flight_ctx *ctx, const json_t *query,
                            apr_array_header_t **offers, int *truncated, trv_sup_err *err);

    /* *bags: array of API bag entries (docs/flights.md "Bags") {id: "bag_...", type:
     * "BAGGAGE", baggage {type, max_weight_kg}, passenger_index,
     * journey_index, unit_amount, max_quantity}; [] when none are sold. */
    trv_up_status (*bags)(trv_flight_ctx *ctx, const char *offer_reference,
                          json_t **bags, trv_sup_err *err);

    /* Binds and re-prices the offer for these passengers and services.
     * passengers: the prebook passengers (with loyalty_accounts, membership
     * numbers in full); services: [{id, quantity}].
     * *priced: {total_amount, fare_amount, fare_tax_amount, services_amount,
     *   currency, expires_at, fare_brand, fare_conditions, cancellation_policy,
     *   journeys[] (API booking journeys with segment ids; passengers in
     *   segments use the passenger index as passenger_id until the caller
     *   assigns psg_ ids; checked_bags / carry_on_bags count included and
     *   bought bags), services[] {bag_id, passenger_index, journey_index,
     *   segment_ids, quantity, unit_amount, total_amount, baggage},
     *   member_price (bool), hold {held (bool), expires_at},
     *   supplier_data (opaque object the adapter needs at book: keep as is)}.
     * SUPPLIER_A reserves nothing; SUPPLIER_B creates a checkout (held). */
    trv_up_status (*prebook)(trv_flight_ctx *ctx, const char *offer_reference,
                             const json_t *passengers, const json_t *contact,
                             const json_t *services, json_t **priced, trv_sup_err *err);

    /* Issues the order. booking: {id, supplier_data, total_amount,
     * passengers, contact, services ([{id: "bag_...", quantity}], as given
     * to prebook)}; payment: {authorization_id} when
     * the service paid (SUPPLIER_A), NULL when the supplier collects payment.
     * idempotency_key: the same for every attempt of one booking; sent
     * only to a vendor whose protocol row honours one (wire.h). A lost
     * answer is never answered by sending book again: see find_order.
     * *order: {order_id, status: "TICKETED"|"PENDING"|"FAILED",
     *   airline_pnr?, failure? {code, description},
     *   payment? {collected_by, amount, card? {brand,last4,funding,wallet},
     *             card_pending? (true: the card shows on a later read)}}. */
    trv_up_status (*book)(trv_flight_ctx *ctx, const json_t *booking,
                          const json_t *payment, const char *idempotency_key,
                          json_t **order, trv_sup_err *err);

    /* The order as the supplier has it now: same shape as book's *order
     * plus status "CANCELED" and airline_initiated_changes[], each
     * {id, type: "SCHEDULE_CHANGE", created_at, journey_index, segment_id,
     *  marketing_flight, origin, destination, previous_departure_time,
     *  previous_arrival_time, departure_time, arrival_time} (local times),
     * oldest first. */
    trv_up_status (*read_order)(trv_flight_ctx *ctx, const char *order_id,
                                json_t **order, trv_sup_err *err);

    /* The airline's own quote: {fee, refundable_amount} (Money);
     * NOT_FOUND / REJECTED when the airline cannot quote (the caller then
     * estimates from the stored fare terms). */
    trv_up_status (*cancellation_quote)(trv_flight_ctx *ctx, const char *order_id,
                                        json_t **quote, trv_sup_err *err);

    /* Cancels the order: *result {fee, refund_amount} (Money) on OK;
     * REJECTED with code/message when the airline refuses. */
    trv_up_status (*cancel)(trv_flight_ctx *ctx, const char *order_id,
                            const char *idempotency_key, json_t **result,
                            trv_sup_err *err);

    /* {iata_code, icao_code, name, country, alliance, logo_url, is_active}. */
    trv_up_status (*airline)(trv_flight_ctx *ctx, const char *iata_code,
                             json_t **airline, trv_sup_err *err);

    /* The order a book whose answer was lost made, found through what the
     * supplier's API offers for it, without sending book again (booking:
     * the document book was given, with the booking id): *order as
     * read_order's. NOT_FOUND while the supplier shows no order for the
     * booking. NULL for an adapter that cannot look one up: such a
     * booking stays unknown for an operator. */
    trv_up_status (*find_order)(trv_flight_ctx *ctx, const json_t *booking,
                                json_t **order, trv_sup_err *err);
} trv_flight_supplier;

/* The adapters (one file each). */
extern const trv_flight_supplier trv_flight_supplier_a;
extern const trv_flight_supplier trv_flight_supplier_b;

/* The flight supplier protocols (suppliers.c), registered by the flight
 * domain: protocol name, adapter, capabilities, limits, credentials; the
 * table ends at a NULL name. */
extern const trv_supplier trv_flight_suppliers[];

/* The bound row of a configured supplier's wire name (TravelSupplier), or
 * NULL. */
const trv_supplier *trv_flight_supplier_row(const trv_config *cfg, const char *name);
/* The wire names of every configured flight supplier, NULL-terminated (for
 * the input enums). */
const char *const *trv_flight_supplier_names(const trv_config *cfg, apr_pool_t *p);

/* The adapter whose search made an offer_reference (by its offer_prefix),
 * or NULL. */
const trv_flight_supplier *trv_flight_supplier_of_offer(const char *offer_reference);

#endif
