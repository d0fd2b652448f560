#include "money.h"
#include "json_text.h"
#include "jval.h"
#include "json_numbers.h"

#include <apr_strings.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Active ISO 4217 codes and their exponents (minor units). */
static const struct { const char code[4]; int exponent; } currencies[] = {
    {"AED", 2}, {"AFN", 2}, {"ALL", 2}, {"AMD", 2}, {"ANG", 2}, {"AOA", 2},
    {"ARS", 2}, {"AUD", 2}, {"AWG", 2}, {"AZN", 2}, {"BAM", 2}, {"BBD", 2},
    {"BDT", 2}, {"BGN", 2}, {"BHD", 3}, {"BIF", 0}, {"BMD", 2}, {"BND", 2},
    {"BOB", 2}, {"BRL", 2}, {"BSD", 2}, {"BTN", 2}, {"BWP", 2}, {"BYN", 2},
    {"BZD", 2}, {"CAD", 2}, {"CDF", 2}, {"CHF", 2}, {"CLF", 4}, {"CLP", 0},
    {"CNY", 2}, {"COP", 2}, {"CRC", 2}, {"CUP", 2}, {"CVE", 2}, {"CZK", 2},
    {"DJF", 0}, {"DKK", 2}, {"DOP", 2}, {"DZD", 2}, {"EGP", 2}, {"ERN", 2},
    {"ETB", 2}, {"EUR", 2}, {"FJD", 2}, {"FKP", 2}, {"GBP", 2}, {"GEL", 2},
    {"GHS", 2}, {"GIP", 2}, {"GMD", 2}, {"GNF", 0}, {"GTQ", 2}, {"GYD", 2},
    {"HKD", 2}, {"HNL", 2}, {"HTG", 2}, {"HUF", 2}, {"IDR", 2}, {"ILS", 2},
    {"INR", 2}, {"IQD", 3}, {"IRR", 2}, {"ISK", 0}, {"JMD", 2}, {"JOD", 3},
    {"JPY", 0}, {"KES", 2}, {"KGS", 2}, {"KHR", 2}, {"KMF", 0}, {"KPW", 2},
    {"KRW", 0}, {"KWD", 3}, {"KYD", 2}, {"KZT", 2}, {"LAK", 2}, {"LBP", 2},
    {"LKR", 2}, {"LRD", 2}, {"LSL", 2}, {"LYD", 3}, {"MAD", 2}, {"MDL", 2},
    {"MGA", 2}, {"MKD", 2}, {"MMK", 2}, {"MNT", 2}, {"MOP", 2}, {"MRU", 2},
    {"MUR", 2}, {"MVR", 2}, {"MWK", 2}, {"MXN", 2}, {"MYR", 2}, {"MZN", 2},
    {"NAD", 2}, {"NGN", 2}, {"NIO", 2}, {"NOK", 2}, {"NPR", 2}, {"NZD", 2},
    {"OMR", 3}, {"PAB", 2}, {"PEN", 2}, {"PGK", 2}, {"PHP", 2}, {"PKR", 2},
    {"PLN", 2}, {"PYG", 0}, {"QAR", 2}, {"RON", 2}, {"RSD", 2}, {"RUB", 2},
    {"RWF", 0}, {"SAR", 2}, {"SBD", 2}, {"SCR", 2}, {"SDG", 2}, {"SEK", 2},
    {"SGD", 2}, {"SHP", 2}, {"SLE", 2}, {"SOS", 2}, {"SRD", 2}, {"SSP", 2},
    {"STN", 2}, {"SVC", 2}, {"SYP", 2}, {"SZL", 2}, {"THB", 2}, {"TJS", 2},
    {"TMT", 2}, {"TND", 3}, {"TOP", 2}, {"TRY", 2}, {"TTD", 2}, {"TWD", 2},
    {"TZS", 2}, {"UAH", 2}, {"UGX", 0}, {"USD", 2}, {"UYI", 0}, {"UYU", 2},
    {"UYW", 4}, {"UZS", 2}, {"VED", 2}, {"VES", 2}, {"VND", 0}, {"VUV", 0},
    {"WST", 2}, {"XAF", 0}, {"XCD", 2}, {"XOF", 0}, {"XPF", 0}, {"YER", 2},
    {"ZAR", 2}, {"ZMW", 2}, {"ZWG", 2},
};

