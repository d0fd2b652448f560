/* Loading OpenFlights into the sandbox's compact indexes. */
#include "world.h"

#include <apr_file_io.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16

/* ---- CSV (OpenFlights: quoted fields, "" escapes, \N for null) ---- */

typedef struct csv_line {
    int n;
    const char *f[MAX_FIELDS];   /* NULL for \N */
} csv_line;

/* Splits one line in place; returns the end of the line. */
static char *csv_split(char *s, csv_line *out)
{
    out->n = 0;
    for (;;) {
        char *start, *w;
        if (*s == '"') {
            start = w = ++s;
            while (*s) {
                if (*s == '"' && s[1] == '"') {
                    *w++ = '"';
                    s += 2;
                }
                else if (*s == '"') {
                    s++;
                    break;
                }
                else {
                    *w++ = *s++;
                }
            }
            while (*s && *s != ',' && *s != '\n' && *s != '\r') {
                s++;
            }
        }
        else {
            start = s;
            while (*s && *s != ',' && *s != '\n' && *s != '\r') {
                s++;
            }
            w = s;
        }
        {
            char sep = *s;
            *w = '\0';
            if (out->n < MAX_FIELDS) {
                out->f[out->n++] = strcmp(start, "\\N") == 0 ? NULL : start;
            }
            if (sep == ',') {
                s++;
                continue;
            }
            if (sep) {
                s++; /* the separator may have been overwritten by the NUL */
            }
            while (*s == '\r' || *s == '\n') {
                s++;
            }
            return s;
        }
    }
}

static char *slurp(apr_pool_t *p, const char *dir, const char *name, const char **err)
{
    apr_file_t *f;
    apr_finfo_t fi;
    apr_size_t len;
    char *buf;
    const char *path = apr_pstrcat(p, dir, "/", name, NULL);
    if (apr_file_open(&f, path, APR_READ | APR_BINARY, 0, p) != APR_SUCCESS
        || apr_file_info_get(&fi, APR_FINFO_SIZE, f) != APR_SUCCESS) {
        *err = apr_psprintf(p, "cannot read %s", path);
        return NULL;
    }
    len = (apr_size_t)fi.size;
    buf = apr_palloc(p, len + 1);
    if (apr_file_read_full(f, buf, len, &len) != APR_SUCCESS) {
        apr_file_close(f);
        *err = apr_psprintf(p, "cannot read %s", path);
        return NULL;
    }
    apr_file_close(f);
    buf[len] = '\0';
    return buf;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) {
        n += *s == '\n';
    }
    return n + 1;
}

static int code3(const char *s)
{
    if (!s || strlen(s) != 3) {
        return -1;
    }
    {
        int a = toupper((unsigned char)s[0]) - 'A', b = toupper((unsigned char)s[1]) - 'A',
            c = toupper((unsigned char)s[2]) - 'A';
        if (a < 0 || a > 25 || b < 0 || b > 25 || c < 0 || c > 25) {
            return -1;
        }
        return (a * 26 + b) * 26 + c;
    }
}

static int alnum36(int ch)
{
    ch = toupper(ch);
    if (ch >= '0' && ch <= '9') {
        return ch - '0';
    }
    if (ch >= 'A' && ch <= 'Z') {
        return 10 + ch - 'A';
    }
    return -1;
}

static int code2(const char *s)
{
    int a, b;
    if (!s || strlen(s) != 2) {
        return -1;
    }
    a = alnum36((unsigned char)s[0]);
    b = alnum36((unsigned char)s[1]);
    return (a < 0 || b < 0) ? -1 : a * 36 + b;
}

/* ---- alliances (membership as of 2025; facts, not from OpenFlights) ---- */

static const char *const star[] = {"A3", "AC", "AI", "AV", "BR", "CA", "CM", "ET", "LH",
    "LO", "LX", "MS", "NH", "NZ", "OS", "OU", "OZ", "SA", "SN", "SQ", "TG", "TK", "TP",
    "UA", "ZH", NULL};
