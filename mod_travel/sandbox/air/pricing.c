/* The sandbox's fare model; see pricing.h. */
#include "pricing.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static const char *const cabin_codes[SBX_NCABINS] = {"ECONOMY", "PREMIUM_ECONOMY",
                                                     "BUSINESS", "FIRST"};
static const char *const cabin_names[SBX_NCABINS] = {"Economy", "Premium Economy",
                                                     "Business", "First"};

/* Brands per cabin: the cheapest first. Penalties are per passenger. */
static const sbx_brand brands[SBX_NCABINS][SBX_MAX_BRANDS] = {
    {{"Basic", 1000, 0, -1, 0, 0, 0, 0},
     {"Standard", 1280, 1, 1, 0, 0, 1, 60},
     {"Flex", 1750, 1, 1, 1, 0, 1, 0}},
    {{"Premium Standard", 1000, 2, 1, 1, 200, 1, 100},
     {"Premium Flex", 1350, 2, 1, 1, 0, 1, 0}},
    {{"Business Saver", 1000, 2, 1, 1, 300, 1, 0},
     {"Business Flex", 1300, 2, 1, 1, 0, 1, 0}},
    {{"First", 1000, 3, 1, 1, 0, 1, 0}},
};
static const int brand_counts[SBX_NCABINS] = {3, 2, 2, 1};

