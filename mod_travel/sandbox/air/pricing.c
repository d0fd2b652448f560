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
