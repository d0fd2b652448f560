/* The sandbox airlines' timetables: which flights operate between two
 * airports on a date. Everything is a pure function of the OpenFlights
 * data and the date, so every search, child and restart sees the same
 * flights: a carrier flies a route 1 to 4 times a day at fixed local
 * departure times, block times follow great-circle distance, arrivals are
 * computed in UTC and shown in the destination's local time. */
#ifndef SBX_SCHEDULE_H
#define SBX_SCHEDULE_H

#include "sandbox/world.h"

#define SBX_MAX_LEGS 2          /* direct, or one stop */
#define SBX_MAX_ITINS 48        /* per journey and date */
#define SBX_MIN_CONNECT 60      /* minutes at the hub, at least */
#define SBX_MAX_CONNECT (10 * 60)

/* One flight on one date. */
typedef struct sbx_leg {
    int from, to;               /* airport indexes */
    int mkt, op;                /* airline indexes: marketing, operating */
    int flight_no;              /* marketing flight number */
    int op_flight_no;
    apr_int64_t dep_utc, arr_utc;   /* seconds since 1970 */
    apr_int64_t dep_local, arr_local;/* wall clock of each airport, as seconds */
    int block_min;
    int km;
    char equipment[4];
} sbx_leg;

typedef struct sbx_itin {
    int n;
    sbx_leg legs[SBX_MAX_LEGS];
} sbx_itin;

/* Block time in minutes for a great-circle distance: taxi and climb
 * allowance plus cruise at about 800 km/h, rounded to 5 minutes. */
int sbx_block_minutes(int km);

/* Days since 1970 of a YYYY-MM-DD date, or -1. */
long sbx_day_parse(const char *s);

/* The itineraries from origin to dest departing on `day` (days since
 * 1970, the origin's local date), ordered by departure, then carrier and
 * flight: direct flights when the route exists, otherwise one-stop
 * connections through real hubs. Returns how many were written. */
int sbx_itineraries(const sbx_world *w, int origin, int dest, long day, sbx_itin *out,
                    int max);

/* A stable 64-bit hash (splitmix64 over the words). */
apr_uint64_t sbx_hash(apr_uint64_t a, apr_uint64_t b, apr_uint64_t c);

/* "2026-12-01T07:35:00" of a wall-clock time. */
void sbx_local_format(apr_int64_t local, char out[20]);

#endif
