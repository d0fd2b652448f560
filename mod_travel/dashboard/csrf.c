#include "csrf.h"
#include "core/crypt.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <string.h>

#define SESSION_MIN 32
#define SESSION_MAX 100

const char *trv_dash_session_new(apr_pool_t *p)
{
    return trv_random_token(p, 32);
}

static int session_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

const char *trv_dash_session_of(apr_pool_t *p, const char *cookie_header)
{
    static const char name[] = TRV_DASH_COOKIE "=";
    const char *s = cookie_header;
    while (s && *s) {
        while (*s == ' ' || *s == ';') {
            s++;
        }
        if (strncmp(s, name, sizeof(name) - 1) == 0) {
            const char *v = s + sizeof(name) - 1, *e = v;
            while (session_char(*e)) {
                e++;
            }
            if ((*e == '\0' || *e == ';' || *e == ' ') && e - v >= SESSION_MIN
                && e - v <= SESSION_MAX) {
                return apr_pstrndup(p, v, (apr_size_t)(e - v));
            }
            return NULL;
        }
        s = strchr(s, ';');
    }
    return NULL;
}

const char *trv_dash_csrf_token(apr_pool_t *p, const unsigned char *key,
                                const char *login, const char *session)
{
    static const char purpose[] = "mod_travel dashboard form";
    unsigned char mac[TRV_CRYPT_SHA256_LEN];
    /* purpose NUL login NUL session: no two (login, session) pairs make
     * the same message. */
    const void *parts[3] = {purpose, login, session};
    apr_size_t lens[3] = {sizeof(purpose), strlen(login) + 1, strlen(session)};
    if (trv_crypt_hmac_parts(key, 32, 3, parts, lens, mac) != 0) {
        return NULL;
    }
    return trv_crypt_b64url(p, mac, sizeof(mac));
}

int trv_dash_csrf_ok(apr_pool_t *p, const unsigned char *key, const char *login,
                     const char *session, const char *token)
{
    const char *want;
    if (!login || !session || !token) {
        return 0;
    }
    want = trv_dash_csrf_token(p, key, login, session);
    return want && strlen(token) == strlen(want) && trv_crypt_equal(want, token, strlen(want));
}
