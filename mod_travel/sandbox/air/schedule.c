/* Timetables generated from the route network; see schedule.h. */
#include "schedule.h"
#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEGS_PER_ROUTE 64
#define MAX_HUBS 6
#define MAX_DETOUR_PERMILLE 1700

apr_uint64_t sbx_hash(apr_uint64_t a, apr_uint64_t b, apr_uint64_t c)
{
    apr_uint64_t words[3] = {a, b, c}, h = 0x9e3779b97f4a7c15ULL;
    int i;
    for (i = 0; i < 3; i++) {
        apr_uint64_t z = h + words[i] + 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        h = z ^ (z >> 31);
    }
    return h;
}

int sbx_block_minutes(int km)
{
    /* 35 minutes of taxi, climb and descent, then about 800 km/h. */
    int m = 35 + (km * 60 + 400) / 800;
    return ((m + 2) / 5) * 5;
}

long sbx_day_parse(const char *s)
{
    apr_time_t t;
    if (!s || trv_date_parse(s, &t) != APR_SUCCESS) {
        return -1;
    }
    return (long)(apr_time_sec(t) / 86400);
}

void sbx_local_format(apr_int64_t local, char out[20])
{
    long days = (long)(local >= 0 ? local / 86400 : (local - 86399) / 86400);
    unsigned secs = (unsigned)(local - (apr_int64_t)days * 86400) % 86400u;
    int y, m, d;
    unsigned f[6];
    int i;
    trv_civil_from_days(days, &y, &m, &d);
    /* "YYYY-MM-DDTHH:MM:SS", as %04u-%02u-%02uT%02u:%02u:%02u would write
     * it, without printf (every segment of every offer has two). */
    f[0] = (unsigned)y % 10000u;
    f[1] = (unsigned)m % 13u;
    f[2] = (unsigned)d % 32u;
    f[3] = secs / 3600u;
    f[4] = (secs / 60u) % 60u;
    f[5] = secs % 60u;
    out[0] = (char)('0' + f[0] / 1000);
    out[1] = (char)('0' + f[0] / 100 % 10);
    out[2] = (char)('0' + f[0] / 10 % 10);
    out[3] = (char)('0' + f[0] % 10);
    for (i = 1; i < 6; i++) {
        out[3 * i + 1] = i == 3 ? 'T' : i < 3 ? '-' : ':';
        out[3 * i + 2] = (char)('0' + f[i] / 10);
        out[3 * i + 3] = (char)('0' + f[i] % 10);
    }
    out[19] = '\0';
}

/* The entries of w->routes for from -> to: [*b, *e). */
static void route_range(const sbx_world *w, int from, int to, int *b, int *e)
{
    int lo, hi;
    sbx_routes_from(w, from, &lo, &hi);
    /* First entry with .to >= to. */
    {
        int l = lo, h = hi;
        while (l < h) {
            int mid = (l + h) / 2;
            if (w->routes[mid].to < to) {
                l = mid + 1;
            }
            else {
                h = mid;
            }
        }
        lo = l;
    }
    *b = lo;
    while (lo < hi && w->routes[lo].to == to) {
        lo++;
    }
    *e = lo;
}

static int route_exists(const sbx_world *w, int from, int to)
{
    int b, e, i;
    route_range(w, from, to, &b, &e);
    for (i = b; i < e; i++) {
        if (w->airlines[w->routes[i].airline].active) {
            return 1;
        }
    }
    return 0;
}

/* How often and when an operating carrier flies a route, in local minutes
 * after midnight. Depends on the carrier and route only, so the timetable
 * is the same every day. */
static int frequencies(const sbx_world *w, int op, int from, int to, int km, int *dep_min,
                       int *fno, int max)
{
    apr_uint64_t h = sbx_hash((apr_uint64_t)w->airlines[op].openflights_id,
                              (apr_uint64_t)from, (apr_uint64_t)to);
    int nmax = km < 1500 ? 4 : km < 4000 ? 3 : 2;
    int n = 1 + (int)(h % (apr_uint64_t)nmax), k;
    int window = 22 * 60 + 30 - 6 * 60, seg;
    int base = 1 + (int)((h >> 16) % 3900);
    if (n > max) {
        n = max;
    }
    seg = window / n;
    for (k = 0; k < n; k++) {
        int jitter = (int)(sbx_hash(h, (apr_uint64_t)k, 7) % (apr_uint64_t)(seg > 35 ? seg - 30 : 5));
        int m = 6 * 60 + k * seg + jitter;
        dep_min[k] = (m / 5) * 5;
        fno[k] = base + 2 * k;
    }
    return n;
}

