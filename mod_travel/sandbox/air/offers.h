/* Offers of the sandbox suppliers, independent of either wire format: a
 * search turns journeys, passengers and a cabin into priced offers; an
 * offer reference carries everything needed to rebuild and re-price the
 * offer later (signed, so it cannot be edited), so offers need no storage
 * and any child can price any offer. */
#ifndef SBX_OFFERS_H
#define SBX_OFFERS_H

#include "pricing.h"
#include "sandbox/token.h"

#define SBX_MAX_JOURNEYS 4
#define SBX_MAX_PAX 9
#define SBX_MAX_DAYS_AHEAD 361

typedef struct sbx_search {
    int nj;
    struct {
        int origin, dest;
        long day;
    } j[SBX_MAX_JOURNEYS];
    int adults, children, infants;
    int cabin;
} sbx_search;

typedef struct sbx_offer {
    char supplier;                    /* 'A' or 'B' */
    apr_uint32_t nonce;               /* per search: each search's offers are new */
    apr_int64_t expires;
    sbx_search q;
    int brand;
    int opt[SBX_MAX_JOURNEYS];        /* itinerary index per journey */
    /* Derived when built or decoded: */
    sbx_itin it[SBX_MAX_JOURNEYS];
    sbx_fare fare[SBX_MAX_JOURNEYS];  /* adult fare per journey */
    char currency[4];
    int exp;
    apr_int64_t base, tax;            /* all passengers, minor units */
    char tag[17];                     /* hex; names the offer's bags and passengers */
    const char *ref;                  /* the opaque reference, without prefix */
} sbx_offer;

/* Checks a search against the calendar and the party; NULL or the
 * reason, with *field "passengers" or "journeys" and *journey the index of
 * the journey at fault (-1 for the party or the list). */
const char *sbx_search_check(const sbx_world *w, const sbx_search *q, long today,
                             const char **field, int *journey);

/* Prices the search: up to `limit` offers, cheapest first; *truncated
 * when more matched. The offers are allocated from p. nonce: a random
 * number that makes this search's offer references its own (a supplier
 * sells each offer once). */
int sbx_search_run(apr_pool_t *p, const sbx_world *w, const sbx_search *q, char supplier,
                   const char *key, apr_int64_t now, apr_int64_t ttl, int limit,
                   apr_uint32_t nonce, sbx_offer **out, int *truncated);

/* The reference of an offer, signed with key (base64url). */
const char *sbx_offer_encode(apr_pool_t *p, const sbx_offer *o, const char *key);
/* Rebuilds an offer from its reference and prices it again as of `now`.
 * Returns 0, or -1 when the reference is not one of this supplier's. */
int sbx_offer_decode(apr_pool_t *p, const sbx_world *w, const char *ref, char supplier,
                     const char *key, apr_int64_t now, sbx_offer *out);

/* Passenger i's type (0 adult, 1 child, 2 infant) and base and tax on
 * journey j; infants hold no seat. */
int sbx_pax_type(const sbx_offer *o, int i);
int sbx_pax_count(const sbx_offer *o);
apr_int64_t sbx_pax_base(const sbx_offer *o, int i, int j);
apr_int64_t sbx_pax_tax(const sbx_offer *o, int i, int j);
/* Whether an airline (IATA code) markets or operates a flight of journey j. */
int sbx_offer_carrier_flies(const sbx_world *w, const sbx_offer *o, int j,
                            const char *iata);
/* The member discount for passenger i holding an account with `iata`. */
apr_int64_t sbx_member_discount(const sbx_world *w, const sbx_offer *o, int i,
                                const char *iata);

/* Bags for sale: one entry per seat-holding passenger, journey and bag
 * type the fare sells. */
typedef struct sbx_bag {
    char suffix[32];                  /* "p0j1c": passenger, journey, type */
    int pax, journey, type;
    int weight_kg;
    int max_qty;
    apr_int64_t unit;                 /* minor units */
} sbx_bag;

int sbx_offer_bags(const sbx_offer *o, sbx_bag *out, int max);
/* The bag named by a suffix, or -1. */
int sbx_bag_find(const sbx_bag *bags, int n, const char *suffix);

/* Total journey minutes (first departure to last arrival, in UTC). */
int sbx_itin_minutes(const sbx_itin *it);
/* Whether the journeys cross a border (travel documents needed). */
int sbx_offer_international(const sbx_world *w, const sbx_offer *o);
/* Penalties for the whole party, minor units. */
apr_int64_t sbx_offer_refund_penalty(const sbx_offer *o);
apr_int64_t sbx_offer_change_penalty(const sbx_offer *o);
const sbx_brand *sbx_offer_brand(const sbx_offer *o);

#endif
