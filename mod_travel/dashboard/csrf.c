#include "csrf.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
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
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int maclen = 0, i;
    /* purpose NUL login NUL session: no two (login, session) pairs make
     * the same message. */
    apr_size_t lp = sizeof(purpose), ll = strlen(login) + 1, ls = strlen(session);
    unsigned char *msg = apr_palloc(p, lp + ll + ls);
    char *out = apr_palloc(p, 64), *o = out;
    memcpy(msg, purpose, lp);
    memcpy(msg + lp, login, ll);
    memcpy(msg + lp + ll, session, ls);
    if (!HMAC(EVP_sha256(), key, 32, msg, lp + ll + ls, mac, &maclen)) {
        return NULL;
    }
    for (i = 0; i + 2 < maclen; i += 3) {
        unsigned v = (unsigned)mac[i] << 16 | (unsigned)mac[i + 1] << 8 | mac[i + 2];
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = b64[v >> 6 & 63];
        *o++ = b64[v & 63];
    }
    if (i < maclen) { /* 32 bytes: two left over */
        unsigned v = (unsigned)mac[i] << 16 | (unsigned)mac[i + 1] << 8;
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = b64[v >> 6 & 63];
    }
    *o = '\0';
    return out;
}

int trv_dash_csrf_ok(apr_pool_t *p, const unsigned char *key, const char *login,
                     const char *session, const char *token)
{
    const char *want;
    if (!login || !session || !token) {
        return 0;
    }
    want = trv_dash_csrf_token(p, key, login, session);
    return want && strlen(token) == strlen(want)
        && CRYPTO_memcmp(want, token, strlen(want)) == 0;
}
