/* A page under construction. Everything that did not come from the
 * dashboard's own source text goes through trv_html_text / trv_html_attr,
 * which escape it: names, URLs, ids, supplier answers and API messages are
 * data, never markup. */
#ifndef TRV_DASHBOARD_HTML_H
#define TRV_DASHBOARD_HTML_H

#include <apr_pools.h>

typedef struct trv_html trv_html;

trv_html *trv_html_new(apr_pool_t *p);
/* Markup written by the dashboard itself (literal text of the source). */
void trv_html_raw(trv_html *h, const char *markup);
/* Text or an attribute value: & < > " ' escaped; NULL writes nothing. */
void trv_html_text(trv_html *h, const char *text);
/* Markup with %s holes, each filled with an escaped argument; "%%" is a
 * percent sign. The format is the dashboard's own text. */
void trv_html_fmt(trv_html *h, const char *markup, ...);
const char *trv_html_done(trv_html *h);

/* The escaped text of s, from p. */
char *trv_html_escape(apr_pool_t *p, const char *s);

#endif
