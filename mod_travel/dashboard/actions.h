/* The dashboard's buttons: each a POST of the page's form, carried out as
 * the login's user, only in the login's organization. */
#ifndef TRV_DASHBOARD_ACTIONS_H
#define TRV_DASHBOARD_ACTIONS_H

#include "context.h"

#include <apr_tables.h>

typedef enum {
    TRV_DASH_SHOW,      /* render the page with the notice (a secret, a failure) */
    TRV_DASH_REDIRECT   /* done: 303 back to the page, which says `done` */
} trv_dash_outcome;

/* Runs form's "action"; fills notice (TRV_DASH_SHOW) or *done, a word the
 * page turns into its own message (TRV_DASH_REDIRECT). */
trv_dash_outcome trv_dash_action(const trv_dash_ctx *x, apr_table_t *form,
                                 trv_dash_notice *notice, const char **done);
/* The message for a `done` word, NULL for one the dashboard never sends. */
const char *trv_dash_done_message(const char *done);

#endif
