/* What the flight supplier adapters share (private to flight/supplier*.c):
 * calling the supplier with the outcome logged and err filled, and turning
 * wire values (decimal strings, ISO durations, local times) into the
 * service's shapes. */
#ifndef TRV_FLIGHT_SUPPLIERS_WIRE_H
#define TRV_FLIGHT_SUPPLIERS_WIRE_H

#include "flight/supplier.h"
#include "core/money.h"

/* trv_upstream_call for an adapter (self: the calling adapter), with
 * headers of the supplier's API beside the bearer key: logs any outcome
 * other than OK (with the adapter's name, never the key) and fills err for
 * it. idempotency_key is what a call that changes something would carry;
 * it is sent only when self's protocol row says its vendor honours one
 * (TRV_SUP_IDEMPOTENCY_KEY, core/registry.h), and a request sent without
 * one is never resent by the HTTP client (core/http.h). Adapters pass the
 * key at every call that changes something and leave the choice here. */
trv_up_status trv_fwire_call_with(trv_flight_ctx *ctx, const trv_flight_supplier *self,
                                  const apr_table_t *headers, const char *method,
                                  const char *path, const json_t *body,
                                  const char *idempotency_key, trv_up_result *res,
                                  trv_sup_err *err);

/* trv_fwire_call_with whose answer is read with core/jval.h into res->doc
 * (res->body NULL): for searches, whose answers are the largest. A search
 * only reads, so it goes out on a pooled keep-alive connection even as a
 * POST (trv_upstream.repeatable). */
trv_up_status trv_fwire_read_with(trv_flight_ctx *ctx, const trv_flight_supplier *self,
                                  const apr_table_t *headers, const char *method,
                                  const char *path, const json_t *body, trv_up_result *res,
                                  trv_sup_err *err);
/* The same for an API whose key is not a bearer token: auth holds its own
 * header (LiteAPI's X-API-Key) and no Authorization is sent. */
trv_up_status trv_sup_call_auth(trv_flight_ctx *ctx, const trv_flight_supplier *self,
                                const apr_table_t *auth, const char *method, const char *path,
                                const json_t *body, const char *idempotency_key,
                                trv_up_result *res, trv_sup_err *err);

/* trv_sup_call_auth whose 2xx answer is read with core/jval.h into
 * res->doc: for searches, sent as trv_fwire_read_with sends them. */
trv_up_status trv_sup_read_auth(trv_flight_ctx *ctx, const trv_flight_supplier *self,
                                const apr_table_t *auth, const char *method, const char *path,
                                const json_t *body, trv_up_result *res, trv_sup_err *err);
/* Money {amount, currency} (a new reference) from a decimal string or
 * number in currency; NULL when either is unusable. */
json_t *trv_fwire_money(const json_t *amount, const char *currency);
struct trv_jval;
/* The same for an amount read with core/jval.h. */
json_t *trv_fwire_money_jval(const struct trv_jval *amount, const char *currency);
/* The decimal string of Money ({amount, currency}) for a supplier, or NULL. */
const char *trv_fwire_decimal(apr_pool_t *p, const json_t *money, const char **currency);

/* "PT7H30M" / "P1DT2H" -> minutes, -1 when malformed. */
int trv_fwire_iso_minutes(const char *s);
/* "2026-12-01 07:35" -> "2026-12-01T07:35:00" (pool string). */
const char *trv_fwire_local_time(apr_pool_t *p, const char *s);

/* OUTBOUND, or INBOUND for the second journey of a return trip (it ends
 * where the first began). */
const char *trv_fwire_direction(const char *first_origin, const char *dest, size_t j, size_t n);

/* Adds a bag's quantity to the passenger's segments of a journey:
 * segments[].passengers[passenger_index].checked_bags / carry_on_bags. */
void trv_fwire_count_bag(json_t *journeys, json_int_t journey, json_int_t passenger,
                         const char *bag_type, json_int_t quantity);

#endif
