/* What the flight supplier adapters share (private to flight/supplier*.c):
 * calling the supplier with the outcome logged and err filled, and turning
 * wire values (decimal strings, ISO durations, local times) into the
 * service's shapes. */
#ifndef TRV_FLIGHT_SUPPLIERS_WIRE_H
#define TRV_FLIGHT_SUPPLIERS_WIRE_H

#include "flight/supplier.h"
#include "core/money.h"

/* An adapter's call of its supplier (self: the calling adapter), made by
 * trv_supplier_call_send (core/supplier_call.h): opts holds what is the
 * call's own (its headers beside the bearer key or carrying the key,
 * idempotency_key, read); the flight domain's part is added here. A
 * failure is logged under the adapter's name (TRV1101, never the key) with
 * err filled; the call is counted under its line's name. idempotency_key
 * is what a call that changes something would carry; it is sent only when
 * self's protocol row says its vendor honours one (TRV_SUP_IDEMPOTENCY_KEY,
 * core/registry.h), and a request sent without one is never resent by the
 * HTTP client (core/http.h). Adapters pass the key at every call that
 * changes something and leave the choice here. */
trv_up_status trv_fwire_call(trv_flight_ctx *ctx, const trv_flight_supplier *self,
                             const trv_supplier_call_opts *opts, const char *method,
                             const char *path, const json_t *body, trv_up_result *res,
                             trv_sup_err *err);

/* Money {amount, currency} (a new reference) from a decimal string or
 * number in currency; NULL when either is unusable. */
json_t *trv_fwire_money(const json_t *amount, const char *currency);
struct trv_jval;
/* The same for an amount read with core/jval.h, into *m: 0, or -1 when
 * either is unusable. */
int trv_fwire_money_read(const struct trv_jval *amount, const char *currency, trv_money *m);
/* That Money written as a search offer's member value (flight/offer_text.h),
 * or null when either is unusable. */
void trv_fwire_money_text(trv_jtext *t, const struct trv_jval *amount, const char *currency);
/* The decimal string of Money ({amount, currency}) for a supplier, or NULL. */
const char *trv_fwire_decimal(apr_pool_t *p, const json_t *money, const char **currency);

/* "PT7H30M" / "P1DT2H" -> minutes, -1 when malformed. */
int trv_fwire_iso_minutes(const char *s);
/* "2026-12-01 07:35" -> "2026-12-01T07:35:00" (pool string). */
const char *trv_fwire_local_time(apr_pool_t *p, const char *s);

/* OUTBOUND, or INBOUND for the second journey of a return trip (it ends
 * where the first began). */
const char *trv_fwire_direction(const char *first_origin, const char *dest, size_t j, size_t n);

/* A search offer's segment and journey (flight/supplier.h, search) as
 * their values are read from a supplier's answer; written in the API's
 * member order by the writers below, which both adapters use. */
typedef struct trv_fwire_segment {
    const char *origin, *destination, *departure_time, *arrival_time;
    const char *marketing_flight, *marketing_carrier, *marketing_carrier_code;
    const char *marketing_carrier_logo_url;
    const char *operating_carrier, *operating_carrier_code, *operating_carrier_logo_url;
    long long duration_minutes;
    const char *cabin_class;
} trv_fwire_segment;

typedef struct trv_fwire_journey {
    const char *origin, *destination, *direction, *departure_time, *arrival_time;
    int duration_minutes, stops;
} trv_fwire_journey;

/* The segment as the next value of an open segments array; its marketing
 * carrier noted on the offer (the carriers filter). */
void trv_fwire_segment_write(trv_jtext *t, trv_foffer_text *offer, const trv_fwire_segment *s);
/* The journey's members up to its segments array, left open for
 * trv_fwire_segment_write; its stops noted on the offer (the max_stops
 * filter). trv_fwire_journey_end closes the array and the journey. */
void trv_fwire_journey_begin(trv_jtext *t, trv_foffer_text *offer, const trv_fwire_journey *j);
void trv_fwire_journey_end(trv_jtext *t);

/* Adds a bag's quantity to the passenger's segments of a journey:
 * segments[].passengers[passenger_index].checked_bags / carry_on_bags. */
void trv_fwire_count_bag(json_t *journeys, json_int_t journey, json_int_t passenger,
                         const char *bag_type, json_int_t quantity);

#endif