static const char *const oneworld[] = {"AA", "AS", "AT", "AY", "BA", "CX", "FJ", "IB",
    "JL", "MH", "QF", "QR", "RJ", "UL", "WY", NULL};
static const char *const skyteam[] = {"AF", "AM", "AR", "CI", "DL", "GA", "KE", "KL",
    "KQ", "ME", "MF", "MU", "RO", "SK", "SV", "UX", "VN", "VS", NULL};

const char *sbx_alliance_of(const char *iata)
{
    static const struct {
        const char *name;
        const char *const *members;
    } all[] = {{"Star Alliance", star}, {"oneworld", oneworld}, {"SkyTeam", skyteam}};
    size_t i;
    int j;
    if (!iata) {
        return NULL;
    }
    for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        for (j = 0; all[i].members[j]; j++) {
            if (strcasecmp(all[i].members[j], iata) == 0) {
                return all[i].name;
            }
        }
    }
    return NULL;
}

/* ---- loading ---- */

static void copy_code(char *dst, size_t cap, const char *src)
{
    dst[0] = '\0';
    if (src && strlen(src) < cap) {
        size_t i;
        for (i = 0; src[i]; i++) {
            dst[i] = (char)toupper((unsigned char)src[i]);
        }
        dst[i] = '\0';
    }
}

static apr_hash_t *load_countries(apr_pool_t *p, const char *dir, const char **err)
{
    char *buf = slurp(p, dir, "countries.dat", err), *s;
    apr_hash_t *h;
    if (!buf) {
        return NULL;
    }
    h = apr_hash_make(p);
    for (s = buf; *s;) {
        csv_line l;
        s = csv_split(s, &l);
        if (l.n >= 2 && l.f[0] && l.f[1] && strlen(l.f[1]) == 2) {
            apr_hash_set(h, l.f[0], APR_HASH_KEY_STRING, l.f[1]);
        }
    }
    return h;
}

static const char *country_code(apr_hash_t *countries, const char *name)
{
    const char *c = name ? apr_hash_get(countries, name, APR_HASH_KEY_STRING) : NULL;
    return c ? c : "";
}

typedef struct id_map {
    int *idx;
    int max;
} id_map;

static int id_lookup(const id_map *m, const char *s)
{
    long id;
    char *end;
    if (!s) {
        return -1;
    }
    id = strtol(s, &end, 10);
    if (*end || id < 0 || id > m->max) {
        return -1;
    }
    return m->idx[id];
}

