/* The hotel catalogue; see catalog.h. */
#include "catalog.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const sbx_room_type room_types[SBX_ROOM_TYPES] = {
    {"DBL.ST", "Standard Double Room", 2, 3, 1000, "1 double bed"},
    {"TWN.ST", "Standard Twin Room", 2, 3, 1000, "2 single beds"},
    {"DBL.SU", "Superior Double Room", 2, 3, 1180, "1 queen bed"},
    {"DBL.DX", "Deluxe King Room", 2, 3, 1400, "1 king bed"},
    {"FAM.ST", "Family Room", 4, 5, 1650, "1 double bed and 2 single beds"},
    {"JSU.ST", "Junior Suite", 3, 4, 1900, "1 king bed and 1 sofa bed"},
    {"SGL.ST", "Single Room", 1, 1, 780, "1 single bed"},
};

static const sbx_board boards[SBX_BOARDS] = {
    {"RO", "Room only", 0},
    {"BB", "Bed and breakfast", 16},
    {"HB", "Half board", 34},
    {"AI", "All inclusive", 68},
};

/* Brands (fictional): chains first, independents' name patterns after. */
static const struct {
    const char *brand, *chain;
} brands[] = {
    {"Aster Suites", "Aster Hotels"}, {"Meridian Stay", "Meridian Group"},
    {"Northlight Hotel", "Northlight"}, {"Calder House", NULL},
    {"Harbor & Vine", NULL}, {"Grand Sterling", "Sterling Collection"},
    {"Parkway Residences", "Parkway"}, {"Bluebell Inn", "Bluebell Inns"},
    {"The Linden", NULL}, {"Hotel Aurora", NULL}, {"Copper Key Hotel", "Copper Key"},
    {"Villa Solace", NULL},
};
#define N_BRANDS ((int)(sizeof(brands) / sizeof(brands[0])))

static const char *const suffixes[] = {
    "Central", "Riverside", "Old Town", "Airport", "Station", "Park", "Gardens",
    "Harbour", "North", "Plaza", "City Centre", "Museum Quarter", "West End",
    "Conference Centre", "Boulevard", "Market Square",
};
#define N_SUFFIXES ((int)(sizeof(suffixes) / sizeof(suffixes[0])))

static const char *const streets[] = {
    "High Street", "Station Road", "Market Square", "Park Avenue", "Riverside Drive",
    "Church Lane", "Kings Road", "Harbour View", "Museum Street", "Garden Row",
    "Victoria Street", "Mill Lane", "Castle Hill", "Bridge Street", "Queens Walk",
    "Linden Allee",
};
#define N_STREETS ((int)(sizeof(streets) / sizeof(streets[0])))

/* The five cities that must page in search: 64 hotels each. */
static const struct {
    const char *city, *cc;
} big_cities[] = {
    {"London", "GB"}, {"Paris", "FR"}, {"New York", "US"}, {"Tokyo", "JP"}, {"Berlin", "DE"},
};

/* Which suppliers sell hotel i of a city: ABC AB ABC AC BC A B C. */
static const unsigned supplier_pattern[8] = {7, 3, 7, 5, 6, 1, 2, 4};

const sbx_room_type *sbx_room_type_get(int r)
{
    return r >= 0 && r < SBX_ROOM_TYPES ? &room_types[r] : NULL;
}

const sbx_board *sbx_board_get(int b)
{
    return b >= 0 && b < SBX_BOARDS ? &boards[b] : NULL;
}

int sbx_board_find(const char *code)
{
    int b;
    for (b = 0; code && b < SBX_BOARDS; b++) {
        if (strcasecmp(code, boards[b].code) == 0) {
            return b;
        }
    }
    return -1;
}

int sbx_hsupplier_parse(const char *s)
{
    if (!s) {
        return -1;
    }
    if (strncasecmp(s, "SUPPLIER_", 9) == 0) {
        s += 9;
    }
    if (s[0] && !s[1]) {
        int c = s[0] | 0x20;
        if (c >= 'a' && c <= 'c') {
            return c - 'a';
        }
    }
    return -1;
}

const char *sbx_hsupplier_name(int s)
{
    static const char *const names[] = {"SUPPLIER_A", "SUPPLIER_B", "SUPPLIER_C"};
    return s >= 0 && s < SBX_HOTEL_SUPPLIERS ? names[s] : NULL;
}

