/* The exact money parser (trv_money_parse_number): a JSON number's text
 * read digit by digit into minor units, and the request path that finds a
 * body's number text again (core/json_numbers.h). Input: one byte choosing
 * the currency, then the text. Beyond not crashing:
 *  - accepted text is a JSON number (Jansson reads it as one);
 *  - it agrees with the decimal parser on the same amount written without
 *    an exponent (the point moved by hand here), accepted or refused alike,
 *    to the same minor units;
 *  - an accepted amount prints back (trv_money_decimal) and reads again
 *    as itself;
 *  - in a request body {"amount": <text>} the reader sees exactly what the
 *    parser sees, however many digits a double would drop. */
#include "fuzz.h"

#include "core/json.h"
#include "core/json_numbers.h"
#include "core/money.h"

static const char *const currencies[] = {"EUR", "JPY", "KWD", "CLF", "USD", "BHD",
                                         "UYW", "XXX"};

static const char *zeros(apr_pool_t *p, long k)
{
    char *z = apr_pcalloc(p, (apr_size_t)k + 1);
    memset(z, '0', (size_t)k);
    return z;
}

/* The number's plain decimal (no exponent), or NULL when the text is not a
 * number with an exponent of at most 60 either way. */
static const char *plain_decimal(apr_pool_t *p, const char *text)
{
    const char *s = text, *e;
    char *digits = apr_pcalloc(p, strlen(text) + 1);
    long n = 0, n_int = -1, exp10 = 0, point;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            n_int = n;
        }
        else if (*s >= '0' && *s <= '9') {
            digits[n++] = *s;
        }
        else {
            return NULL;
        }
    }
    if (n_int < 0) {
        n_int = n;
    }
    if (*s) {
        char *end;
        e = s + 1;
        exp10 = strtol(e, &end, 10);
        if (*end || end == e || exp10 > 60 || exp10 < -60) {
            return NULL;
        }
    }
    point = n_int + exp10;
    if (point <= 0) {
        return apr_pstrcat(p, neg ? "-" : "", "0.", zeros(p, -point), digits, NULL);
    }
    if (point >= n) {
        return apr_pstrcat(p, neg ? "-" : "", digits, zeros(p, point - n), NULL);
    }
    return apr_psprintf(p, "%s%.*s.%s", neg ? "-" : "", (int)point, digits, digits + point);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    const char *cur, *text, *plain, *body;
    apr_int64_t minor = 0, again = 0, other = 0;
    int exponent, ok, is_number;
    json_t *doc, *num;
    trv_money m;

    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    cur = currencies[data[0] % (sizeof(currencies) / sizeof(currencies[0]))];
    exponent = trv_currency_exponent(cur);
    text = fz_str(p, data + 1, size - 1);

    ok = trv_money_parse_number(text, exponent, &minor) == APR_SUCCESS;
    doc = json_loads(text, JSON_DECODE_ANY, NULL);
    if (ok) {
        FZ_ASSERT(exponent >= 0);
        FZ_ASSERT(minor <= TRV_MONEY_MAX_MINOR && minor >= -TRV_MONEY_MAX_MINOR);
        FZ_ASSERT(doc && json_is_number(doc));
        FZ_ASSERT(trv_money_parse_number(trv_money_decimal(p, minor, exponent), exponent,
                                         &again) == APR_SUCCESS);
        FZ_ASSERT(again == minor);
    }
    /* Where Jansson reads a number, the decimal parser is the oracle. */
    if (doc && json_is_number(doc) && exponent >= 0 && (plain = plain_decimal(p, text))) {
        int dec_ok = trv_money_parse_decimal(plain, exponent, &other) == APR_SUCCESS;
        FZ_ASSERT(dec_ok == ok);
        FZ_ASSERT(!ok || other == minor);
    }
    /* The text alone is one number (Jansson allows white space around it,
     * the parser does not). */
    is_number = doc && json_is_number(doc) && text[strcspn(text, " \t\r\n")] == '\0';
    json_decref(doc);

    /* The same text as a request body's amount. */
    if (exponent >= 0 && is_number) {
        body = apr_psprintf(p, "{\"amount\": %s}", text);
        doc = trv_json_parse(p, body, strlen(body), NULL);
        num = doc ? json_object_get(doc, "amount") : NULL;
        if (num && json_is_number(num)) {
            trv_json_numbers_keep(p, doc, body, strlen(body));
            if (json_is_real(num)) {
                FZ_ASSERT(trv_json_numbers_text(p, num) != NULL);
            }
            FZ_ASSERT((trv_money_from_request(p, num, cur, &m) == APR_SUCCESS) == ok);
            FZ_ASSERT(!ok || m.minor == minor);
        }
    }
    fz_end(p);
    return 0;
}
