/* What the two sandbox flight suppliers share (SUPPLIER_A and SUPPLIER_B
 * under /suppliers/a and /suppliers/b): record locators and tickets, the
 * passengers' test-mode triggers, cancellation terms and the flight orders
 * both keep in sandbox.flight_orders. */
#ifndef SBX_AIR_H
#define SBX_AIR_H

#include "sandbox/air/offers.h"
#include "sandbox/sbx_api.h"

/* A random airline record locator (six letters and digits). */
char *sbx_pnr(apr_pool_t *p);
/* A random e-ticket number "NNN-NNNNNNNNNN". */
char *sbx_ticket_number(apr_pool_t *p);
/* An airline's logo (a public CDN that serves one per IATA code). */
char *sbx_logo_url(apr_pool_t *p, const char *iata);

/* The test-mode trigger of a passenger last name: "async", "failticket",
 * "unknown", "nocancel" or NULL. */
const char *sbx_trigger_of(const char *last_name);

/* Cancellation terms of an order: a refundable fare refunds the total
 * less the penalty; a non-refundable one refunds the taxes only. */
void sbx_cancel_terms(int refund_allowed, apr_int64_t penalty, apr_int64_t total,
                      apr_int64_t tax, apr_int64_t *fee, apr_int64_t *refund);

/* The changes recorded on an order (array of change docs, oldest first),
 * NULL on a database failure. */
json_t *sbx_order_changes(trv_dbc *c, apr_pool_t *p, const char *order_id);
/* Finishes an Async order whose ticketing time has passed. */
apr_status_t sbx_order_settle(trv_dbc *c, apr_pool_t *p, const char *order_id);

/* ---- orders (both suppliers) ---- */

typedef struct sbx_order_new {
    const char *id;
    char supplier;                  /* 'A' or 'B' */
    const char *offer_ref;
    const char *checkout_id;
    const char *status;             /* pending, ticketed, failed */
    const char *pnr;
    const char *trigger;
    const char *brand;
    const char *currency;
    apr_int64_t total, tax, services;
    int refund_allowed;
    apr_int64_t refund_penalty;
    const json_t *doc;              /* the order as sold, wire format */
    const json_t *segments;         /* neutral segment list */
    const json_t *payment;          /* may be NULL */
    const json_t *failure;          /* may be NULL */
    apr_interval_time_t ticketing_in; /* pending: ticketed this much later */
} sbx_order_new;

/* Inserts an order; *duplicate when SUPPLIER_A's offer is already
 * ordered (nothing inserted). */
apr_status_t sbx_order_insert(trv_dbc *c, apr_pool_t *p, const sbx_order_new *o,
                              int *duplicate);
/* The order of this supplier (settled first: an Async order past its
 * ticketing time reads as ticketed). *rows has 0 or 1 row. */
apr_status_t sbx_order_get(trv_dbc *c, apr_pool_t *p, const char *id, char supplier,
                           trv_rows **rows);
/* Neutral segment entry for the control endpoint. */
json_t *sbx_segment_entry(apr_pool_t *p, const sbx_world *w, int journey, int seg,
                          const char *id, const sbx_leg *l);

#endif