static int load_airports(apr_pool_t *p, sbx_world *w, const char *dir, const char *zdir,
                         apr_hash_t *countries, id_map *ids, const char **err)
{
    char *buf = slurp(p, dir, "airports.dat", err), *s;
    apr_hash_t *zones = apr_hash_make(p);
    apr_pool_t *tmp;
    int cap;
    if (!buf) {
        return 0;
    }
    cap = count_lines(buf);
    w->airports = apr_pcalloc(p, sizeof(sbx_airport) * (apr_size_t)cap);
    w->airport_by_code = apr_palloc(p, sizeof(int) * 26 * 26 * 26);
    memset(w->airport_by_code, 0xff, sizeof(int) * 26 * 26 * 26);
    ids->max = 20000;
    ids->idx = apr_palloc(p, sizeof(int) * (apr_size_t)(ids->max + 1));
    memset(ids->idx, 0xff, sizeof(int) * (apr_size_t)(ids->max + 1));
    apr_pool_create(&tmp, p);
    for (s = buf; *s;) {
        csv_line l;
        sbx_airport *a;
        int code;
        long id;
        s = csv_split(s, &l);
        if (l.n < 12 || !l.f[0] || (code = code3(l.f[4])) < 0) {
            continue; /* no IATA code: no airline sells a ticket to it */
        }
        if (w->airport_by_code[code] >= 0) {
            continue; /* first entry of a code wins */
        }
        a = &w->airports[w->n_airports];
        copy_code(a->iata, sizeof(a->iata), l.f[4]);
        copy_code(a->icao, sizeof(a->icao), l.f[5]);
        a->name = l.f[1] ? l.f[1] : a->iata;
        a->city = l.f[2] ? l.f[2] : "";
        a->country = l.f[3] ? l.f[3] : "";
        copy_code(a->country_code, sizeof(a->country_code), country_code(countries, l.f[3]));
        a->lat = l.f[6] ? atof(l.f[6]) : 0;
        a->lon = l.f[7] ? atof(l.f[7]) : 0;
        a->fixed_offset = l.f[9] ? (long)(atof(l.f[9]) * 3600.0) : 0;
        if (l.f[11] && *l.f[11]) {
            sbx_tz *tz = apr_hash_get(zones, l.f[11], APR_HASH_KEY_STRING);
            if (!tz) {
                const char *zerr = NULL;
                tz = sbx_tz_load(p, zdir, l.f[11], &zerr);
                if (tz) {
                    apr_hash_set(zones, tz->name, APR_HASH_KEY_STRING, tz);
                    w->n_zones++;
                }
            }
            a->tz = tz;
            a->tz_name = tz ? tz->name : NULL;
        }
        id = atol(l.f[0]);
        if (id >= 0 && id <= ids->max) {
            ids->idx[id] = w->n_airports;
        }
        w->airport_by_code[code] = w->n_airports++;
    }
    apr_pool_destroy(tmp);
    return 1;
}

static int load_airlines(apr_pool_t *p, sbx_world *w, const char *dir,
                         apr_hash_t *countries, id_map *ids, apr_hash_t *by_icao,
                         const char **err)
{
    char *buf = slurp(p, dir, "airlines.dat", err), *s;
    int cap;
    if (!buf) {
        return 0;
    }
    cap = count_lines(buf);
    w->airlines = apr_pcalloc(p, sizeof(sbx_airline) * (apr_size_t)cap);
    ids->max = 25000;
    ids->idx = apr_palloc(p, sizeof(int) * (apr_size_t)(ids->max + 1));
    memset(ids->idx, 0xff, sizeof(int) * (apr_size_t)(ids->max + 1));
    for (s = buf; *s;) {
        csv_line l;
        sbx_airline *a;
        long id;
        s = csv_split(s, &l);
        if (l.n < 8 || !l.f[0] || (id = atol(l.f[0])) <= 0 || !l.f[1]) {
            continue;
        }
        a = &w->airlines[w->n_airlines];
        a->openflights_id = (int)id;
        if (code2(l.f[3]) >= 0) {
            copy_code(a->iata, sizeof(a->iata), l.f[3]);
        }
        if (l.f[4] && strlen(l.f[4]) == 3 && isalpha((unsigned char)l.f[4][0])) {
            copy_code(a->icao, sizeof(a->icao), l.f[4]);
            apr_hash_set(by_icao, a->icao, APR_HASH_KEY_STRING, (void *)(apr_uintptr_t)(w->n_airlines + 1));
        }
        a->name = l.f[1];
        a->callsign = l.f[5] && *l.f[5] ? l.f[5] : NULL;
        a->country = l.f[6] ? l.f[6] : "";
        copy_code(a->country_code, sizeof(a->country_code), country_code(countries, l.f[6]));
        a->active = l.f[7] && toupper((unsigned char)l.f[7][0]) == 'Y';
        a->alliance = a->iata[0] ? sbx_alliance_of(a->iata) : NULL;
        if (id <= ids->max) {
            ids->idx[id] = w->n_airlines;
        }
        w->n_airlines++;
    }
    return 1;
}

static int route_cmp(const void *x, const void *y)
{
    const sbx_route *a = x, *b = y;
    if (a->to != b->to) {
        return a->to - b->to;
    }
    if (a->airline != b->airline) {
        return a->airline - b->airline;
    }
    return (int)a->codeshare - (int)b->codeshare;
}

