#include "html.h"

#include <stdarg.h>
#include <string.h>

struct trv_html {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, cap;
};

trv_html *trv_html_new(apr_pool_t *p)
{
    trv_html *h = apr_pcalloc(p, sizeof(*h));
    h->p = p;
    h->cap = 16384;
    h->buf = apr_palloc(p, h->cap);
    h->buf[0] = '\0';
    return h;
}

static void put(trv_html *h, const char *s, apr_size_t n)
{
    if (h->len + n + 1 > h->cap) {
        apr_size_t cap = (h->len + n + 1) * 2;
        char *nb = apr_palloc(h->p, cap);
        memcpy(nb, h->buf, h->len);
        h->buf = nb;
        h->cap = cap;
    }
    memcpy(h->buf + h->len, s, n);
    h->len += n;
    h->buf[h->len] = '\0';
}

void trv_html_raw(trv_html *h, const char *markup)
{
    put(h, markup, strlen(markup));
}

void trv_html_text(trv_html *h, const char *text)
{
    const char *s, *run;
    if (!text) {
        return;
    }
    for (s = run = text; *s; s++) {
        const char *rep;
        switch (*s) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: continue;
        }
        put(h, run, (apr_size_t)(s - run));
        put(h, rep, strlen(rep));
        run = s + 1;
    }
    put(h, run, (apr_size_t)(s - run));
}

void trv_html_fmt(trv_html *h, const char *markup, ...)
{
    va_list ap;
    const char *s = markup, *run = markup;
    va_start(ap, markup);
    while (*s) {
        if (s[0] == '%' && (s[1] == 's' || s[1] == '%')) {
            put(h, run, (apr_size_t)(s - run));
            if (s[1] == 's') {
                trv_html_text(h, va_arg(ap, const char *));
            }
            else {
                put(h, "%", 1);
            }
            s += 2;
            run = s;
            continue;
        }
        s++;
    }
    put(h, run, (apr_size_t)(s - run));
    va_end(ap);
}

const char *trv_html_done(trv_html *h)
{
    return h->buf;
}

char *trv_html_escape(apr_pool_t *p, const char *s)
{
    trv_html *h = trv_html_new(p);
    trv_html_text(h, s);
    return h->buf;
}
