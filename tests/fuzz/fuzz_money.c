/* Money: the decimal parser (amounts in supplier and API text) and the JSON
 * number -> minor units reader every request body's amounts go through.
 * Input: one byte choosing the currency, then the text, read both as a
 * decimal string and as a JSON document {"amount": <text>, "currency"}.
 * Beyond not crashing: whatever is accepted stays within the range and
 * comes back exactly through the decimal printer and through the JSON
 * printer (amounts never drift through a double). */
#include "fuzz.h"

#include "core/json.h"
#include "core/money.h"

/* Every exponent ISO 4217 uses (0, 2, 3, 4) and a code that is not one. */
static const char *const currencies[] = {"EUR", "JPY", "KWD", "CLF", "USD", "BHD",
                                         "UYW", "XXX"};

static void round_trips(apr_pool_t *p, apr_int64_t minor, const char *cur)
{
    int exponent = trv_currency_exponent(cur);
    apr_int64_t again = 0;
    json_t *num, *doc;
    const char *text;
    trv_money m;

    FZ_ASSERT(exponent >= 0);
    FZ_ASSERT(minor <= TRV_MONEY_MAX_MINOR && minor >= -TRV_MONEY_MAX_MINOR);
    /* The decimal printer and the parser agree. */
    FZ_ASSERT(trv_money_parse_decimal(trv_money_decimal(p, minor, exponent), exponent,
                                      &again) == APR_SUCCESS);
    FZ_ASSERT(again == minor);
    /* What the API prints reads back as the same amount. */
    FZ_ASSERT(trv_money_make(&m, minor, cur) == APR_SUCCESS);
    text = trv_json_dump(p, trv_json_bind(p, trv_money_json(&m)));
    FZ_ASSERT(text != NULL);
    doc = trv_json_parse(p, text, strlen(text), NULL);
    FZ_ASSERT(doc != NULL);
    num = json_object_get(doc, "amount");
    FZ_ASSERT(trv_money_from_json_number(num, cur, &m) == APR_SUCCESS);
    FZ_ASSERT(m.minor == minor && strcmp(m.currency, cur) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    const char *cur, *text, *reason = NULL, *body;
    apr_int64_t minor = 0;
    json_t *doc;
    trv_money m;

    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    cur = currencies[data[0] % (sizeof(currencies) / sizeof(currencies[0]))];
    text = fz_str(p, data + 1, size - 1);

    /* The currency table itself, on arbitrary codes. */
    (void)trv_currency_exponent(text);

    if (trv_currency_exponent(cur) >= 0
        && trv_money_parse_decimal(text, trv_currency_exponent(cur), &minor) == APR_SUCCESS) {
        round_trips(p, minor, cur);
    }

    /* As a request body's money object. */
    body = apr_psprintf(p, "{\"amount\": %s, \"currency\": \"%s\"}", text, cur);
    doc = trv_json_parse(p, body, strlen(body), NULL);
    if (doc && trv_money_from_json(doc, &m, &reason) == APR_SUCCESS) {
        round_trips(p, m.minor, cur);
    }
    /* And any JSON value at all where money is expected. */
    doc = trv_json_parse(p, text, strlen(text), NULL);
    if (doc && trv_money_from_json(doc, &m, &reason) == APR_SUCCESS) {
        round_trips(p, m.minor, m.currency);
    }
    fz_end(p);
    return 0;
}