typedef struct raw_route {
    int from;
    sbx_route r;
} raw_route;

static int raw_cmp(const void *x, const void *y)
{
    const raw_route *a = x, *b = y;
    if (a->from != b->from) {
        return a->from - b->from;
    }
    return route_cmp(&a->r, &b->r);
}

static int airport_ref(const sbx_world *w, const id_map *ids, const char *code,
                       const char *id)
{
    int i = id_lookup(ids, id);
    if (i < 0) {
        int c = code3(code);
        i = c >= 0 ? w->airport_by_code[c] : -1;
    }
    return i;
}

static int load_routes(apr_pool_t *p, sbx_world *w, const char *dir, const id_map *aps,
                       const id_map *als, apr_hash_t *by_icao, const char **err)
{
    apr_pool_t *tmp;
    char *buf, *s;
    raw_route *raw;
    int n = 0, cap, i, k;
    apr_pool_create(&tmp, p);
    if (!(buf = slurp(tmp, dir, "routes.dat", err))) {
        apr_pool_destroy(tmp);
        return 0;
    }
    cap = count_lines(buf);
    raw = apr_palloc(tmp, sizeof(*raw) * (apr_size_t)cap);
    for (s = buf; *s;) {
        csv_line l;
        int from, to, al;
        s = csv_split(s, &l);
        if (l.n < 9 || (l.f[7] && strcmp(l.f[7], "0") != 0)) {
            continue; /* only direct (non-stop) services */
        }
        from = airport_ref(w, aps, l.f[2], l.f[3]);
        to = airport_ref(w, aps, l.f[4], l.f[5]);
        al = id_lookup(als, l.f[1]);
        if (al < 0 && l.f[0] && strlen(l.f[0]) == 3) {
            al = (int)(apr_uintptr_t)apr_hash_get(by_icao, l.f[0], APR_HASH_KEY_STRING) - 1;
        }
        if (al < 0 && l.f[0] && code2(l.f[0]) >= 0) {
            al = w->airline_by_code[code2(l.f[0])];
        }
        /* A ticket needs an IATA airline code and two IATA airports. */
        if (from < 0 || to < 0 || from == to || al < 0 || !w->airlines[al].iata[0]) {
            continue;
        }
        raw[n].from = from;
        raw[n].r.to = to;
        raw[n].r.airline = al;
        raw[n].r.codeshare = l.f[6] && toupper((unsigned char)l.f[6][0]) == 'Y';
        memset(raw[n].r.equipment, 0, sizeof(raw[n].r.equipment));
        if (l.f[8]) {
            size_t len = strcspn(l.f[8], " ");
            if (len > 3) {
                len = 3;
            }
            memcpy(raw[n].r.equipment, l.f[8], len);
        }
        n++;
    }
    qsort(raw, (size_t)n, sizeof(*raw), raw_cmp);
    w->routes = apr_palloc(p, sizeof(sbx_route) * (apr_size_t)(n ? n : 1));
    w->route_start = apr_palloc(p, sizeof(int) * (apr_size_t)(w->n_airports + 1));
    for (i = 0, k = 0; i < n; i++) {
        /* One entry per (origin, destination, airline): a carrier listed
         * both as operator and codesharer keeps the operating entry. */
        if (k > 0 && raw[i].from == raw[i - 1].from && raw[i].r.to == raw[i - 1].r.to
            && raw[i].r.airline == raw[i - 1].r.airline) {
            continue;
        }
        w->routes[k] = raw[i].r;
        raw[k].from = raw[i].from; /* keep the origin of kept entries */
        w->airlines[raw[i].r.airline].n_routes++;
        k++;
    }
    w->n_routes = k;
    for (i = 0, k = 0; i <= w->n_airports; i++) {
        while (k < w->n_routes && raw[k].from < i) {
            k++;
        }
        w->route_start[i] = k;
    }
    apr_pool_destroy(tmp);
    return 1;
}

/* Several airlines.dat entries share an IATA code (old and new carriers):
 * the code belongs to the active one with the most routes. */
