/* Money as integer minor units of an ISO 4217 currency. Amounts are never
 * added or compared in floating point; a double appears only at the JSON edge,
 * made from an exact decimal so it prints back as that decimal. */
#ifndef TRV_MONEY_H
#define TRV_MONEY_H

#include <apr_pools.h>
#include <jansson.h>

typedef struct trv_money {
    apr_int64_t minor;   /* amount in minor units (cents, yen, fils) */
    char currency[4];    /* ISO 4217 alphabetic code, NUL-terminated */
} trv_money;

/* Largest magnitude accepted: keeps every amount within 15 significant
 * digits, which is what the JSON printer reproduces exactly. */
#define TRV_MONEY_MAX_MINOR 999999999999999LL

/* Whether d is the double nearest a whole number of hundredths k with
 * |d| < 10^11 (and not negative zero): then 1 with *k. Such a d prints
 * back as exactly k/100 through %.15g (k/100 has at most 13 significant
 * digits and d is within half an ulp of it), so callers that would print
 * it with %.15g can take k instead: the JSON writer (core/json_write.c)
 * and the reading of suppliers' real amounts (number_minor). */
int trv_money_hundredths(double d, long long *k);

/* ISO 4217 minor-unit exponent (JPY 0, EUR 2, KWD 3), or -1 if the code is
 * not an active ISO 4217 currency. */
int trv_currency_exponent(const char *code);

/* "12.3" for minor 1230 with exponent 2: shortest exact decimal. */
char *trv_money_decimal(apr_pool_t *p, apr_int64_t minor, int exponent);

/* Parses an exact decimal ("12.30", "-4", "0.001") into minor units.
 * Fails (APR_EINVAL) on more fraction digits than the exponent allows,
 * on syntax errors and beyond TRV_MONEY_MAX_MINOR. */
apr_status_t trv_money_parse_decimal(const char *s, int exponent,
                                     apr_int64_t *minor);

/* Parses the text of a JSON number ("-12.30", "1.5e2", "100.0000000000000001")
 * exactly, digit by digit, into minor units of a currency of that exponent:
 * no double in between, so any digit beyond the minor units that is not
 * zero is refused however far out it is. Fails (APR_EINVAL) on text that
 * is not a JSON number and beyond TRV_MONEY_MAX_MINOR. */
apr_status_t trv_money_parse_number(const char *text, int exponent, apr_int64_t *minor);

/* A request body's amount (a value of a body parsed by trv_read_json_body,
 * whose text is kept: core/json_numbers.h) as minor units of currency, read
 * exactly from the text the client wrote. A number made in code (no text
 * kept) is read as trv_money_from_json_number reads it. */
apr_status_t trv_money_from_request(apr_pool_t *p, const json_t *num, const char *currency,
                                    trv_money *out);

/* Reads a JSON number (integer or real) as an amount of `currency`. A real
 * is recovered through 15 significant digits: for suppliers' amounts; a
 * request's amounts are read with trv_money_from_request. */
apr_status_t trv_money_from_json_number(const json_t *num, const char *currency,
                                        trv_money *out);

/* The minor units of an amount a supplier wrote as a decimal string
 * ("123.45") or a JSON number, in currency; 0 on success, -1 when it is
 * neither or the currency is unknown. */
int trv_money_minor_of(const json_t *amount, const char *currency, apr_int64_t *minor);
struct trv_jval;
/* The same for an amount read with core/jval.h: the same digits give the
 * same minor units as through Jansson. */
int trv_money_minor_of_jval(const struct trv_jval *amount, const char *currency,
                            apr_int64_t *minor);

/* Reads {"amount": number, "currency": "EUR"}; *reason says what is wrong. */
apr_status_t trv_money_from_json(const json_t *obj, trv_money *out,
                                 const char **reason);

/* {"amount": 12.3, "currency": "EUR"} as a new reference. */
json_t *trv_money_json(const trv_money *m);
/* The amount alone as a JSON number (integer when whole). */
json_t *trv_money_amount_json(apr_int64_t minor, int exponent);
struct trv_jtext;
/* trv_money_amount_json's number written as text (core/json_text.h), the
 * same bytes its value is written as. */
void trv_money_amount_write(struct trv_jtext *t, apr_int64_t minor, int exponent);
/* trv_money_json's object written as text, the same bytes its tree is
 * written as. */
void trv_money_write(struct trv_jtext *t, const trv_money *m);

apr_status_t trv_money_make(trv_money *out, apr_int64_t minor, const char *currency);
/* Sums into *acc; currencies must match and the sum must stay in range. */
apr_status_t trv_money_add(trv_money *acc, const trv_money *m);

#endif
