/* A booking list on a page of its own (?list=flight-bookings or
 * ?list=hotel-bookings): a search box where the kind has one, filters by
 * status, supplier and creation dates, and pages of TRV_DASH_LIST_PAGE
 * (`limit` 1..100 otherwise) with Previous / Next. The form is a GET of the page: a list's address
 * can be bookmarked and shared, and nothing changes. */
#ifndef TRV_DASHBOARD_LISTS_H
#define TRV_DASHBOARD_LISTS_H

#include "context.h"

#include <apr_tables.h>

#define TRV_DASH_LIST_PAGE 25

/* The list page the query asks for, or NULL when it asks for none; *status
 * is 200, 404 (no such list), 422 (a filter it cannot read; the form says
 * which) or 503. */
const char *trv_dash_list_page(const trv_dash_ctx *x, apr_table_t *query, int *status);

#endif
