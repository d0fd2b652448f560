#include "search_cache.h"
#include "core/crypt.h"
#include "core/ids.h"
#include "core/json_arena.h"
#include "core/jval.h"
#include "mapping.h"
#include "core/shared_cache.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* A new version of the stored shape changes this, so a node running the
 * old one never reads it. */
#define SHAPE "hs1"

const char *trv_hotel_search_cache_key(apr_pool_t *p, const trv_upstream *up,
                                       const trv_hotel_area *area, const trv_hotel_stay *stay)
{
    const char *text = apr_psprintf(p, SHAPE "|%s|%s|%s|%s|%s|", up->name, up->protocol,
                                    up->base_url, up->api_key ? up->api_key : "",
                                    up->api_secret ? up->api_secret : "");
    int i, k;
    if (area->by_point) {
        text = apr_psprintf(p, "%spoint|%.7f|%.7f|%d|", text, area->latitude, area->longitude,
                            area->radius_m);
    }
    else {
        text = apr_psprintf(p, "%scity|%s|%s|", text, area->city, area->country_code);
    }
    text = apr_psprintf(p, "%s%s|%s|%s|%s|%s|%d", text, stay->check_in, stay->check_out,
                        stay->currency, stay->nationality ? stay->nationality : "",
                        stay->residence ? stay->residence : "", stay->n_rooms);
    for (i = 0; i < stay->n_rooms; i++) {
        text = apr_psprintf(p, "%s|%d", text, stay->rooms[i].adults);
        for (k = 0; k < stay->rooms[i].n_children; k++) {
            text = apr_psprintf(p, "%s,%d", text, stay->rooms[i].ages[k]);
        }
    }
    /* Hashed: the credentials in it never reach the store. */
    return apr_pstrcat(p, "trv:hsearch:", trv_crypt_sha_hex(p, text, 256), NULL);
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

void trv_hotel_search_cache_put(const trv_env *env, apr_pool_t *p, const char *key,
                                const apr_array_header_t *list, apr_interval_time_t fresh)
{
    apr_time_t now = apr_time_now();
    json_t *rows = json_array(), *doc;
    char *text;
    int i;
    if (!env->search_cache || fresh <= 0) {
        json_decref(rows);
        return;
    }
    for (i = 0; list && i < list->nelts; i++) {
        const trv_hotel_found *f = &APR_ARRAY_IDX(list, i, trv_hotel_found);
        json_array_append_new(rows, json_pack("[o,o,o,o,o,o,f,f,b,I]", str(f->sid),
                                              str(f->name), str(f->city),
                                              str(f->country_code), str(f->postal_code),
                                              str(f->giata), f->latitude, f->longitude,
                                              f->priced, (json_int_t)f->total_minor));
    }
    doc = json_pack("{s:I,s:o}", "at", (json_int_t)now, "hotels", rows);
    text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (text) {
        env->search_cache->put(env->search_cache, key, text, strlen(text), now + fresh, p);
        trv_json_free(text);
    }
}

int trv_hotel_search_cache_get(const trv_env *env, apr_pool_t *p, const char *key,
                               const char *supplier, apr_array_header_t **list,
                               apr_time_t *cached_at)
{
    char *text;
    apr_size_t len, i;
    const trv_jval *doc, *rows, *r;
    /* Read in place (text is this request's copy): the strings of the
     * list are the text's own. */
    if (!env->search_cache || !env->search_cache->get(env->search_cache, key, p, &text, &len)
        || !(doc = trv_jval_parse(p, text, len, NULL))) {
        return 0;
    }
    rows = trv_jval_get(doc, "hotels");
    if (!trv_jval_is_array(rows) || !trv_jval_is_int(trv_jval_get(doc, "at"))) {
        return 0;
    }
    *cached_at = (apr_time_t)trv_jval_int(trv_jval_get(doc, "at"));
    *list = apr_array_make(p, (int)trv_jval_len(rows) + 1, sizeof(trv_hotel_found));
    trv_jval_foreach(rows, i, r) {
        trv_hotel_found *f = apr_array_push(*list);
        /* The row's ten fields, in the order put writes them. */
        const trv_jval *v[10] = {NULL};
        const trv_jval *item;
        apr_size_t k;
        trv_jval_foreach(r, k, item) {
            if (k < 10) {
                v[k] = item;
            }
        }
        memset(f, 0, sizeof(*f));
        f->supplier = supplier;
        f->sid = trv_jval_str(v[0]);
        f->name = trv_jval_str(v[1]);
        f->city = trv_jval_str(v[2]);
        f->country_code = trv_jval_str(v[3]);
        f->postal_code = trv_jval_str(v[4]);
        f->giata = trv_jval_str(v[5]);
        f->latitude = trv_jval_is(v[6], TRV_JVAL_REAL) ? v[6]->u.d : 0;
        f->longitude = trv_jval_is(v[7], TRV_JVAL_REAL) ? v[7]->u.d : 0;
        f->priced = trv_jval_is_true(v[8]);
        f->total_minor = trv_jval_int(v[9]);
        if (!f->sid) {
            return 0;
        }
    }
    return 1;
}

/* A new shape of the ids entry changes this. */
#define IDS_SHAPE "hi1"

const char *trv_hotel_search_cache_ids_key(apr_pool_t *p, const apr_array_header_t *page)
{
    const char *text = IDS_SHAPE;
    int i, k;
    for (i = 0; i < page->nelts; i++) {
        const trv_hotel_group *g = APR_ARRAY_IDX(page, i, const trv_hotel_group *);
        text = apr_pstrcat(p, text, "\n", NULL);
        for (k = 0; k < g->members->nelts; k++) {
            const trv_hotel_found *f = APR_ARRAY_IDX(g->members, k, const trv_hotel_found *);
            /* Names and ids carry no NUL; | and \n may appear: lengths too. */
            text = apr_psprintf(p, "%s%d:%s|%d:%s|", text, (int)strlen(f->supplier), f->supplier,
                                (int)strlen(f->sid), f->sid);
        }
    }
    return apr_pstrcat(p, "trv:hids:", trv_crypt_sha_hex(p, text, 256), NULL);
}

int trv_hotel_search_cache_ids_get(const trv_env *env, apr_pool_t *p, const char *key, int n,
                                   const char *const **ids)
{
    const char **out;
    char *text, *id, *last;
    apr_size_t len;
    int i = 0;
    if (!env->search_cache || !env->search_cache->get(env->search_cache, key, p, &text, &len)) {
        return 0;
    }
    out = apr_pcalloc(p, sizeof(char *) * (apr_size_t)(n + 1));
    for (id = apr_strtok(text, ",", &last); id; id = apr_strtok(NULL, ",", &last)) {
        if (i == n || !trv_id_valid(id, "htl")) {
            return 0;
        }
        out[i++] = id;
    }
    if (i != n) {
        return 0;
    }
    *ids = out;
    return 1;
}

void trv_hotel_search_cache_ids_put(const trv_env *env, apr_pool_t *p, const char *key,
                                    const char *const *ids, int n, apr_interval_time_t fresh)
{
    const char *text = "";
    int i;
    if (!env->search_cache || fresh <= 0 || n <= 0) {
        return;
    }
    for (i = 0; i < n; i++) {
        text = apr_pstrcat(p, text, i ? "," : "", ids[i], NULL);
    }
    env->search_cache->put(env->search_cache, key, text, strlen(text),
                           apr_time_now() + fresh, p);
}
