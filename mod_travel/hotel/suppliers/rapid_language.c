/* Accept-Language onto Rapid's languages (rapid_language.h). */
#include "rapid_language.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Rapid's languages, each language's own country first where it has two
 * (es-ES before es-MX, fr-FR before fr-CA, pt-PT before pt-BR). */
static const char *const languages[] = {
    "ar-SA", "cs-CZ", "da-DK", "de-DE", "el-GR", "en-US", "es-ES", "es-MX", "fi-FI", "fr-FR",
    "fr-CA", "hr-HR", "hu-HU", "id-ID", "is-IS", "it-IT", "ja-JP", "lt-LT", "ko-KR", "ms-MY",
    "nb-NO", "nl-NL", "pl-PL", "pt-PT", "pt-BR", "ru-RU", "sk-SK", "sv-SE", "th-TH", "tr-TR",
    "uk-UA", "vi-VN", "zh-CN", "zh-TW", NULL};

/* The preference ranges read: more are not weighed. */
#define MAX_RANGES 16
#define MAX_TAG 35

typedef struct range {
    char tag[MAX_TAG + 1];
    int q;        /* 0..1000 */
    int order;
} range;

/* A qvalue (RFC 9110 12.4.2) in thousandths; a malformed one is 0 (not
 * acceptable: the range is skipped). */
static int qvalue(const char *s, size_t n)
{
    int v = 0, scale = 1000;
    size_t i = 0;
    if (n == 0 || (s[0] != '0' && s[0] != '1')) {
        return 0;
    }
    v = (s[0] - '0') * 1000;
    if (n > 1 && s[1] != '.') {
        return 0;
    }
    for (i = 2; i < n && i < 5; i++) {
        if (!isdigit((unsigned char)s[i])) {
            return 0;
        }
        scale /= 10;
        v += (s[i] - '0') * scale;
    }
    return i < n || v > 1000 ? 0 : v;
}

/* The header's ranges, by preference: q descending, then as written. */
static int cmp(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->q != y->q ? y->q - x->q : x->order - y->order;
}

static int ranges_of(const char *h, range *out)
{
    int n = 0, order = 0;
    while (*h && n < MAX_RANGES) {
        size_t len = strcspn(h, ","), t;
        const char *stop = h + len, *semi = memchr(h, ';', len);
        const char *b = h, *e = semi ? semi : stop;
        range *r = &out[n];
        while (b < e && isspace((unsigned char)*b)) {
            b++;
        }
        while (e > b && isspace((unsigned char)e[-1])) {
            e--;
        }
        r->q = 1000;
        r->order = order++;
        if (semi) {
            const char *p = semi + 1, *qe = stop;
            while (p < qe && isspace((unsigned char)*p)) {
                p++;
            }
            while (qe > p && isspace((unsigned char)qe[-1])) {
                qe--;
            }
            r->q = qe - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '='
                       ? qvalue(p + 2, (size_t)(qe - p - 2)) : 0;
        }
        t = (size_t)(e - b);
        if (t > 0 && t <= MAX_TAG && r->q > 0 && !(t == 1 && *b == '*')) {
            memcpy(r->tag, b, t);
            r->tag[t] = '\0';
            n++;
        }
        h = *stop ? stop + 1 : stop;
    }
    return n;
}

/* The primary language subtag of tag in lower case ("" when it is not
 * two or three letters). */
static void primary(const char *tag, char out[4])
{
    size_t i;
    for (i = 0; i < 3 && isalpha((unsigned char)tag[i]); i++) {
        out[i] = (char)tolower((unsigned char)tag[i]);
    }
    out[i] = '\0';
    if (isalpha((unsigned char)tag[i])) {
        out[0] = '\0';
    }
}

/* 1 when tag has the subtag sub (any case) after its first. */
static int has_subtag(const char *tag, const char *sub)
{
    size_t n = strlen(sub);
    const char *p = strchr(tag, '-');
    while (p) {
        if (strncasecmp(p + 1, sub, n) == 0 && (p[1 + n] == '-' || !p[1 + n])) {
            return 1;
        }
        p = strchr(p + 1, '-');
    }
    return 0;
}

static const char *one(const char *tag)
{
    const char *const *k;
    char lang[4];
    if (strlen(tag) == 5) {
        for (k = languages; *k; k++) {
            if (strcasecmp(*k, tag) == 0) {
                return *k;
            }
        }
    }
    primary(tag, lang);
    if (strcmp(lang, "zh") == 0) {
        return has_subtag(tag, "Hant") || has_subtag(tag, "HK") || has_subtag(tag, "MO")
                   || has_subtag(tag, "TW") ? "zh-TW" : "zh-CN";
    }
    if (strcmp(lang, "no") == 0 || strcmp(lang, "nn") == 0) {
        return "nb-NO";
    }
    for (k = languages; strlen(lang) == 2 && *k; k++) {
        if (strncmp(*k, lang, 2) == 0) {
            return *k;
        }
    }
    return NULL;
}

const char *trv_rapid_language(const char *accept_language)
{
    range r[MAX_RANGES];
    int n, i;
    if (!accept_language) {
        return TRV_RAPID_LANGUAGE_DEFAULT;
    }
    n = ranges_of(accept_language, r);
    qsort(r, (size_t)n, sizeof(r[0]), cmp);
    for (i = 0; i < n; i++) {
        const char *l = one(r[i].tag);
        if (l) {
            return l;
        }
    }
    return TRV_RAPID_LANGUAGE_DEFAULT;
}
