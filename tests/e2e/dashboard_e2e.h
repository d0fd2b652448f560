/* Shared by the dashboard e2e tests: a login in the stack's htpasswd file
 * (the one conf/stack.conf.in's /dashboard/ location reads), its grant,
 * and a browser-like session: Basic authentication, the session cookie
 * and the form token read from the page. */
#ifndef TRV_TEST_DASHBOARD_E2E_H
#define TRV_TEST_DASHBOARD_E2E_H

#include "e2e.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DASH_FN static __attribute__((unused))
#define DASH_PATH "/dashboard/"

typedef struct dash_session {
    char auth[1024];    /* "Authorization: Basic ..." */
    char cookie[256];   /* "Cookie: trv_dashboard_session=..." or "" */
    char csrf[128];     /* the page's form token */
} dash_session;

/* Runs a shell command; its exit status (-1 when it could not run). */
DASH_FN int dash_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
DASH_FN int dash_sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    int st;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    st = system(cmd);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* A unique login name with the given stem. */
DASH_FN void dash_login_name(char *out, size_t n, const char *stem)
{
    static int seq;
    snprintf(out, n, "%s-%d-%ld-%d", stem, (int)getpid(), e2e_now_ms() % 100000000L, ++seq);
}

/* Adds (or updates) a login in the stack's htpasswd file. */
DASH_FN void dash_htpasswd(const char *login, const char *password)
{
    if (dash_sh("htpasswd -b '%s/dashboard.htpasswd' '%s' '%s' >/dev/null 2>&1",
                e2e_env("TRAVEL_TEST_DIR"), login, password) != 0) {
        fail_msg("htpasswd could not add %s", login);
    }
}

/* travelctl dashboard grant; fails the test when it fails. */
DASH_FN void dash_grant(const char *org_id, const char *login)
{
    char *out = e2e_travelctl("dashboard grant --org %s --login '%s'", org_id, login);
    if (!out) {
        fail_msg("travelctl dashboard grant --org %s --login %s failed", org_id, login);
    }
    free(out);
}

DASH_FN void dash_basic(dash_session *s, const char *login, const char *password)
{
    char plain[512];
    unsigned char enc[700];
    int n = snprintf(plain, sizeof(plain), "%s:%s", login, password);
    EVP_EncodeBlock(enc, (const unsigned char *)plain, n);
    snprintf(s->auth, sizeof(s->auth), "Authorization: Basic %s", (const char *)enc);
}

/* GET of a dashboard path with the session's credentials and cookie. */
DASH_FN e2e_resp *dash_get(const dash_session *s, const char *path)
{
    const char *h[3] = {s->auth, s->cookie[0] ? s->cookie : NULL, NULL};
    return e2e_call(e2e_url(), "GET", path, h, NULL);
}

/* POST of a form (already urlencoded) to the page. */
DASH_FN e2e_resp *dash_post(const dash_session *s, const char *form)
{
    const char *h[4] = {s->auth, "Content-Type: application/x-www-form-urlencoded",
                        s->cookie[0] ? s->cookie : NULL, NULL};
    return e2e_call(e2e_url(), "POST", DASH_PATH, h, form);
}

/* The value of attribute `attr` (e.g. `name="csrf" value="`) up to the
 * next quote, after the first occurrence of `after` (NULL: the start). */
DASH_FN int dash_attr(const char *html, const char *after, const char *lead, char *out,
                      size_t n)
{
    const char *s = after ? strstr(html, after) : html, *e;
    if (!s || !(s = strstr(s, lead))) {
        return 0;
    }
    s += strlen(lead);
    if (!(e = strchr(s, '"')) || (size_t)(e - s) >= n) {
        return 0;
    }
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    return 1;
}

/* Opens the page as a browser would: takes the session cookie it sets and
 * the form token it carries. Fails the test unless the page is served. */
DASH_FN void dash_open(dash_session *s, const char *login, const char *password)
{
    e2e_resp *r;
    char *cookie, *semi;
    memset(s, 0, sizeof(*s));
    dash_basic(s, login, password);
    r = dash_get(s, DASH_PATH);
    if (r->status != 200) {
        fail_msg("GET %s as %s: %ld %s", DASH_PATH, login, r->status, r->body);
    }
    cookie = e2e_header(r, "Set-Cookie");
    assert_non_null(cookie);
    semi = strchr(cookie, ';');
    if (semi) {
        *semi = '\0';
    }
    snprintf(s->cookie, sizeof(s->cookie), "Cookie: %s", cookie);
    free(cookie);
    assert_true(dash_attr(r->body, NULL, "name=\"csrf\" value=\"", s->csrf, sizeof(s->csrf)));
    e2e_free(r);
}

/* The key shown once after "Create key" (malloc'd), or NULL. */
DASH_FN char *dash_secret(const char *html)
{
    const char *s = strstr(html, "<code data-secret>"), *e;
    if (!s) {
        return NULL;
    }
    s += strlen("<code data-secret>");
    e = strchr(s, '<');
    return e ? strndup(s, (size_t)(e - s)) : NULL;
}

#endif