/* The code's three bytes as one number in their order, to compare whole. */
static apr_uint32_t code_key(const char *c)
{
    return (apr_uint32_t)(unsigned char)c[0] << 16 | (apr_uint32_t)(unsigned char)c[1] << 8
           | (unsigned char)c[2];
}

/* Called for every amount an answer shows: three bytes compared as one
 * number rather than strlen and strcmp at each step. */
int trv_currency_exponent(const char *code)
{
    size_t lo = 0, hi = sizeof(currencies) / sizeof(currencies[0]);
    apr_uint32_t key;
    if (!code || !code[0] || !code[1] || !code[2] || code[3]) {
        return -1;
    }
    key = code_key(code);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        apr_uint32_t k = code_key(currencies[mid].code);
        int c = key < k ? -1 : key > k;
        if (c == 0) {
            return currencies[mid].exponent;
        }
        if (c < 0) {
            hi = mid;
        }
        else {
            lo = mid + 1;
        }
    }
    return -1;
}

static apr_int64_t pow10i(int e)
{
    apr_int64_t v = 1;
    while (e-- > 0) {
        v *= 10;
    }
    return v;
}

/* Shortest exact decimal of minor / 10^exponent into buf (>= 48 bytes). */
static void format_decimal(char *buf, apr_size_t size, apr_int64_t minor, int exponent)
{
    apr_uint64_t mag = minor < 0 ? (apr_uint64_t)0 - (apr_uint64_t)minor
                                 : (apr_uint64_t)minor;
    apr_uint64_t scale = (apr_uint64_t)pow10i(exponent);
    apr_uint64_t whole = mag / scale, frac = mag % scale;
    int len = snprintf(buf, size, "%s%" APR_UINT64_T_FMT, minor < 0 ? "-" : "", whole);
    if (frac && exponent > 0 && exponent <= 4) {
        char f[8];
        int flen = exponent, k;
        for (k = exponent - 1; k >= 0; k--) {
            f[k] = (char)('0' + frac % 10);
            frac /= 10;
        }
        while (flen > 0 && f[flen - 1] == '0') {
            flen--;
        }
        snprintf(buf + len, size - (apr_size_t)len, ".%.*s", flen, f);
    }
}

char *trv_money_decimal(apr_pool_t *p, apr_int64_t minor, int exponent)
{
    char buf[48];
    format_decimal(buf, sizeof(buf), minor, exponent);
    return apr_pstrdup(p, buf);
}

apr_status_t trv_money_parse_decimal(const char *s, int exponent,
                                     apr_int64_t *minor)
{
    int neg = 0, digits = 0, frac_digits = 0, seen_point = 0;
    apr_int64_t v = 0;

    if (!s || exponent < 0) {
        return APR_EINVAL;
    }
    if (*s == '-' || *s == '+') {
        neg = (*s == '-');
        s++;
    }
    for (; *s; s++) {
        if (*s == '.') {
            if (seen_point) {
                return APR_EINVAL;
            }
            seen_point = 1;
            continue;
        }
        if (!isdigit((unsigned char)*s)) {
            return APR_EINVAL;
        }
        if (seen_point) {
            if (++frac_digits > exponent) {
                /* Trailing zeros beyond the exponent are harmless ("1.50" JPY is not). */
                if (*s != '0') {
                    return APR_EINVAL;
                }
                continue;
            }
        }
        digits++;
        if (v > TRV_MONEY_MAX_MINOR / 10) {
            return APR_EINVAL;
        }
        v = v * 10 + (*s - '0');
    }
    if (digits == 0) {
        return APR_EINVAL;
    }
    if (frac_digits < exponent) {
        apr_int64_t scale = pow10i(exponent - frac_digits);
        if (v > TRV_MONEY_MAX_MINOR / scale) {
            return APR_EINVAL;
        }
        v *= scale;
    }
    if (v > TRV_MONEY_MAX_MINOR) {
        return APR_EINVAL;
    }
    *minor = neg ? -v : v;
    return APR_SUCCESS;
}

