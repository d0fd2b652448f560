/* Cross-site request forgery: every form of the dashboard carries a token,
 * HMAC-SHA256 under the module's secret key (TravelSecretKeyFile) of the
 * login and the browser's session nonce (a random value in a
 * SameSite=Strict, HttpOnly cookie). A POST is carried out only when its
 * token is the one for this login and this cookie: a page of another site
 * can neither read the token nor make the browser send the cookie, and a
 * token seen by one login is worth nothing to another. */
#ifndef TRV_DASHBOARD_CSRF_H
#define TRV_DASHBOARD_CSRF_H

#include <apr_pools.h>

#define TRV_DASH_COOKIE "trv_dashboard_session"

/* A fresh session nonce (random, [A-Za-z0-9]); NULL when the CSPRNG fails. */
const char *trv_dash_session_new(apr_pool_t *p);
/* The session nonce in a Cookie header, NULL when absent or malformed. */
const char *trv_dash_session_of(apr_pool_t *p, const char *cookie_header);
/* The token for (login, session) under the 32-byte key, base64url. */
const char *trv_dash_csrf_token(apr_pool_t *p, const unsigned char *key,
                                const char *login, const char *session);
/* 1 when token is the one for (login, session); constant time. */
int trv_dash_csrf_ok(apr_pool_t *p, const unsigned char *key, const char *login,
                     const char *session, const char *token);

#endif
