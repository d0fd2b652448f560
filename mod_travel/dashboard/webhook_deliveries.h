/* Every webhook delivery of the organization, all subscriptions and
 * families together, newest first: a renderer of lists.h's table (the
 * per-subscription page, through the API's own list, is delivery_list.h). */
#ifndef TRV_DASHBOARD_WEBHOOK_DELIVERIES_H
#define TRV_DASHBOARD_WEBHOOK_DELIVERIES_H

#include "lists.h"

const char *const *trv_dash_delivery_statuses(const trv_dash_ctx *x);
apr_status_t trv_dash_deliveries(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                 const trv_dash_filter *f, long *total);

#endif
