#include "utf8.h"

#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len, i;
    unsigned cp;
    if (c < 0x80) {
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    }
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    }
    else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    }
    else {
        return 0;
    }
    if (n < len) {
        return 0;
    }
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF
        || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    return len;
}

int trv_utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, k;
    while (i < len) {
        if (!(k = utf8_seq(u + i, len - i))) {
            return 0;
        }
        i += k;
    }
    return 1;
}

const char *trv_utf8_clean(apr_pool_t *p, const char *s)
{
    size_t len, i = 0, o = 0, k;
    const unsigned char *u = (const unsigned char *)s;
    char *out;
    if (!s) {
        return NULL;
    }
    len = strlen(s);
    if (trv_utf8_valid(s, len)) {
        return s;
    }
    out = apr_palloc(p, len * 3 + 1);
    while (i < len) {
        if ((k = utf8_seq(u + i, len - i))) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
        else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}
