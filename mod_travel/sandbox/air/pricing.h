/* Sandbox fares: cabins, fare brands and their conditions, prices by
 * distance, cabin, brand, days ahead, weekday and carrier, the market's
 * currency, taxes, bags and member prices. Pure functions: a fare depends
 * only on its inputs, so repeated searches agree. Amounts are integer
 * minor units; the model's shape is computed in EUR and each figure is
 * converted once and rounded (fares to whole units) before anything is
 * added. */
#ifndef SBX_PRICING_H
#define SBX_PRICING_H

#include "schedule.h"
#include "sandbox/money.h"

enum { SBX_ECONOMY, SBX_PREMIUM_ECONOMY, SBX_BUSINESS, SBX_FIRST, SBX_NCABINS };

#define SBX_MAX_BRANDS 3

typedef struct sbx_brand {
    const char *name;
    int factor_permille;         /* price relative to the cabin's first brand */
    int checked_bags;            /* included per passenger and journey */
    int carry_on;                /* 1 included, 0 not, -1 only on long-haul */
    int refund_allowed;
    int refund_penalty_eur;      /* per passenger, when allowed */
    int change_allowed;
    int change_penalty_eur;
} sbx_brand;

/* "ECONOMY" ... ; -1 for an unknown name (case-insensitive). */
int sbx_cabin_parse(const char *s);
const char *sbx_cabin_code(int cabin);       /* ECONOMY, PREMIUM_ECONOMY, ... */
const char *sbx_cabin_display(int cabin);    /* Economy, Premium Economy, ... */
int sbx_brand_count(int cabin);
const sbx_brand *sbx_brand_get(int cabin, int brand);

/* Whether the carriers of the itinerary sell this cabin on every leg. */
int sbx_cabin_offered(const sbx_world *w, const sbx_itin *it, int cabin);

/* ---- fares ---- */

/* Price multiplier in permille for buying `days_ahead` days before
 * departure and for the departure weekday (0 = Sunday). */
int sbx_days_ahead_permille(long days_ahead);
int sbx_weekday_permille(int weekday);

typedef struct sbx_fare {
    apr_int64_t base;            /* per adult, minor units, whole major units */
    apr_int64_t tax;             /* per seat-holding passenger, minor units */
} sbx_fare;

/* The adult fare of one journey. day: departure date (days since 1970);
 * today: the selling date. */
void sbx_journey_fare(const sbx_world *w, const sbx_itin *it, int cabin, int brand,
                      long day, long today, const char *currency, sbx_fare *out);

/* Share of the adult base fare children and infants pay, permille. */
#define SBX_CHILD_PERMILLE 750
#define SBX_INFANT_PERMILLE 100
/* The member price: this much off a passenger's base fare when they hold
 * a loyalty account with a carrier of the itinerary. */
#define SBX_MEMBER_DISCOUNT_PERMILLE 70

/* A penalty in EUR (per passenger) in the currency, whole units. */
apr_int64_t sbx_penalty(int eur, const char *currency);

/* ---- bags ---- */

enum { SBX_BAG_CHECKED, SBX_BAG_CARRY_ON };

/* Unit price of one extra bag for one passenger on one journey of km
 * (whole units), its weight, and how many can be bought (0: not sold). */
apr_int64_t sbx_bag_price(int type, int km, const char *currency);
int sbx_bag_weight(int type, int cabin);
int sbx_bag_max(int type, int cabin, int brand, int km);
/* Whether the brand includes a cabin bag on a journey of km. */
int sbx_brand_carry_on(const sbx_brand *b, int km);

/* Weekday (0 = Sunday) of days since 1970. */
int sbx_weekday(long day);

#endif
