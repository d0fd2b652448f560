#include "dashboard.h"
#include "actions.h"
#include "confirm.h"
#include "delivery_list.h"
#include "detail.h"
#include "lists.h"
#include "csrf.h"
#include "page.h"
#include "core/decode.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <string.h>
#include <strings.h>

/* The page's answer headers: nothing but its own stylesheet runs or
 * loads (no script at all), forms post only back here, no framing. */
static void security_headers(apr_table_t *t, const char *nonce)
{
    apr_table_setn(t, "Content-Security-Policy",
                   apr_pstrcat(apr_table_elts(t)->pool, "default-src 'none'; style-src 'nonce-",
                               nonce, "'; form-action 'self'; frame-ancestors 'none'; "
                               "base-uri 'none'", NULL));
    apr_table_setn(t, "X-Frame-Options", "DENY");
    apr_table_setn(t, "X-Content-Type-Options", "nosniff");
    apr_table_setn(t, "Referrer-Policy", "no-referrer");
}

static void refuse(trv_dash_out *out, apr_pool_t *p, const char *nonce, int status,
                   const char *title, const char *message)
{
    out->status = status;
    out->html = trv_dash_refusal(p, nonce, title, message);
}

/* The page's path goes into the cookie's Path and the Location of a
 * redirect: plain path characters only. */
static int plain_path(const char *path)
{
    const char *s;
    if (!path || path[0] != '/' || path[strlen(path) - 1] != '/') {
        return 0;
    }
    for (s = path; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')
              || strchr("/-_.~", *s))) {
            return 0;
        }
    }
    return 1;
}

static int is(const char *method, const char *m)
{
    return strcmp(method, m) == 0;
}

/* The login's grant: 1 with x->who set, else 0 with out refused (403
 * without a grant, 503 when the database does not answer). */
static int granted(const trv_dash_in *in, trv_dash_ctx *x, trv_dash_out *out,
                   const char *nonce)
{
    trv_req *req = in->req;
    apr_pool_t *p = req->pool;
    trv_dbc *c = NULL;
    apr_status_t rv = APR_EGENERAL;

    if (trv_db_open(req->env->db, p, &c) == APR_SUCCESS) {
        rv = trv_dash_lookup(c, p, in->login, &x->who);
    }
    if (rv == APR_EGENERAL) {
        trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                    TRVLOGNO(1600) "dashboard: looking up login %s failed: %s", in->login,
                    c && c->error ? c->error : TRV_DB_UNAVAILABLE);
    }
    if (c) {
        trv_db_close(req->env->db, c);
    }
    if (rv == APR_EGENERAL) {
        apr_table_setn(out->headers, "Retry-After", TRV_RETRY_AFTER_S);
        refuse(out, p, nonce, 503, "Unavailable", "The database does not answer; retry shortly.");
        return 0;
    }
    if (rv == APR_ENOENT) {
        trv_log_msg(&req->log, TRV_LOG_NOTICE, req->request_id,
                    TRVLOGNO(1603) "dashboard: login %s has no grant (travelctl dashboard "
                    "grant)", in->login);
        refuse(out, p, nonce, 403, "Forbidden",
               apr_pstrcat(p, "The login ", in->login, " is not granted the dashboard of "
                           "any organization.", NULL));
        return 0;
    }
    return 1;
}

/* A POST of one of the page's forms: its token first, then its action. */
static void post_form(const trv_dash_in *in, trv_dash_ctx *x, trv_dash_out *out,
                      const char *session)
{
    trv_req *req = in->req;
    apr_pool_t *p = req->pool;
    apr_table_t *form = apr_table_make(p, 8);
    trv_errs *errs = trv_errs_new(p);
    const char *ct = req->content_type, *done = NULL;
    trv_dash_notice notice;

    memset(&notice, 0, sizeof(notice));
    if (req->body && (!ct || strncasecmp(ct, "application/x-www-form-urlencoded", 33) != 0)) {
        refuse(out, p, x->style_nonce, 415, "Unsupported form",
               "The dashboard takes its own forms only.");
        return;
    }
    trv_query_decode(p, req->body, form, errs);
    if (!trv_dash_csrf_ok(p, req->env->cfg->secret_key, in->login, session,
                          apr_table_get(form, "csrf"))) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(1604) "dashboard: a POST of login %s without a valid form "
                    "token was refused", in->login);
        refuse(out, p, x->style_nonce, 403, "Forbidden",
               "This form is out of date or did not come from this dashboard; nothing "
               "was changed. Reload the page and try again.");
        return;
    }
    x->csrf = apr_table_get(form, "csrf");
    if (trv_errs_any(errs)) {
        notice.status = 400;
        notice.message = "The form could not be read; nothing was changed.";
    }
    else if (trv_dash_action(x, form, &notice, &done) == TRV_DASH_REDIRECT) {
        out->status = 303;
        apr_table_setn(out->headers, "Location",
                       notice.link ? apr_pstrcat(p, req->path, notice.link, NULL)
                                   : apr_pstrcat(p, req->path, "?done=", done, NULL));
        out->html = "";
        return;
    }
    out->status = notice.status ? notice.status : 200;
    out->html = trv_dash_page(x, &notice);
}