/* Exponents beyond this are clamped: with at most 15 significant digits an
 * amount is out of range long before, and the sums below cannot overflow. */
#define EXP_CLAMP 1000000000LL

/* Digit k of the number's digits with the point taken out: the integer
 * part's n_int digits, then the fraction's. */
static char digit_at(const char *int_part, long long n_int, const char *frac, long long k)
{
    return k < n_int ? int_part[k] : frac[k - n_int];
}

apr_status_t trv_money_parse_number(const char *text, int exponent, apr_int64_t *minor)
{
    const char *s = text, *int_part, *frac = "";
    long long n_int, n_frac = 0, n, exp10 = 0, first = -1, last = -1, k, e;
    int neg = 0;
    apr_int64_t v = 0;

    if (!s || exponent < 0) {
        return APR_EINVAL;
    }
    if (*s == '-') {
        neg = 1;
        s++;
    }
    /* JSON's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
    int_part = s;
    if (*s == '0') {
        s++;
    }
    else if (*s >= '1' && *s <= '9') {
        while (*s >= '0' && *s <= '9') {
            s++;
        }
    }
    else {
        return APR_EINVAL;
    }
    n_int = s - int_part;
    if (*s == '.') {
        frac = ++s;
        while (*s >= '0' && *s <= '9') {
            s++;
        }
        n_frac = s - frac;
        if (n_frac == 0) {
            return APR_EINVAL;
        }
    }
    if (*s == 'e' || *s == 'E') {
        int eneg = 0;
        s++;
        if (*s == '+' || *s == '-') {
            eneg = *s == '-';
            s++;
        }
        if (!(*s >= '0' && *s <= '9')) {
            return APR_EINVAL;
        }
        while (*s >= '0' && *s <= '9') {
            if (exp10 < EXP_CLAMP) {
                exp10 = exp10 * 10 + (*s - '0');
            }
            s++;
        }
        if (eneg) {
            exp10 = -exp10;
        }
    }
    if (*s) {
        return APR_EINVAL;
    }
    /* The value is digits * 10^(exp10 - n_frac): only the digits from the
     * first to the last that is not zero count; the zeros after the last
     * one move the exponent. */
    n = n_int + n_frac;
    for (k = 0; k < n; k++) {
        if (digit_at(int_part, n_int, frac, k) != '0') {
            if (first < 0) {
                first = k;
            }
            last = k;
        }
    }
    if (first < 0) {
        *minor = 0; /* every digit is zero, whatever the exponent */
        return APR_SUCCESS;
    }
    e = exp10 - n_frac + (n - 1 - last) + exponent;
    if (e < 0) {
        return APR_EINVAL; /* a digit that is not zero beyond the minor units */
    }
    if (last - first + 1 + e > 15) {
        return APR_EINVAL; /* beyond TRV_MONEY_MAX_MINOR's 15 digits */
    }
    for (k = first; k <= last; k++) {
        v = v * 10 + (digit_at(int_part, n_int, frac, k) - '0');
    }
    v *= pow10i((int)e);
    if (v > TRV_MONEY_MAX_MINOR) {
        return APR_EINVAL;
    }
    *minor = neg ? -v : v;
    return APR_SUCCESS;
}

apr_status_t trv_money_from_request(apr_pool_t *p, const json_t *num, const char *currency,
                                    trv_money *out)
{
    int exponent = trv_currency_exponent(currency);
    const char *text = trv_json_numbers_text(p, num);
    if (!text) {
        return trv_money_from_json_number(num, currency, out);
    }
    if (exponent < 0 || trv_money_parse_number(text, exponent, &out->minor) != APR_SUCCESS) {
        return APR_EINVAL;
    }
    memcpy(out->currency, currency, 4);
    return APR_SUCCESS;
}

