/* The sandbox's world: airports, airlines and routes from OpenFlights
 * (data/openflights, ODbL), with every airport's time zone read from the
 * system's TZif files. Loaded once per process (post_config) into compact
 * arrays with direct-index lookups; read-only afterwards, so every thread
 * of every request shares it without locks. */
#ifndef SBX_WORLD_H
#define SBX_WORLD_H

#include "tzif.h"

#include <apr_pools.h>

typedef struct sbx_airport {
    char iata[4];
    char icao[5];
    const char *name;
    const char *city;
    const char *country;         /* country name as OpenFlights spells it */
    char country_code[3];        /* ISO 3166-1 alpha-2, "" when unknown */
    double lat, lon;
    const sbx_tz *tz;            /* NULL: only the fixed offset is known */
    const char *tz_name;         /* IANA name, NULL when unknown */
    long fixed_offset;           /* seconds east of UTC, when tz is NULL */
} sbx_airport;

typedef struct sbx_airline {
    int openflights_id;
    char iata[3];
    char icao[4];
    const char *name;
    const char *callsign;
    const char *country;
    char country_code[3];
    int active;
    const char *alliance;        /* "Star Alliance", "oneworld", "SkyTeam" or NULL */
    int n_routes;                /* routes it flies or markets */
} sbx_airline;

/* One carrier on one direct route; the origin is implicit (the airport
 * whose slice of the array holds it). */
typedef struct sbx_route {
    int to;                      /* airport index */
    int airline;                 /* airline index */
    unsigned char codeshare;     /* marketed by `airline`, operated by another */
    char equipment[4];           /* first aircraft type the route lists */
} sbx_route;

typedef struct sbx_world {
    sbx_airport *airports;
    int n_airports;
    sbx_airline *airlines;
    int n_airlines;
    sbx_route *routes;           /* sorted by origin, destination, airline */
    int n_routes;
    int *route_start;            /* n_airports + 1 offsets into routes */
    int *airport_by_code;        /* 26^3 entries: IATA code -> index or -1 */
    int *airline_by_code;        /* 36^2 entries: IATA code -> index or -1 */
    int n_zones;
} sbx_world;

/* Reads airports.dat, airlines.dat, routes.dat and countries.dat from
 * data_dir and the zones from zoneinfo_dir. NULL and *err on failure. */
sbx_world *sbx_world_load(apr_pool_t *p, const char *data_dir,
                          const char *zoneinfo_dir, const char **err);

/* Index of an airport by IATA code (any case), or -1. */
int sbx_airport_find(const sbx_world *w, const char *iata);
/* Index of the airline selling under an IATA code, or -1. */
int sbx_airline_find(const sbx_world *w, const char *iata);
/* Routes leaving airport a: [*begin, *end) of w->routes. */
void sbx_routes_from(const sbx_world *w, int a, int *begin, int *end);

/* The UTC offset of an airport at UTC instant t (seconds east). */
long sbx_airport_offset(const sbx_airport *a, apr_int64_t t);
/* The UTC instant of a local wall-clock time at the airport. */
apr_int64_t sbx_airport_utc(const sbx_airport *a, apr_int64_t local);

/* Great-circle distance in kilometres (haversine, mean earth radius). */
double sbx_distance_km(double lat1, double lon1, double lat2, double lon2);
int sbx_airports_km(const sbx_world *w, int a, int b);

/* The alliance of an airline by IATA code (2025 membership), or NULL. */
const char *sbx_alliance_of(const char *iata);

#endif
