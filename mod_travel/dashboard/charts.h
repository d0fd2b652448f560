/* The dashboard's figures, drawn as inline SVG (no script, nothing loaded;
 * the page's CSP allows exactly that), each with its numbers in a table
 * beside it for screen readers and for copying:
 *   - bookings per day over the last 14 days (UTC), flight and hotel,
 *     stacked by outcome (confirmed, canceled, failed or expired, in
 *     progress);
 *   - per webhook subscription over the last 7 days: attempts, the share
 *     answered 2xx, p50 and p99 of the attempts' durations.
 * Only the login's organization is counted. */
#ifndef TRV_DASHBOARD_CHARTS_H
#define TRV_DASHBOARD_CHARTS_H

#include "context.h"
#include "html.h"

/* The "Figures" section; c is the page's connection (NULL: says the
 * figures could not be read). */
void trv_dash_charts_section(const trv_dash_ctx *x, trv_dbc *c, trv_html *h);

#endif