static void index_airlines(sbx_world *w)
{
    int i;
    for (i = 0; i < w->n_airlines; i++) {
        const sbx_airline *a = &w->airlines[i], *cur;
        int c = code2(a->iata), have;
        if (c < 0) {
            continue;
        }
        have = w->airline_by_code[c];
        if (have < 0) {
            w->airline_by_code[c] = i;
            continue;
        }
        cur = &w->airlines[have];
        if ((a->active && !cur->active)
            || (a->active == cur->active && a->n_routes > cur->n_routes)) {
            w->airline_by_code[c] = i;
        }
    }
}

sbx_world *sbx_world_load(apr_pool_t *p, const char *data_dir, const char *zoneinfo_dir,
                          const char **err)
{
    sbx_world *w = apr_pcalloc(p, sizeof(*w));
    apr_pool_t *tmp;
    apr_hash_t *countries, *by_icao;
    id_map aps, als;
    int ok;

    apr_pool_create(&tmp, p);
    by_icao = apr_hash_make(tmp);
    w->airline_by_code = apr_palloc(p, sizeof(int) * 36 * 36);
    memset(w->airline_by_code, 0xff, sizeof(int) * 36 * 36);
    ok = (countries = load_countries(tmp, data_dir, err)) != NULL
      && load_airports(p, w, data_dir, zoneinfo_dir, countries, &aps, err)
      && load_airlines(p, w, data_dir, countries, &als, by_icao, err);
    if (ok) {
        /* A first index for routes that name carriers by code only; the
         * final one, which knows route counts, comes after. */
        index_airlines(w);
        ok = load_routes(p, w, data_dir, &aps, &als, by_icao, err);
        memset(w->airline_by_code, 0xff, sizeof(int) * 36 * 36);
        index_airlines(w);
    }
    if (ok && (w->n_airports == 0 || w->n_routes == 0)) {
        *err = apr_psprintf(p, "%s holds no airports or routes", data_dir);
        ok = 0;
    }
    if (ok && w->n_zones == 0) {
        *err = apr_psprintf(p, "no time zone could be read from %s (is tzdata installed?)",
                            zoneinfo_dir);
        ok = 0;
    }
    apr_pool_destroy(tmp);
    return ok ? w : NULL;
}

int sbx_airport_find(const sbx_world *w, const char *iata)
{
    int c = code3(iata);
    return c < 0 ? -1 : w->airport_by_code[c];
}

int sbx_airline_find(const sbx_world *w, const char *iata)
{
    int c = code2(iata);
    return c < 0 ? -1 : w->airline_by_code[c];
}

void sbx_routes_from(const sbx_world *w, int a, int *begin, int *end)
{
    *begin = w->route_start[a];
    *end = w->route_start[a + 1];
}

long sbx_airport_offset(const sbx_airport *a, apr_int64_t t)
{
    return a->tz ? sbx_tz_offset(a->tz, t) : a->fixed_offset;
}

apr_int64_t sbx_airport_utc(const sbx_airport *a, apr_int64_t local)
{
    return a->tz ? sbx_tz_utc_of_local(a->tz, local) : local - a->fixed_offset;
}

double sbx_distance_km(double lat1, double lon1, double lat2, double lon2)
{
    const double r = 6371.0088, rad = M_PI / 180.0;
    double dlat = (lat2 - lat1) * rad, dlon = (lon2 - lon1) * rad;
    double h = sin(dlat / 2) * sin(dlat / 2)
             + cos(lat1 * rad) * cos(lat2 * rad) * sin(dlon / 2) * sin(dlon / 2);
    return 2 * r * asin(sqrt(h > 1 ? 1 : h));
}

int sbx_airports_km(const sbx_world *w, int a, int b)
{
    const sbx_airport *x = &w->airports[a], *y = &w->airports[b];
    return (int)(sbx_distance_km(x->lat, x->lon, y->lat, y->lon) + 0.5);
}
