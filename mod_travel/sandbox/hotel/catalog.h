/* The sandbox's hotel world: a deterministic catalogue of hotels standing
 * in the cities of the OpenFlights airports, and each hotel supplier's
 * view of it with its own ids.
 *
 * Built once per configuration (post_config, after the world) from the
 * airports alone, so every child and every restart has the same hotels:
 *   - cities: airports grouped by (city, country), ranked by the routes
 *     leaving them; the SBX_HOTEL_CITIES busiest get hotels, placed within
 *     12 km of the mean position of the city's airports;
 *   - 10 to 64 hotels a city by rank (London GB, Paris FR, New York US,
 *     Tokyo JP and Berlin DE: 64, at least 40 with each supplier);
 *   - each hotel sold by one, two or three suppliers (a fixed pattern of
 *     eight: ABC AB ABC AC BC A B C), so 5/8 of the hotels are sold twice
 *     or more.
 * Every supplier has its own id for a hotel (an invertible scramble of the
 * hotel's index), and shows the data aggregators map hotels with: name,
 * coordinates, address and postal code, and a GIATA-like code that
 * SUPPLIER_A and SUPPLIER_B carry (SUPPLIER_C does not). */
#ifndef SBX_HOTEL_CATALOG_H
#define SBX_HOTEL_CATALOG_H

#include "sandbox/world.h"

#define SBX_HOTEL_CITIES 400
#define SBX_HOTEL_SUPPLIERS 3      /* 0 = SUPPLIER_A, 1 = B, 2 = C */
#define SBX_ROOM_TYPES 7
#define SBX_BOARDS 4               /* RO, BB, HB, AI */

typedef struct sbx_hcity {
    const char *name;
    char country_code[3];
    const char *country;
    double lat, lon;               /* mean of the city's airports */
    int airport;                   /* its busiest airport (world index) */
    int routes;                    /* routes leaving its airports */
    int rank;                      /* 0 = busiest */
    int first, n;                  /* its hotels: [first, first + n) */
} sbx_hcity;

typedef struct sbx_hotel {
    int city;                      /* index into cities */
    const char *name;
    const char *chain;             /* NULL: independent */
    int stars;                     /* 2..5 */
    int rating10;                  /* guest rating out of 10, tenths (72 = 7.2) */
    int reviews;
    double lat, lon;
    int street_no;
    const char *street;
    const char *postal_code;
    long giata;                    /* the shared mapping code */
    unsigned suppliers;            /* bit s: sold by supplier s */
    unsigned rooms;                /* bit r: offers room type r */
    unsigned boards;               /* bit b: offers board b */
    int nrf;                       /* sells non-refundable rates too */
    int free_cancel_days;          /* refundable: free until this many days before */
    int price_permille;            /* the hotel's own price level */
    apr_uint64_t seed;
} sbx_hotel;

typedef struct sbx_room_type {
    const char *code;              /* DBL.ST, ... (Hotelbeds-like) */
    const char *name;
    int max_adults, max_occupancy;
    int price_permille;            /* relative to a Standard Double */
    const char *bed;               /* "1 double bed", ... */
} sbx_room_type;

typedef struct sbx_board {
    const char *code;              /* RO, BB, HB, AI */
    const char *name;              /* Room only, ... */
    int eur_per_adult;             /* supplement per adult and night */
} sbx_board;

typedef struct sbx_hotels {
    sbx_hcity *cities;
    int n_cities;
    sbx_hotel *hotels;
    int n_hotels;
    int per_supplier[SBX_HOTEL_SUPPLIERS];
} sbx_hotels;

/* Builds the catalogue from the loaded world; NULL and *err on failure. */
sbx_hotels *sbx_hotels_build(apr_pool_t *p, const sbx_world *w, const char **err);

const sbx_room_type *sbx_room_type_get(int r);
const sbx_board *sbx_board_get(int b);
int sbx_board_find(const char *code);          /* -1 when unknown */

/* "SUPPLIER_A".."SUPPLIER_C", "A".."C" (any case) -> 0..2, else -1. */
int sbx_hsupplier_parse(const char *s);
const char *sbx_hsupplier_name(int s);         /* SUPPLIER_A ... */

/* A hotel's id at supplier s: "lp3f9a1c" (A), "184217" (B), "31877420"
 * (C); the index of the hotel an id names there, or -1 (unknown, or not
 * sold by that supplier). */
char *sbx_hotel_sid(apr_pool_t *p, int s, int hotel);
int sbx_hotel_by_sid(const sbx_hotels *h, int s, const char *sid);

/* The hotels a request has answered so far: a supplier answers a hotel
 * once however often the request names it, as the real APIs do (and a
 * request naming one hotel 250 times costs what naming it once does). */
typedef struct sbx_hotel_set sbx_hotel_set;
sbx_hotel_set *sbx_hotel_set_make(apr_pool_t *p, const sbx_hotels *h);
/* 1 when hotel was not in the set (it is now), 0 when it was. */
int sbx_hotel_set_add(sbx_hotel_set *set, int hotel);

/* A city by name and country code (case-insensitive), or -1. */
int sbx_hcity_find(const sbx_hotels *h, const char *name, const char *country_code);
/* A city by the IATA code of one of its airports (Hotelbeds-style
 * destination codes are the busiest airport's code), or -1. */
int sbx_hcity_by_code(const sbx_hotels *h, const sbx_world *w, const char *code);

/* Hotels of supplier s within radius_m of a point, nearest first; writes
 * up to max indexes and returns how many matched in all. */
int sbx_hotels_near(const sbx_hotels *h, int s, double lat, double lon, double radius_m,
                    int *out, int max);
/* Metres from a point to a hotel. */
double sbx_hotel_distance_m(const sbx_hotel *x, double lat, double lon);

/* The local time offset of the hotel's city (its airport's zone) at t. */
long sbx_hotel_offset(const sbx_hotels *h, const sbx_world *w, int hotel, apr_int64_t t);

/* A supplier's small, deterministic deviations from the catalogue, as
 * real suppliers' content differs: coordinates moved a few metres. */
void sbx_hotel_position(const sbx_hotel *x, int s, double *lat, double *lon);

#endif
