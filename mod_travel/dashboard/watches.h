/* The organization's price and trip watches on the dashboard (every
 * user's), newest first: a renderer of lists.h's table. */
#ifndef TRV_DASHBOARD_WATCHES_H
#define TRV_DASHBOARD_WATCHES_H

#include "lists.h"

const char *const *trv_dash_watch_statuses(const trv_dash_ctx *x);
apr_status_t trv_dash_watches(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                              const trv_dash_filter *f, long *total);

#endif
