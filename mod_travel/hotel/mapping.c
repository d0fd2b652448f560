#include "mapping.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *trv_hotel_name_key(apr_pool_t *p, const char *name)
{
    char *out = apr_palloc(p, strlen(name ? name : "") + 1), *o = out;
    int space = 0;
    for (; name && *name; name++) {
        unsigned char c = (unsigned char)*name;
        if (isspace(c)) {
            space = o != out;
            continue;
        }
        if (space) {
            *o++ = ' ';
            space = 0;
        }
        *o++ = (char)tolower(c);
    }
    *o = '\0';
    return out;
}

double trv_hotel_distance_m(double lat1, double lon1, double lat2, double lon2)
{
    const double r = 6371000.0, rad = M_PI / 180.0;
    double dlat = (lat2 - lat1) * rad, dlon = (lon2 - lon1) * rad;
    double a = sin(dlat / 2) * sin(dlat / 2)
             + cos(lat1 * rad) * cos(lat2 * rad) * sin(dlon / 2) * sin(dlon / 2);
    return 2 * r * atan2(sqrt(a), sqrt(1 - a));
}

static int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* f's name key is key (made once per hotel, not once per group). */
static int same_hotel(const trv_hotel_group *g, const trv_hotel_found *f, const char *key)
{
    const trv_hotel_found *m = APR_ARRAY_IDX(g->members, 0, const trv_hotel_found *);
    return str_eq(m->country_code, f->country_code)
        && strcmp(g->name_key, key) == 0
        && str_eq(m->postal_code, f->postal_code) && *f->postal_code
        && trv_hotel_distance_m(m->latitude, m->longitude, f->latitude, f->longitude)
               <= TRV_HOTEL_MATCH_M;
}

static int has_supplier(const trv_hotel_group *g, const char *supplier)
{
    int i;
    for (i = 0; i < g->members->nelts; i++) {
        if (strcmp(APR_ARRAY_IDX(g->members, i, const trv_hotel_found *)->supplier,
                   supplier) == 0) {
            return 1;
        }
    }
    return 0;
}

static trv_hotel_group *new_group(apr_pool_t *p, apr_array_header_t *groups,
                                  const trv_hotel_found *f, const char *key)
{
    trv_hotel_group *g = apr_pcalloc(p, sizeof(*g));
    g->members = apr_array_make(p, 3, sizeof(const trv_hotel_found *));
    g->giata = f->giata;
    g->name_key = key ? key : trv_hotel_name_key(p, f->name);
    APR_ARRAY_PUSH(groups, trv_hotel_group *) = g;
    return g;
}

static void add(trv_hotel_group *g, const trv_hotel_found *f)
{
    APR_ARRAY_PUSH(g->members, const trv_hotel_found *) = f;
    if (f->priced && (!g->cheapest || f->total_minor < g->cheapest->total_minor)) {
        g->cheapest = f;
    }
}

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int by_price(const void *a, const void *b)
{
    const trv_hotel_group *x = *(trv_hotel_group *const *)a, *y = *(trv_hotel_group *const *)b;
    const trv_hotel_found *mx = APR_ARRAY_IDX(x->members, 0, const trv_hotel_found *);
    const trv_hotel_found *my = APR_ARRAY_IDX(y->members, 0, const trv_hotel_found *);
    int c;
    if (!x->cheapest != !y->cheapest) {
        return x->cheapest ? -1 : 1;
    }
    if (x->cheapest && x->cheapest->total_minor != y->cheapest->total_minor) {
        return x->cheapest->total_minor < y->cheapest->total_minor ? -1 : 1;
    }
    if ((c = strcmp(x->name_key, y->name_key)) != 0
        || (c = cmp_str(mx->country_code, my->country_code)) != 0
        || (c = cmp_str(mx->postal_code, my->postal_code)) != 0) {
        return c;
    }
    return cmp_str(mx->sid, my->sid);
}

apr_array_header_t *trv_hotel_group_found(apr_pool_t *p, const apr_array_header_t *found)
{
    apr_array_header_t *groups = apr_array_make(p, found->nelts + 1, sizeof(trv_hotel_group *));
    apr_hash_t *by_code = apr_hash_make(p);
    int i, k;

    /* Coded hotels first, so an uncoded one can join a coded group. */
    for (i = 0; i < found->nelts; i++) {
        const trv_hotel_found *f = APR_ARRAY_IDX(found, i, const trv_hotel_found *);
        const char *code;
        trv_hotel_group *g;
        if (!f->giata) {
            continue;
        }
        code = apr_pstrcat(p, f->country_code, ":", f->giata, NULL);
        g = apr_hash_get(by_code, code, APR_HASH_KEY_STRING);
        if (!g || has_supplier(g, f->supplier)) {
            g = new_group(p, groups, f, NULL);
            apr_hash_set(by_code, code, APR_HASH_KEY_STRING, g);
        }
        add(g, f);
    }
    for (i = 0; i < found->nelts; i++) {
        const trv_hotel_found *f = APR_ARRAY_IDX(found, i, const trv_hotel_found *);
        trv_hotel_group *g = NULL;
        const char *key;
        if (f->giata) {
            continue;
        }
        key = trv_hotel_name_key(p, f->name);
        for (k = 0; k < groups->nelts && !g; k++) {
            trv_hotel_group *c = APR_ARRAY_IDX(groups, k, trv_hotel_group *);
            if (!has_supplier(c, f->supplier) && same_hotel(c, f, key)) {
                g = c;
            }
        }
        add(g ? g : new_group(p, groups, f, key), f);
    }
    qsort(groups->elts, (size_t)groups->nelts, sizeof(trv_hotel_group *), by_price);
    return groups;
}
