/* Hotel rates of the sandbox: which rooms, boards and rate plans a hotel
 * sells for a stay and occupancy, their prices per night, promotions,
 * taxes, what is due at the property, and cancellation policies. Pure
 * functions of the hotel, the stay, the occupancy, the currency, the day
 * of search and the price factor (the control API's), so every child and
 * every repeated search agree. Amounts are integer minor units of the
 * requested currency (fixed sandbox rates, money.h): each night is
 * modelled in EUR cents and converted once; everything else is summed from
 * converted figures.
 *
 * A rate the sandbox hands out is a signed token (token.h) holding its
 * quote, so checking, prebooking and booking it needs no stored state. */
#ifndef SBX_HOTEL_RATES_H
#define SBX_HOTEL_RATES_H

#include "catalog.h"

#define SBX_MAX_HROOMS 8
#define SBX_MAX_CHILDREN 4
#define SBX_MAX_NIGHTS 99
#define SBX_MAX_DAYS_AHEAD 500
/* The price control's factor, permille (0.1 to 10). */
#define SBX_FACTOR_MIN 100
#define SBX_FACTOR_MAX 10000

enum { SBX_PLAN_REFUNDABLE, SBX_PLAN_NONREFUNDABLE };

typedef struct sbx_occ {
    int adults;
    int n_children;
    int ages[SBX_MAX_CHILDREN];
} sbx_occ;

/* What a rate is: hotel, room, board and plan for a stay and the rooms'
 * occupancies, priced on a day at a supplier. */
typedef struct sbx_hquote {
    int supplier;                  /* 0..2 */
    int hotel;
    int room, board, plan;
    long checkin;                  /* days since 1970 */
    int nights;
    int n_rooms;
    sbx_occ occ[SBX_MAX_HROOMS];
    char currency[4];
    long today;                    /* the day of search (UTC) */
    int factor_permille;           /* the price control's factor then */
    apr_int64_t total;             /* the price quoted, all rooms */
    apr_int64_t expires;           /* unix seconds */
    /* A prebook's own number (0 in offers and rates): every prebook of one
     * offer gets a new one, so two prebooks in the same second still have
     * different ids, as at a real supplier. */
    apr_uint32_t serial;
} sbx_hquote;

/* One room's price and terms. */
typedef struct sbx_hprice {
    apr_int64_t nightly[SBX_MAX_NIGHTS]; /* before the promotion */
    apr_int64_t gross;             /* sum of nightly */
    apr_int64_t discount;          /* the promotion, 0 without one */
    apr_int64_t total;             /* gross - discount, taxes included */
    apr_int64_t vat;               /* included in total */
    apr_int64_t due_at_property;   /* city tax or resort fee: not in total */
    const char *promo_code, *promo_name; /* NULL without a promotion */
    int promo_percent;
    int refundable;
    apr_int64_t deadline;          /* free cancellation until (unix); 0 if none */
    int n_penalties;
    struct {
        apr_int64_t from;          /* unix seconds */
        apr_int64_t amount;
    } penalties[2];
} sbx_hprice;

/* A stay's inputs as an API gives them: 0, or -1 with *field and *reason. */
int sbx_stay_check(long checkin, long checkout, long today, const char **field,
                   const char **reason);
/* An occupancy's: 0, or -1 with *reason. */
int sbx_occ_check(const sbx_occ *o, const char **reason);

/* Whether the room type takes the occupancy. */
int sbx_room_fits(int room, const sbx_occ *o);

/* Every rate the hotel sells for q's stay and occupancies (q's hotel,
 * supplier, stay, occupancies, currency, today and factor are read; room,
 * board and plan are filled in), cheapest first; up to max written, each
 * priced (total set). Returns how many were written. */
int sbx_hotel_rates(const sbx_hotels *h, const sbx_world *w, const sbx_hquote *q,
                    apr_int64_t now, sbx_hquote *out, int max);

/* Prices every room of q (out has q->n_rooms entries) and returns the
 * total of all rooms. now: the time the policy of a non-refundable rate
 * starts. */
apr_int64_t sbx_hquote_price(const sbx_hotels *h, const sbx_world *w, const sbx_hquote *q,
                             apr_int64_t now, sbx_hprice *out);

/* The cancellation fee of one room cancelled at time t. */
apr_int64_t sbx_hprice_fee(const sbx_hprice *r, apr_int64_t t);

/* Signs q into a token with key / reads one back (0; -1 when forged or
 * malformed). The token's kind ("r" rate, "p" prebook, ...) is checked. */
char *sbx_hquote_encode(apr_pool_t *p, const sbx_hquote *q, const char *kind,
                        const char *key);
int sbx_hquote_decode(apr_pool_t *p, const char *token, const char *kind, const char *key,
                      const sbx_hotels *h, sbx_hquote *q);

/* "2-5,7" of an occupancy (Expedia Rapid's form); parses it back (0). */
char *sbx_occ_format(apr_pool_t *p, const sbx_occ *o);
int sbx_occ_parse(const char *s, sbx_occ *o);

/* YYYY-MM-DD of days since 1970. */
char *sbx_day_format(apr_pool_t *p, long day);
/* Days since 1970 of YYYY-MM-DD, or -1. */
long sbx_day_of(const char *s);
/* Unix seconds of a local wall-clock time at the hotel. */
apr_int64_t sbx_hotel_utc(const sbx_hotels *h, const sbx_world *w, int hotel,
                          apr_int64_t local);

#endif