int trv_money_hundredths(double d, long long *k)
{
    if (!(d > -1e11 && d < 1e11) || (d == 0 && signbit(d))) {
        return 0;
    }
    /* k/100.0 is correctly rounded: the double nearest k/100. */
    *k = llround(d * 100.0);
    return (double)*k / 100.0 == d;
}

/* An integer or a real (is_int says which) as minor units of exponent. */
static apr_status_t number_minor(int is_int, apr_int64_t i, double d, int exponent,
                                 apr_int64_t *minor)
{
    char buf[64];
    long long k;
    /* A real that is a whole number of hundredths, in a currency of two or
     * more decimals: the minor units %.15g and the parse below give, without
     * printing the double (snprintf's %.15g was 2-3 % of a hotel offers
     * request's CPU, docs/performance.md). |k| < 10^13, so k * 10 (three
     * decimals) stays within TRV_MONEY_MAX_MINOR. */
    if (!is_int && (exponent == 2 || exponent == 3) && trv_money_hundredths(d, &k)) {
        *minor = exponent == 2 ? (apr_int64_t)k : (apr_int64_t)k * 10;
        return APR_SUCCESS;
    }
    if (is_int) {
        snprintf(buf, sizeof(buf), "%" APR_INT64_T_FMT, i);
    }
    else {
        /* %.15g recovers the decimal the client wrote (up to 15 digits);
         * from here on the amount is an integer. */
        snprintf(buf, sizeof(buf), "%.15g", d);
        if (strchr(buf, 'e') || strchr(buf, 'n') || strchr(buf, 'i')) {
            return APR_EINVAL;
        }
    }
    return trv_money_parse_decimal(buf, exponent, minor);
}

apr_status_t trv_money_from_json_number(const json_t *num, const char *currency,
                                        trv_money *out)
{
    int exponent = trv_currency_exponent(currency);

    if (exponent < 0 || !json_is_number(num)) {
        return APR_EINVAL;
    }
    if (number_minor(json_is_integer(num), (apr_int64_t)json_integer_value(num),
                     json_is_real(num) ? json_real_value(num) : 0, exponent, &out->minor)
        != APR_SUCCESS) {
        return APR_EINVAL;
    }
    memcpy(out->currency, currency, 4);
    return APR_SUCCESS;
}

apr_status_t trv_money_from_json(const json_t *obj, trv_money *out,
                                 const char **reason)
{
    const json_t *amount = json_object_get(obj, "amount");
    const json_t *cur = json_object_get(obj, "currency");
    if (!json_is_object(obj)) {
        *reason = "must be an object {amount, currency}";
        return APR_EINVAL;
    }
    if (!json_is_string(cur) || trv_currency_exponent(json_string_value(cur)) < 0) {
        *reason = "currency must be an ISO 4217 code";
        return APR_EINVAL;
    }
    if (!json_is_number(amount)) {
        *reason = "amount must be a number";
        return APR_EINVAL;
    }
    if (trv_money_from_json_number(amount, json_string_value(cur), out)
        != APR_SUCCESS) {
        *reason = "amount has more decimals than the currency allows or is out of range";
        return APR_EINVAL;
    }
    return APR_SUCCESS;
}

/* The amount as a JSON number: 1 and *whole when it is a whole number of
 * units, else 0 and *real. */
static int amount_value(apr_int64_t minor, int exponent, json_int_t *whole, double *real)
{
    char buf[48];
    apr_int64_t scale = pow10i(exponent);
    if (minor % scale == 0) {
        *whole = (json_int_t)(minor / scale);
        return 1;
    }
    /* The double nearest the exact decimal; the dumper's 15-digit precision
     * prints that decimal back exactly. Below 2^53 minor and 10^exponent
     * are exact doubles, and one IEEE division is correctly rounded: the
     * same double strtod makes of the decimal, without writing and reading
     * it (a twelfth of a hotel offers request's instructions). */
    if (minor < ((apr_int64_t)1 << 53) && minor > -((apr_int64_t)1 << 53)
        && exponent <= 15) {
        *real = (double)minor / (double)scale;
        return 0;
    }
    format_decimal(buf, sizeof(buf), minor, exponent);
    *real = strtod(buf, NULL);
    return 0;
}

