/* Currencies of the sandbox; see money.h. */
#include "money.h"

#include <string.h>

typedef struct fx {
    const char *currency;
    int exp;
    apr_int64_t per_eur_micro;   /* units of currency per EUR, x 1e6 */
} fx;

/* Fixed sandbox exchange rates (about 2025); prices only need to look
 * plausible in each currency. */
static const fx rates[] = {
    {"EUR", 2, 1000000}, {"USD", 2, 1080000}, {"GBP", 2, 850000}, {"CHF", 2, 950000},
    {"CAD", 2, 1470000}, {"AUD", 2, 1650000}, {"NZD", 2, 1780000}, {"JPY", 0, 160000000},
    {"CNY", 2, 7800000}, {"HKD", 2, 8400000}, {"SGD", 2, 1450000}, {"INR", 2, 90000000},
    {"KRW", 0, 1450000000}, {"THB", 2, 38000000}, {"MYR", 2, 5000000},
    {"IDR", 2, 17000000000LL}, {"PHP", 2, 61000000}, {"VND", 0, 27000000000LL},
    {"AED", 2, 3970000}, {"SAR", 2, 4050000}, {"QAR", 2, 3930000}, {"KWD", 3, 332000},
    {"BHD", 3, 407000}, {"OMR", 3, 416000}, {"JOD", 3, 766000}, {"TRY", 2, 35000000},
    {"NOK", 2, 11600000}, {"SEK", 2, 11400000}, {"DKK", 2, 7460000}, {"PLN", 2, 4300000},
    {"CZK", 2, 25000000}, {"HUF", 2, 395000000}, {"RON", 2, 4970000}, {"ZAR", 2, 20000000},
    {"EGP", 2, 52000000}, {"MAD", 2, 10800000}, {"KES", 2, 140000000},
    {"NGN", 2, 1600000000}, {"BRL", 2, 6000000}, {"MXN", 2, 19500000},
    {"CLP", 0, 1000000000}, {"COP", 2, 4300000000LL}, {"PEN", 2, 4050000},
    {"ILS", 2, 4000000}, {"ISK", 0, 150000000}, {"TWD", 2, 35000000},
    {"ARS", 2, 950000000}, {"RUB", 2, 100000000}, {"PKR", 2, 300000000},
};

static const struct {
    const char *country;
    const char *currency;
} markets[] = {
    {"US", "USD"}, {"PR", "USD"}, {"GU", "USD"}, {"EC", "USD"}, {"PA", "USD"},
    {"GB", "GBP"}, {"JE", "GBP"}, {"GG", "GBP"}, {"IM", "GBP"}, {"CH", "CHF"},
    {"LI", "CHF"}, {"CA", "CAD"}, {"AU", "AUD"}, {"NZ", "NZD"}, {"JP", "JPY"},
    {"CN", "CNY"}, {"HK", "HKD"}, {"SG", "SGD"}, {"IN", "INR"}, {"KR", "KRW"},
    {"TH", "THB"}, {"MY", "MYR"}, {"ID", "IDR"}, {"PH", "PHP"}, {"VN", "VND"},
    {"AE", "AED"}, {"SA", "SAR"}, {"QA", "QAR"}, {"KW", "KWD"}, {"BH", "BHD"},
    {"OM", "OMR"}, {"JO", "JOD"}, {"TR", "TRY"}, {"NO", "NOK"}, {"SE", "SEK"},
    {"DK", "DKK"}, {"PL", "PLN"}, {"CZ", "CZK"}, {"HU", "HUF"}, {"RO", "RON"},
    {"ZA", "ZAR"}, {"EG", "EGP"}, {"MA", "MAD"}, {"KE", "KES"}, {"NG", "NGN"},
    {"BR", "BRL"}, {"MX", "MXN"}, {"CL", "CLP"}, {"CO", "COP"}, {"PE", "PEN"},
    {"IL", "ILS"}, {"IS", "ISK"}, {"TW", "TWD"}, {"AR", "ARS"}, {"RU", "RUB"},
    {"PK", "PKR"},
    /* The euro area and the countries that use the euro. */
    {"AT", "EUR"}, {"BE", "EUR"}, {"HR", "EUR"}, {"CY", "EUR"}, {"EE", "EUR"},
    {"FI", "EUR"}, {"FR", "EUR"}, {"DE", "EUR"}, {"GR", "EUR"}, {"IE", "EUR"},
    {"IT", "EUR"}, {"LV", "EUR"}, {"LT", "EUR"}, {"LU", "EUR"}, {"MT", "EUR"},
    {"NL", "EUR"}, {"PT", "EUR"}, {"SK", "EUR"}, {"SI", "EUR"}, {"ES", "EUR"},
    {"MC", "EUR"}, {"SM", "EUR"}, {"VA", "EUR"}, {"AD", "EUR"}, {"ME", "EUR"},
    {"XK", "EUR"}, {"RE", "EUR"}, {"GP", "EUR"}, {"MQ", "EUR"}, {"GF", "EUR"},
};

const char *sbx_market_currency(const char *country_code)
{
    size_t i;
    for (i = 0; country_code && i < sizeof(markets) / sizeof(markets[0]); i++) {
        if (strcmp(markets[i].country, country_code) == 0) {
            return markets[i].currency;
        }
    }
    return "USD";
}

static const fx *rate_of(const char *currency)
{
    size_t i;
    for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        if (strcmp(rates[i].currency, currency) == 0) {
            return &rates[i];
        }
    }
    return &rates[1]; /* USD */
}

int sbx_currency_known(const char *currency)
{
    size_t i;
    for (i = 0; currency && i < sizeof(rates) / sizeof(rates[0]); i++) {
        if (strcmp(rates[i].currency, currency) == 0) {
            return 1;
        }
    }
    return 0;
}

int sbx_currency_exp(const char *currency)
{
    return rate_of(currency)->exp;
}

static apr_int64_t pow10i(int e)
{
    apr_int64_t r = 1;
    while (e-- > 0) {
        r *= 10;
    }
    return r;
}

apr_int64_t sbx_from_eur(apr_int64_t eur_cents, const char *currency, int whole)
{
    const fx *f = rate_of(currency);
    /* minor = cents * rate * 10^exp / (100 * 1e6), rounded half up; 128
     * bits because rates reach 2.7e10 micro-units. */
    __int128 num = (__int128)eur_cents * f->per_eur_micro * pow10i(f->exp);
    __int128 den = (__int128)100 * 1000000;
    apr_int64_t minor;
    if (whole) {
        /* Whole units; currencies with large units round to 10s or 100s. */
        apr_int64_t unit = pow10i(f->exp);
        if (f->per_eur_micro >= 1000000000LL) {
            unit *= 100;
        }
        else if (f->per_eur_micro >= 100000000LL) {
            unit *= 10;
        }
        den *= unit;
        minor = (apr_int64_t)((num + den / 2) / den) * unit;
        return minor > 0 ? minor : unit;
    }
    return (apr_int64_t)((num + den / 2) / den);
}