static void make_leg(const sbx_world *w, sbx_leg *l, int from, int to, int mkt, int op,
                     int fno, int op_fno, long day, int dep_min, int km, const char *eq)
{
    const sbx_airport *a = &w->airports[from], *b = &w->airports[to];
    l->from = from;
    l->to = to;
    l->mkt = mkt;
    l->op = op;
    l->flight_no = fno;
    l->op_flight_no = op_fno;
    l->km = km;
    l->block_min = sbx_block_minutes(km);
    l->dep_local = (apr_int64_t)day * 86400 + (apr_int64_t)dep_min * 60;
    l->dep_utc = sbx_airport_utc(a, l->dep_local);
    l->arr_utc = l->dep_utc + (apr_int64_t)l->block_min * 60;
    l->arr_local = l->arr_utc + sbx_airport_offset(b, l->arr_utc);
    memcpy(l->equipment, eq, sizeof(l->equipment));
}

/* Every flight from -> to departing on local date `day`: the operating
 * carriers' own flights, and codeshare flights of marketing carriers on a
 * partner's aircraft. */
static int direct_legs(const sbx_world *w, int from, int to, long day, sbx_leg *out, int max)
{
    int b, e, i, n = 0, nops = 0;
    int ops[32];
    int km = sbx_airports_km(w, from, to);
    route_range(w, from, to, &b, &e);
    for (i = b; i < e && nops < 32; i++) {
        const sbx_route *r = &w->routes[i];
        if (!r->codeshare && w->airlines[r->airline].active) {
            ops[nops++] = i;
        }
    }
    for (i = b; i < e; i++) {
        const sbx_route *r = &w->routes[i], *opr = r;
        int dep[4], fno[4], nf, k, mkt_base = 0;
        if (!w->airlines[r->airline].active) {
            continue;
        }
        if (r->codeshare && nops > 0) {
            /* The partner operating the flight: an alliance member when one
             * flies the route, otherwise one of the operators. */
            apr_uint64_t h = sbx_hash((apr_uint64_t)w->airlines[r->airline].openflights_id,
                                      (apr_uint64_t)from, (apr_uint64_t)to);
            const char *al = w->airlines[r->airline].alliance;
            int k2, pick = ops[h % (apr_uint64_t)nops];
            for (k2 = 0; al && k2 < nops; k2++) {
                const char *oal = w->airlines[w->routes[ops[k2]].airline].alliance;
                if (oal && strcmp(oal, al) == 0) {
                    pick = ops[k2];
                    break;
                }
            }
            opr = &w->routes[pick];
            mkt_base = 5000 + (int)((h >> 24) % 4000);
        }
        nf = frequencies(w, opr->airline, from, to, km, dep, fno, 4);
        for (k = 0; k < nf && n < max; k++) {
            make_leg(w, &out[n++], from, to, r->airline, opr->airline,
                     mkt_base ? mkt_base + k : fno[k], fno[k], day, dep[k], km,
                     opr->equipment);
        }
    }
    return n;
}

static int itin_cmp(const void *x, const void *y)
{
    const sbx_itin *a = x, *b = y;
    int i;
    if (a->legs[0].dep_utc != b->legs[0].dep_utc) {
        return a->legs[0].dep_utc < b->legs[0].dep_utc ? -1 : 1;
    }
    if (a->n != b->n) {
        return a->n - b->n;
    }
    for (i = 0; i < a->n; i++) {
        if (a->legs[i].mkt != b->legs[i].mkt) {
            return a->legs[i].mkt - b->legs[i].mkt;
        }
        if (a->legs[i].flight_no != b->legs[i].flight_no) {
            return a->legs[i].flight_no - b->legs[i].flight_no;
        }
        if (a->legs[i].dep_utc != b->legs[i].dep_utc) {
            return a->legs[i].dep_utc < b->legs[i].dep_utc ? -1 : 1;
        }
    }
    return 0;
}

