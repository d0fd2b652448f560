/* The organization's events on the dashboard, every family's (flight,
 * hotel, the watch family's travel.*), newest first, each with what it is
 * about and its webhook deliveries: a renderer of lists.h's table. */
#ifndef TRV_DASHBOARD_EVENTS_H
#define TRV_DASHBOARD_EVENTS_H

#include "lists.h"

/* Every event type the registry knows, and each family's test event
 * (webhook/test_event.h). */
const char *const *trv_dash_event_types(const trv_dash_ctx *x);
apr_status_t trv_dash_events(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                             const trv_dash_filter *f, long *total);

#endif
