/* POLICY_ESTIMATE: what cancelling a hotel booking would cost at an
 * instant, calculated from the rooms' cancellation policies (as a supplier
 * returns them when the booking is read). A pure function of its inputs —
 * no clock, no database, no supplier — so it is unit tested on its own
 * (tests/unit/test_hotel_estimate.c). Amounts are integer minor units. */
#ifndef TRV_HOTEL_ESTIMATE_CALC_H
#define TRV_HOTEL_ESTIMATE_CALC_H

#include <apr_pools.h>
#include <apr_time.h>
#include <jansson.h>

#define TRV_HOTEL_MAX_PENALTIES 16

typedef struct trv_hotel_penalty {
    apr_time_t from;           /* from this instant on ... */
    apr_int64_t minor;         /* ... cancelling the room costs this */
} trv_hotel_penalty;

/* One room's terms: its price and its penalties, in the booking currency. */
typedef struct trv_hotel_room_terms {
    int readable;              /* 0: no policy, or one that could not be read */
    apr_int64_t total_minor;   /* the room's price (what cancelling releases) */
    int n;
    trv_hotel_penalty pen[TRV_HOTEL_MAX_PENALTIES];
} trv_hotel_room_terms;

typedef struct trv_hotel_estimate {
    int available;             /* 0: some room's terms are missing or unreadable */
    apr_int64_t fee_minor;     /* sum of the rooms' fees at the instant */
    apr_int64_t refund_minor;  /* released price less the fee */
    apr_time_t deadline;       /* free until then; 0: no free period ahead */
} trv_hotel_estimate;

/* Reads a room's policy {penalties: [{from, amount: {amount, currency}}]}
 * and its price (Money) in currency into *out; out->readable says whether
 * both were usable: a missing policy, a penalty in another currency, an
 * unparseable instant or amount, or more than TRV_HOTEL_MAX_PENALTIES
 * penalties make the room unreadable (never a guess). */
void trv_hotel_terms_of(const json_t *policy, const json_t *price, const char *currency,
                        trv_hotel_room_terms *out);

/* The estimate for cancelling these rooms at instant at: per room the
 * largest penalty whose time has come (the sandbox suppliers, like real
 * ones, charge the largest penalty in force; schedules only grow), capped
 * at the room's price; the refund is each room's price less its fee. The
 * deadline is the earliest instant after at from which some room costs
 * something, when every room is still free at at. Unavailable when there
 * are no rooms or any room is unreadable (fee and refund then 0). */
void trv_hotel_estimate_at(const trv_hotel_room_terms *rooms, int n, apr_time_t at,
                           trv_hotel_estimate *out);

#endif