typedef struct hub {
    int at;
    int detour; /* permille of the direct distance */
} hub;

static int hub_cmp(const void *x, const void *y)
{
    const hub *a = x, *b = y;
    return a->detour != b->detour ? a->detour - b->detour : a->at - b->at;
}

/* 2 same marketing carrier, 1 same alliance, 0 interline. */
static int partnership(const sbx_world *w, const sbx_leg *a, const sbx_leg *b)
{
    const char *x = w->airlines[a->mkt].alliance, *y = w->airlines[b->mkt].alliance;
    if (a->mkt == b->mkt) {
        return 2;
    }
    return (x && y && strcmp(x, y) == 0) ? 1 : 0;
}

static int connections(const sbx_world *w, int origin, int dest, long day, sbx_itin *out,
                       int max, int interline)
{
    hub hubs[512];
    int nh = 0, i, b, e, n = 0, direct_km = sbx_airports_km(w, origin, dest);
    sbx_leg first[MAX_LEGS_PER_ROUTE], second[2 * MAX_LEGS_PER_ROUTE];
    if (direct_km <= 0) {
        return 0;
    }
    sbx_routes_from(w, origin, &b, &e);
    for (i = b; i < e; i++) {
        int h = w->routes[i].to, detour;
        if (h == dest || (nh > 0 && hubs[nh - 1].at == h) || nh >= 512) {
            continue;
        }
        detour = (int)((long)(sbx_airports_km(w, origin, h) + sbx_airports_km(w, h, dest))
                       * 1000 / direct_km);
        if (detour <= MAX_DETOUR_PERMILLE && route_exists(w, origin, h)
            && route_exists(w, h, dest)) {
            hubs[nh].at = h;
            hubs[nh].detour = detour;
            nh++;
        }
    }
    qsort(hubs, (size_t)nh, sizeof(hub), hub_cmp);
    for (i = 0; i < nh && i < MAX_HUBS; i++) {
        int h = hubs[i].at, n1, n2, j, k;
        n1 = direct_legs(w, origin, h, day, first, MAX_LEGS_PER_ROUTE);
        /* The onward flight may leave the next day (an overnight stop). */
        n2 = direct_legs(w, h, dest, day, second, MAX_LEGS_PER_ROUTE);
        n2 += direct_legs(w, h, dest, day + 1, second + n2, MAX_LEGS_PER_ROUTE);
        for (j = 0; j < n1 && n < max; j++) {
            int best = -1, best_rank = -1, min_rank = interline ? 0 : 1;
            for (k = 0; k < n2; k++) {
                apr_int64_t wait = (second[k].dep_utc - first[j].arr_utc) / 60;
                int rank;
                if (wait < SBX_MIN_CONNECT || wait > SBX_MAX_CONNECT) {
                    continue;
                }
                /* The best partnership first, then the shortest wait. */
                rank = partnership(w, &first[j], &second[k]);
                if (rank >= min_rank
                    && (best < 0 || rank > best_rank
                        || (rank == best_rank && second[k].dep_utc < second[best].dep_utc))) {
                    best = k;
                    best_rank = rank;
                }
            }
            if (best >= 0) {
                out[n].n = 2;
                out[n].legs[0] = first[j];
                out[n].legs[1] = second[best];
                n++;
            }
        }
    }
    return n;
}

int sbx_itineraries(const sbx_world *w, int origin, int dest, long day, sbx_itin *out,
                    int max)
{
    sbx_leg legs[MAX_LEGS_PER_ROUTE];
    int n = 0, i;
    if (origin < 0 || dest < 0 || origin == dest) {
        return 0;
    }
    if (route_exists(w, origin, dest)) {
        int nl = direct_legs(w, origin, dest, day, legs, MAX_LEGS_PER_ROUTE);
        for (i = 0; i < nl && n < max; i++) {
            out[n].n = 1;
            out[n].legs[0] = legs[i];
            n++;
        }
    }
    else {
        n = connections(w, origin, dest, day, out, max, 0);
        if (n == 0) {
            /* No online or alliance connection: sell a self-transfer. */
            n = connections(w, origin, dest, day, out, max, 1);
        }
    }
    qsort(out, (size_t)n, sizeof(sbx_itin), itin_cmp);
    return n;
}
