/* Confirmation before a change that cannot be taken back or that stops
 * deliveries: Revoke (a key), Pause and Rotate secret (a subscription).
 * The list's button is a GET of the page with `confirm=<action>` and the
 * ids; the answer is a short page that says what will happen, with the
 * real POST form (its button labelled as the list's) and a way back. A GET
 * never changes anything, so the step needs no script (the page runs
 * none) and a direct POST of the form still works as before. */
#ifndef TRV_DASHBOARD_CONFIRM_H
#define TRV_DASHBOARD_CONFIRM_H

#include "context.h"
#include "html.h"

#include <apr_tables.h>

/* The confirmation page the query asks for, or NULL when it asks for none
 * (no `confirm`); a query naming an unknown action or malformed ids gets a
 * page that says so, with no form. */
const char *trv_dash_confirm_page(const trv_dash_ctx *x, apr_table_t *query);

#endif
