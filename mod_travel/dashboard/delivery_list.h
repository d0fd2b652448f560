/* A subscription's deliveries on a page of their own
 * (?deliveries=whs_...&family=flight): every delivery, newest first, a
 * status filter and pages of TRV_DASH_DELIVERY_PAGE with Previous / Next,
 * each linking to its page, with Replay. Read through the API (its
 * organization scope: another organization's subscription is 404). */
#ifndef TRV_DASHBOARD_DELIVERY_LIST_H
#define TRV_DASHBOARD_DELIVERY_LIST_H

#include "context.h"

#include <apr_tables.h>

#define TRV_DASH_DELIVERY_PAGE 25

/* The page the query asks for, or NULL when it asks for none; *status is
 * 200, 404 or 422 (a filter it cannot read). */
const char *trv_dash_delivery_list_page(const trv_dash_ctx *x, apr_table_t *query,
                                        int *status);

#endif