int sbx_cabin_parse(const char *s)
{
    int i;
    for (i = 0; s && i < SBX_NCABINS; i++) {
        if (strcasecmp(s, cabin_codes[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char *sbx_cabin_code(int cabin)
{
    return cabin >= 0 && cabin < SBX_NCABINS ? cabin_codes[cabin] : "ECONOMY";
}

const char *sbx_cabin_display(int cabin)
{
    return cabin >= 0 && cabin < SBX_NCABINS ? cabin_names[cabin] : "Economy";
}

int sbx_brand_count(int cabin)
{
    return cabin >= 0 && cabin < SBX_NCABINS ? brand_counts[cabin] : 0;
}

const sbx_brand *sbx_brand_get(int cabin, int brand)
{
    if (brand < 0 || brand >= sbx_brand_count(cabin)) {
        return NULL;
    }
    return &brands[cabin][brand];
}

int sbx_brand_carry_on(const sbx_brand *b, int km)
{
    return b->carry_on < 0 ? km >= 1500 : b->carry_on;
}

static unsigned carrier_roll(const sbx_world *w, int airline, unsigned salt)
{
    return (unsigned)(sbx_hash((apr_uint64_t)w->airlines[airline].openflights_id, salt, 11)
                      % 100);
}

int sbx_cabin_offered(const sbx_world *w, const sbx_itin *it, int cabin)
{
    int i, longest = 0;
    for (i = 0; i < it->n; i++) {
        if (it->legs[i].km > longest) {
            longest = it->legs[i].km;
        }
    }
    for (i = 0; i < it->n; i++) {
        const sbx_leg *l = &it->legs[i];
        switch (cabin) {
        case SBX_ECONOMY:
            break;
        case SBX_PREMIUM_ECONOMY:
            /* Long-haul fleets only, and not every airline has it. */
            if (longest < 2500 || carrier_roll(w, l->op, 1) >= 70) {
                return 0;
            }
            break;
        case SBX_BUSINESS:
            if (carrier_roll(w, l->op, 2) >= 90) {
                return 0;
            }
            break;
        case SBX_FIRST:
            if (longest < 5000 || carrier_roll(w, l->op, 3) >= 40) {
                return 0;
            }
            break;
        default:
            return 0;
        }
    }
    return 1;
}

/* ---- money ---- */

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

apr_int64_t sbx_penalty(int eur, const char *currency)
{
    return eur > 0 ? sbx_from_eur((apr_int64_t)eur * 100, currency, 1) : 0;
}

/* ---- fares ---- */

int sbx_weekday(long day)
{
    return (int)(((day + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
}

int sbx_days_ahead_permille(long d)
{
    if (d <= 3) {
        return 1850;
    }
    if (d <= 7) {
        return 1500;
    }
    if (d <= 14) {
        return 1250;
    }
    if (d <= 21) {
        return 1100;
    }
    if (d <= 60) {
        return 1000;
    }
    if (d <= 150) {
        return 950;
    }
    return 1050;
}

int sbx_weekday_permille(int weekday)
{
    static const int f[7] = {1150, 1050, 920, 900, 1000, 1120, 950};
    return f[((weekday % 7) + 7) % 7];
}

static double cabin_factor(int cabin, int km)
{
    switch (cabin) {
    case SBX_PREMIUM_ECONOMY: return 1.65;
    case SBX_BUSINESS: return km < 1500 ? 2.4 : 3.6;
    case SBX_FIRST: return 6.0;
    default: return 1.0;
    }
}

void sbx_journey_fare(const sbx_world *w, const sbx_itin *it, int cabin, int brand,
                      long day, long today, const char *currency, sbx_fare *out)
{
    const sbx_brand *b = sbx_brand_get(cabin, brand);
    int km = 0, i, longest = 0;
    double eur, carrier, demand;
    apr_int64_t tax_cents = 0;
    int intl;
    for (i = 0; i < it->n; i++) {
        km += it->legs[i].km;
        if (it->legs[i].km > longest) {
            longest = it->legs[i].km;
        }
        /* Airport and security charges per departure. */
        tax_cents += 950 + (apr_int64_t)it->legs[i].km * 4 / 10;
    }
    intl = strcmp(w->airports[it->legs[0].from].country_code,
                  w->airports[it->legs[it->n - 1].to].country_code) != 0;
    if (intl) {
        tax_cents += 1840;
    }
    eur = 25.0 + 0.55 * pow((double)km, 0.78);
    if (it->n > 1) {
        eur *= 0.85; /* connections sell below the direct flight */
    }
    eur *= cabin_factor(cabin, longest);
    eur *= (b ? b->factor_permille : 1000) / 1000.0;
    eur *= sbx_days_ahead_permille(day - today) / 1000.0;
    eur *= sbx_weekday_permille(sbx_weekday(day)) / 1000.0;
    carrier = 0.85 + (double)carrier_roll(w, it->legs[0].mkt, 5) * 0.0036;
    demand = 0.94 + (double)(sbx_hash((apr_uint64_t)it->legs[0].from,
                                      (apr_uint64_t)it->legs[it->n - 1].to,
                                      (apr_uint64_t)day) % 121) / 1000.0;
    eur *= carrier * demand;
    out->base = sbx_from_eur((apr_int64_t)llround(eur * 100.0), currency, 1);
    out->tax = sbx_from_eur(tax_cents, currency, 0);
}

/* ---- bags ---- */

apr_int64_t sbx_bag_price(int type, int km, const char *currency)
{
    apr_int64_t eur = type == SBX_BAG_CHECKED ? 25 + km / 200 : 15 + km / 500;
    if (type == SBX_BAG_CHECKED && eur > 95) {
        eur = 95;
    }
    if (type == SBX_BAG_CARRY_ON && eur > 35) {
        eur = 35;
    }
    return sbx_from_eur(eur * 100, currency, 1);
}

int sbx_bag_weight(int type, int cabin)
{
    if (type == SBX_BAG_CARRY_ON) {
        return 8;
    }
    return cabin >= SBX_BUSINESS ? 32 : 23;
}

int sbx_bag_max(int type, int cabin, int brand, int km)
{
    const sbx_brand *b = sbx_brand_get(cabin, brand);
    if (!b) {
        return 0;
    }
    if (type == SBX_BAG_CARRY_ON) {
        return sbx_brand_carry_on(b, km) ? 0 : 1;
    }
    return b->checked_bags >= 3 ? 0 : 3 - b->checked_bags;
}
