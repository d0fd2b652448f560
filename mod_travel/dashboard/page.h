/* The dashboard page: the organization's API keys, bookings and webhook
 * subscriptions with their deliveries, each with its buttons. */
#ifndef TRV_DASHBOARD_PAGE_H
#define TRV_DASHBOARD_PAGE_H

#include "context.h"
#include "html.h"

/* The whole page, with the notice (may be NULL) on top. */
const char *trv_dash_page(const trv_dash_ctx *x, const trv_dash_notice *notice);
/* A short page that only says why (403, 404, 503): no data, no forms. */
const char *trv_dash_refusal(apr_pool_t *p, const char *style_nonce, const char *title,
                             const char *message);
/* The document's head (viewport, the one stylesheet under the CSP nonce)
 * and the opening of its body. */
void trv_dash_head(trv_html *h, const char *nonce, const char *title);
/* Opens a form posting `action` back to the page, with the CSRF token. */
void trv_dash_form(trv_html *h, const trv_dash_ctx *x, const char *action);
/* The opening of a list button that asks first (confirm.h): a GET form
 * naming the action; the caller adds the id inputs (trv_dash_hidden) and
 * the button. */
void trv_dash_ask_form(trv_html *h, const char *action);
/* A hidden input. */
void trv_dash_hidden(trv_html *h, const char *name, const char *value);

/* A subscription's deliveries as the API lists them (query: its limit,
 * offset, status), each with its link and Replay; returns the API's
 * status (200, or the failure said on the page), *has_more its paging. */
int trv_dash_deliveries_table(const trv_dash_ctx *x, trv_html *h, const char *family,
                              const char *sub_id, const char *query, int *has_more);

#endif