static apr_uint64_t mix(apr_uint64_t a, apr_uint64_t b)
{
    apr_uint64_t z = a * 0x9E3779B97F4A7C15ULL + b + 0x632BE59BD9B4E019ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* ---- supplier ids: an affine scramble modulo 2^k, invertible ---- */

static const struct {
    apr_uint64_t mul, add, mod_bits, offset;
} scramble[SBX_HOTEL_SUPPLIERS] = {
    {40507, 0x1A2B3, 24, 0},        /* A: "lp" + 6 hex digits */
    {7919, 4321, 20, 100000},       /* B: an integer code */
    {1000003, 777, 26, 10000000},   /* C: an 8-digit property id */
};

static apr_uint64_t inverse_mod2k(apr_uint64_t m, int bits)
{
    apr_uint64_t inv = m, mask = (bits == 64) ? ~0ULL : ((1ULL << bits) - 1);
    int i;
    for (i = 0; i < 6; i++) {
        inv *= 2 - m * inv;       /* Newton: doubles the correct bits */
    }
    return inv & mask;
}

char *sbx_hotel_sid(apr_pool_t *p, int s, int hotel)
{
    apr_uint64_t mask = (1ULL << scramble[s].mod_bits) - 1;
    apr_uint64_t v = ((apr_uint64_t)hotel * scramble[s].mul + scramble[s].add) & mask;
    /* By hand, not snprintf: every rate of an answer names its hotel. */
    char buf[24], *d = buf + sizeof(buf);
    int digits = 0;
    *--d = '\0';
    if (s == 0) {
        do {
            *--d = "0123456789abcdef"[v & 15];
            v >>= 4;
            digits++;
        } while (v || digits < 6);
        *--d = 'p';
        *--d = 'l';
    }
    else {
        v += scramble[s].offset;
        do {
            *--d = (char)('0' + v % 10);
            v /= 10;
        } while (v);
    }
    return apr_pstrdup(p, d);
}

int sbx_hotel_by_sid(const sbx_hotels *h, int s, const char *sid)
{
    apr_uint64_t v, mask, idx;
    char *end;
    if (!h || !sid || s < 0 || s >= SBX_HOTEL_SUPPLIERS) {
        return -1;
    }
    mask = (1ULL << scramble[s].mod_bits) - 1;
    if (s == 0) {
        if (strncmp(sid, "lp", 2) != 0 || strlen(sid) != 8) {
            return -1;
        }
        v = strtoull(sid + 2, &end, 16);
    }
    else {
        if (!*sid || strlen(sid) > 12 || sid[0] == '-' || sid[0] == '+') {
            return -1;
        }
        v = strtoull(sid, &end, 10);
        if (v < scramble[s].offset) {
            return -1;
        }
        v -= scramble[s].offset;
    }
    if (*end || v > mask) {
        return -1;
    }
    idx = ((v - scramble[s].add) * inverse_mod2k(scramble[s].mul, (int)scramble[s].mod_bits))
          & mask;
    if (idx >= (apr_uint64_t)h->n_hotels || !(h->hotels[idx].suppliers & (1u << s))) {
        return -1;
    }
    return (int)idx;
}

struct sbx_hotel_set {
    unsigned char *bits;
    int n;
};

sbx_hotel_set *sbx_hotel_set_make(apr_pool_t *p, const sbx_hotels *h)
{
    sbx_hotel_set *set = apr_palloc(p, sizeof(*set));
    set->n = h->n_hotels;
    set->bits = apr_pcalloc(p, (apr_size_t)h->n_hotels / 8 + 1);
    return set;
}

int sbx_hotel_set_add(sbx_hotel_set *set, int hotel)
{
    unsigned char bit;
    if (hotel < 0 || hotel >= set->n) {
        return 0;
    }
    bit = (unsigned char)(1u << (hotel % 8));
    if (set->bits[hotel / 8] & bit) {
        return 0;
    }
    set->bits[hotel / 8] |= bit;
    return 1;
}

/* ---- cities ---- */

typedef struct city_acc {
    const char *name;
    const char *cc;
    const char *country;
    double lat, lon;
    int n_airports, routes, best_airport, best_routes;
} city_acc;

static int by_routes(const void *a, const void *b)
{
    const city_acc *x = a, *y = b;
    if (x->routes != y->routes) {
        return y->routes - x->routes;
    }
    if (strcmp(x->cc, y->cc) != 0) {
        return strcmp(x->cc, y->cc);
    }
    return strcmp(x->name, y->name);
}

static int is_big(const city_acc *c)
{
    size_t i;
    for (i = 0; i < sizeof(big_cities) / sizeof(big_cities[0]); i++) {
        if (strcmp(c->name, big_cities[i].city) == 0 && strcmp(c->cc, big_cities[i].cc) == 0) {
            return 1;
        }
    }
    return 0;
}

static int hotels_for_rank(int rank, int big)
{
    if (big) {
        return 64;
    }
    return rank < 20 ? 40 : rank < 60 ? 24 : rank < 150 ? 16 : 10;
}

/* A point d metres from (lat, lon) on bearing b (radians). */
static void offset_point(double lat, double lon, double d, double b, double *olat,
                         double *olon)
{
    double dlat = d * cos(b) / 111195.0;
    double dlon = d * sin(b) / (111195.0 * cos(lat * M_PI / 180.0));
    *olat = lat + dlat;
    *olon = lon + dlon;
}

static void make_hotel(apr_pool_t *p, const sbx_hcity *c, int ci, int i, long index,
                       sbx_hotel *x)
{
    apr_uint64_t seed = mix((apr_uint64_t)ci * 131 + 7, (apr_uint64_t)i);
    apr_uint64_t r = seed;
    int brand = (i / N_SUFFIXES + ci * 5) % N_BRANDS;
    int r2;
    double dist, bearing;

    /* i % 16 picks the suffix and i / 16 moves the brand (from a start of
     * the city's own): names stay unique within a city for 192 hotels. */
    x->city = ci;
    x->seed = seed;
    x->name = apr_psprintf(p, "%s %s %s", brands[brand].brand, c->name,
                           suffixes[i % N_SUFFIXES]);
    x->chain = brands[brand].chain;
    r = mix(r, 1);
    x->stars = 2 + (int)(r % 4);
    if (x->chain && x->stars < 3) {
        x->stars = 3;
    }
    r = mix(r, 2);
    x->rating10 = 62 + (int)(r % 34) + (x->stars - 3) * 3;
    if (x->rating10 > 98) {
        x->rating10 = 98;
    }
    r = mix(r, 3);
    x->reviews = 40 + (int)(r % 4000);
    r = mix(r, 4);
    /* 300 m to 12 km from the centre, more of them near it. */
    dist = 300.0 + 11700.0 * pow((double)(r % 10000) / 10000.0, 1.6);
    bearing = (double)((r >> 20) % 3600) / 3600.0 * 2.0 * M_PI;
    offset_point(c->lat, c->lon, dist, bearing, &x->lat, &x->lon);
    r = mix(r, 5);
    x->street = streets[r % N_STREETS];
    x->street_no = 1 + (int)((r >> 8) % 180);
    x->postal_code = apr_psprintf(p, "%05u", (unsigned)((r >> 24) % 90000) + 10000);
    x->giata = 100000 + index * 3 + (long)(seed % 3);
    x->suppliers = supplier_pattern[i % 8];
    /* Rooms: the standard double always; 2 to 4 more. */
    r = mix(r, 6);
    x->rooms = 1u;
    for (r2 = 1; r2 < SBX_ROOM_TYPES; r2++) {
        if ((r >> (r2 * 3)) % 3 != 0) {
            x->rooms |= 1u << r2;
        }
    }
    if (x->stars >= 4) {
        x->rooms |= 1u << 3;         /* a deluxe room in every 4 and 5 star */
    }
    r = mix(r, 7);
    x->boards = 1u | 2u;             /* room only, breakfast */
    if (x->stars >= 3 && r % 3 == 0) {
        x->boards |= 4u;
    }
    if (r % 11 == 0) {
        x->boards |= 8u;
    }
    x->nrf = (r >> 8) % 4 != 0;
    x->free_cancel_days = (int[]){1, 2, 3, 7}[(r >> 12) % 4];
    x->price_permille = 850 + (int)((r >> 16) % 351);
}

sbx_hotels *sbx_hotels_build(apr_pool_t *p, const sbx_world *w, const char **err)
{
    apr_pool_t *tmp;
    apr_hash_t *seen;
    city_acc *acc;
    int n_acc = 0, a, i, total = 0, k;
    sbx_hotels *h;

    if (!w || w->n_airports == 0) {
        *err = "no airports loaded";
        return NULL;
    }
    apr_pool_create(&tmp, p);
    seen = apr_hash_make(tmp);
    acc = apr_pcalloc(tmp, sizeof(*acc) * (apr_size_t)w->n_airports);
    for (a = 0; a < w->n_airports; a++) {
        const sbx_airport *ap = &w->airports[a];
        int b, e, routes;
        const char *key;
        city_acc *c;
        sbx_routes_from(w, a, &b, &e);
        routes = e - b;
        if (routes <= 0 || !ap->city || !*ap->city || !ap->country_code[0]) {
            continue;
        }
        key = apr_pstrcat(tmp, ap->city, "|", ap->country_code, NULL);
        c = apr_hash_get(seen, key, APR_HASH_KEY_STRING);
        if (!c) {
            c = &acc[n_acc++];
            c->name = ap->city;
            c->cc = ap->country_code;
            c->country = ap->country;
            c->best_airport = a;
            apr_hash_set(seen, key, APR_HASH_KEY_STRING, c);
        }
        c->lat += ap->lat;
        c->lon += ap->lon;
        c->n_airports++;
        c->routes += routes;
        if (routes > c->best_routes) {
            c->best_routes = routes;
            c->best_airport = a;
        }
    }
    qsort(acc, (size_t)n_acc, sizeof(*acc), by_routes);
    h = apr_pcalloc(p, sizeof(*h));
    h->n_cities = n_acc < SBX_HOTEL_CITIES ? n_acc : SBX_HOTEL_CITIES;
    h->cities = apr_pcalloc(p, sizeof(sbx_hcity) * (apr_size_t)h->n_cities);
    for (i = 0; i < h->n_cities; i++) {
        sbx_hcity *c = &h->cities[i];
        c->name = acc[i].name;
        memcpy(c->country_code, acc[i].cc, 2);
        c->country = acc[i].country;
        c->lat = acc[i].lat / acc[i].n_airports;
        c->lon = acc[i].lon / acc[i].n_airports;
        c->airport = acc[i].best_airport;
        c->routes = acc[i].routes;
        c->rank = i;
        c->first = total;
        c->n = hotels_for_rank(i, is_big(&acc[i]));
        total += c->n;
    }
    h->n_hotels = total;
    h->hotels = apr_pcalloc(p, sizeof(sbx_hotel) * (apr_size_t)total);
    for (i = 0; i < h->n_cities; i++) {
        for (k = 0; k < h->cities[i].n; k++) {
            sbx_hotel *x = &h->hotels[h->cities[i].first + k];
            int s;
            make_hotel(p, &h->cities[i], i, k, h->cities[i].first + k, x);
            for (s = 0; s < SBX_HOTEL_SUPPLIERS; s++) {
                if (x->suppliers & (1u << s)) {
                    h->per_supplier[s]++;
                }
            }
        }
    }
    apr_pool_destroy(tmp);
    return h;
}

int sbx_hcity_find(const sbx_hotels *h, const char *name, const char *country_code)
{
    int i;
    for (i = 0; h && name && country_code && i < h->n_cities; i++) {
        if (strcasecmp(h->cities[i].name, name) == 0
            && strcasecmp(h->cities[i].country_code, country_code) == 0) {
            return i;
        }
    }
    return -1;
}

int sbx_hcity_by_code(const sbx_hotels *h, const sbx_world *w, const char *code)
{
    int a = code ? sbx_airport_find(w, code) : -1, i;
    if (a < 0) {
        return -1;
    }
    for (i = 0; i < h->n_cities; i++) {
        if (h->cities[i].airport == a) {
            return i;
        }
    }
    /* Any airport of a city names it. */
    for (i = 0; i < h->n_cities; i++) {
        if (strcmp(h->cities[i].name, w->airports[a].city) == 0
            && strcmp(h->cities[i].country_code, w->airports[a].country_code) == 0) {
            return i;
        }
    }
    return -1;
}

double sbx_hotel_distance_m(const sbx_hotel *x, double lat, double lon)
{
    return sbx_distance_km(x->lat, x->lon, lat, lon) * 1000.0;
}

typedef struct near_hit {
    int idx;
    double d;
} near_hit;

static int by_distance(const void *a, const void *b)
{
    const near_hit *x = a, *y = b;
    return x->d < y->d ? -1 : x->d > y->d ? 1 : x->idx - y->idx;
}

int sbx_hotels_near(const sbx_hotels *h, int s, double lat, double lon, double radius_m,
                    int *out, int max)
{
    near_hit *hits = malloc(sizeof(*hits) * (size_t)h->n_hotels);
    int i, n = 0;
    if (!hits) {
        return 0;
    }
    for (i = 0; i < h->n_hotels; i++) {
        double d;
        if (s >= 0 && !(h->hotels[i].suppliers & (1u << s))) {
            continue;
        }
        /* A cheap box test first: a degree of latitude is 111 km. */
        if (fabs(h->hotels[i].lat - lat) * 111195.0 > radius_m) {
            continue;
        }
        d = sbx_hotel_distance_m(&h->hotels[i], lat, lon);
        if (d <= radius_m) {
            hits[n].idx = i;
            hits[n].d = d;
            n++;
        }
    }
    qsort(hits, (size_t)n, sizeof(*hits), by_distance);
    for (i = 0; i < n && i < max; i++) {
        out[i] = hits[i].idx;
    }
    free(hits);
    return n;
}

long sbx_hotel_offset(const sbx_hotels *h, const sbx_world *w, int hotel, apr_int64_t t)
{
    return sbx_airport_offset(&w->airports[h->cities[h->hotels[hotel].city].airport], t);
}

void sbx_hotel_position(const sbx_hotel *x, int s, double *lat, double *lon)
{
    /* Up to about 25 m, a different way for each supplier. */
    apr_uint64_t r = mix(x->seed, 100 + (apr_uint64_t)s);
    *lat = x->lat + ((double)(r % 41) - 20.0) * 0.00001;
    *lon = x->lon + ((double)((r >> 16) % 41) - 20.0) * 0.00001;
}