json_t *trv_money_amount_json(apr_int64_t minor, int exponent)
{
    json_int_t whole;
    double real;
    return amount_value(minor, exponent, &whole, &real) ? json_integer(whole)
                                                        : json_real(real);
}

json_t *trv_money_json(const trv_money *m)
{
    int exponent = trv_currency_exponent(m->currency), exponent_known = exponent >= 0;
    if (exponent < 0) {
        exponent = 2;
    }
    json_t *amount = trv_money_amount_json(m->minor, exponent), *out;
    /* What json_pack("{s:o,s:s}") made, without reading a format for
     * every amount of every offer (the offers' profile). */
    if (!amount || !(out = json_object())) {
        json_decref(amount);
        return NULL;
    }
    /* Keys and a known code are ASCII: Jansson's UTF-8 check, a call per
     * byte, is skipped. */
    if (json_object_set_new_nocheck(out, "amount", amount) != 0
        || json_object_set_new_nocheck(out, "currency",
                                       exponent_known ? json_stringn_nocheck(m->currency, 3)
                                                      : json_string(m->currency)) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

void trv_money_amount_write(trv_jtext *t, apr_int64_t minor, int exponent)
{
    json_int_t whole;
    double real;
    if (amount_value(minor, exponent, &whole, &real)) {
        trv_jtext_int(t, (long long)whole);
    }
    else {
        trv_jtext_real(t, real);
    }
}

void trv_money_write(trv_jtext *t, const trv_money *m)
{
    int exponent = trv_currency_exponent(m->currency);
    trv_jtext_obj(t);
    trv_jtext_key(t, "amount");
    trv_money_amount_write(t, m->minor, exponent < 0 ? 2 : exponent);
    trv_jtext_kstr(t, "currency", m->currency);
    trv_jtext_end(t);
}

apr_status_t trv_money_make(trv_money *out, apr_int64_t minor, const char *currency)
{
    if (trv_currency_exponent(currency) < 0 || minor > TRV_MONEY_MAX_MINOR
        || minor < -TRV_MONEY_MAX_MINOR) {
        return APR_EINVAL;
    }
    out->minor = minor;
    memcpy(out->currency, currency, 4);
    return APR_SUCCESS;
}

apr_status_t trv_money_add(trv_money *acc, const trv_money *m)
{
    apr_int64_t sum;
    if (strcmp(acc->currency, m->currency) != 0) {
        return APR_EINVAL;
    }
    sum = acc->minor + m->minor;
    if (sum > TRV_MONEY_MAX_MINOR || sum < -TRV_MONEY_MAX_MINOR) {
        return APR_EINVAL;
    }
    acc->minor = sum;
    return APR_SUCCESS;
}

int trv_money_minor_of_jval(const trv_jval *amount, const char *currency, apr_int64_t *minor)
{
    int exp = currency ? trv_currency_exponent(currency) : -1;
    apr_int64_t m;
    if (exp < 0 || !amount) {
        return -1;
    }
    if (amount->type == TRV_JVAL_STRING) {
        return trv_money_parse_decimal(amount->u.s, exp, minor) == APR_SUCCESS ? 0 : -1;
    }
    if (trv_jval_is_number(amount)
        && number_minor(amount->type == TRV_JVAL_INT, trv_jval_int(amount),
                        trv_jval_num(amount), exp, &m) == APR_SUCCESS) {
        *minor = m;
        return 0;
    }
    return -1;
}

int trv_money_minor_of(const json_t *amount, const char *currency, apr_int64_t *minor)
{
    int exp = currency ? trv_currency_exponent(currency) : -1;
    trv_money m;
    if (exp < 0) {
        return -1;
    }
    if (json_is_string(amount)) {
        return trv_money_parse_decimal(json_string_value(amount), exp, minor) == APR_SUCCESS
                   ? 0 : -1;
    }
    if (json_is_number(amount) && trv_money_from_json_number(amount, currency, &m) == APR_SUCCESS) {
        *minor = m.minor;
        return 0;
    }
    return -1;
}
