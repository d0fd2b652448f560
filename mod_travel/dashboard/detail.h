/* The dashboard's detail pages, reached from the lists' links by a query
 * on the page itself (the dashboard serves its folder only):
 *   ?booking=bkg_...   a flight or hotel booking: its fields, payments and
 *                      cancellation, its events (the timeline of its state
 *                      changes) and their webhook deliveries, the document
 *                      the API answers;
 *   ?delivery=dlv_...  a webhook delivery: the signed payload, each
 *                      attempt's status, duration and response body, Replay.
 * Only the login's organization: another's id reads as not found. */
#ifndef TRV_DASHBOARD_DETAIL_H
#define TRV_DASHBOARD_DETAIL_H

#include "context.h"

#include <apr_tables.h>

/* The detail page the query asks for, or NULL when it asks for none;
 * *status is 200, 404 (no such thing in this organization) or 503. */
const char *trv_dash_detail_page(const trv_dash_ctx *x, apr_table_t *query, int *status);

#endif