/* The page, with a new session cookie for a browser that has none. */
static void show_page(const trv_dash_in *in, trv_dash_ctx *x, trv_dash_out *out,
                      const char *session)
{
    trv_req *req = in->req;
    apr_pool_t *p = req->pool;
    const char *done;
    trv_dash_notice notice;

    memset(&notice, 0, sizeof(notice));
    if (!session) {
        /* The browser's session: a random value only this page's forms are
         * bound to (csrf.h). */
        if (!(session = trv_dash_session_new(p))) {
            out->status = 500;
            out->html = "";
            return;
        }
        apr_table_setn(out->headers, "Set-Cookie",
                       apr_pstrcat(p, TRV_DASH_COOKIE "=", session, "; Path=", req->path,
                                   "; HttpOnly; SameSite=Strict", in->secure ? "; Secure" : "",
                                   NULL));
    }
    x->csrf = trv_dash_csrf_token(p, req->env->cfg->secret_key, in->login, session);
    /* A list button that asks first (confirm.h): the question, not the
     * page. */
    if ((out->html = trv_dash_confirm_page(x, req->query))) {
        out->status = 200;
        return;
    }
    /* A booking's or a delivery's own page (detail.h). */
    if ((out->html = trv_dash_detail_page(x, req->query, &out->status))) {
        return;
    }
    /* A booking list with search, filters and pages (lists.h). */
    if ((out->html = trv_dash_list_page(x, req->query, &out->status))) {
        return;
    }
    if ((out->html = trv_dash_delivery_list_page(x, req->query, &out->status))) {
        return;
    }
    if ((done = apr_table_get(req->query, "done"))) {
        notice.status = 200;
        notice.message = trv_dash_done_message(done);
    }
    out->status = 200;
    out->html = trv_dash_page(x, &notice);
}

void trv_dash_handle(const trv_dash_in *in, trv_dash_out *out)
{
    trv_req *req = in->req;
    apr_pool_t *p = req->pool;
    const trv_config *cfg = req->env->cfg;
    const char *nonce = trv_random_token(p, 16), *session;
    trv_dash_ctx x;

    memset(&x, 0, sizeof(x));
    out->headers = apr_table_make(p, 8);
    out->html = NULL;
    if (!nonce) {
        out->status = 500;
        out->html = "";
        return;
    }
    security_headers(out->headers, nonce);
    if (!is(req->method, "GET") && !is(req->method, "POST")) {
        apr_table_setn(out->headers, "Allow", "GET, HEAD, POST");
        refuse(out, p, nonce, 405, "Method not allowed",
               "The dashboard answers GET and POST only.");
        return;
    }
    /* The page is the location itself (its path ends in '/'); its forms
     * post back to it. */
    if (req->decode_errs || !plain_path(req->path)) {
        refuse(out, p, nonce, 404, "Not found", "The dashboard is the page at its folder's path.");
        return;
    }
    if (!in->login || !*in->login) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(1601) "dashboard at %s: httpd authenticated nobody; the "
                    "location needs AuthType and Require (docs/dashboard.md)", req->path);
        refuse(out, p, nonce, 403, "Forbidden",
               "The dashboard is served only behind httpd authentication.");
        return;
    }
    if (!cfg || !cfg->have_secret_key) {
        trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                    TRVLOGNO(1602) "dashboard: no TravelSecretKeyFile, so its forms "
                    "cannot be protected; refusing to serve it");
        refuse(out, p, nonce, 503, "Unavailable",
               "The dashboard needs the module's secret key (TravelSecretKeyFile).");
        return;
    }
    if (!granted(in, &x, out, nonce)) {
        return;
    }
    x.req = req;
    x.api = in->api;
    x.style_nonce = nonce;
    session = trv_dash_session_of(p, apr_table_get(req->headers, "Cookie"));
    if (is(req->method, "POST")) {
        post_form(in, &x, out, session);
    }
    else {
        show_page(in, &x, out, session);
    }
}
