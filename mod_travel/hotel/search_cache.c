#include "search_cache.h"
#include "core/crypt.h"
#include "core/ids.h"
#include "core/json_arena.h"
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

static const char *pstr(apr_pool_t *p, const json_t *v)
{
    return json_is_string(v) ? apr_pstrdup(p, json_string_value(v)) : NULL;
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
    apr_size_t len;
    json_t *doc, *rows, *r;
    size_t i;
    if (!env->search_cache || !env->search_cache->get(env->search_cache, key, p, &text, &len)
        || !(doc = json_loadb(text, len, 0, NULL))) {
        return 0;
    }
    rows = json_object_get(doc, "hotels");
    if (!json_is_array(rows) || !json_is_integer(json_object_get(doc, "at"))) {
        json_decref(doc);
        return 0;
    }
    *cached_at = (apr_time_t)json_integer_value(json_object_get(doc, "at"));
    *list = apr_array_make(p, (int)json_array_size(rows) + 1, sizeof(trv_hotel_found));
    json_array_foreach(rows, i, r) {
        trv_hotel_found *f = apr_array_push(*list);
        memset(f, 0, sizeof(*f));
        f->supplier = supplier;
        f->sid = pstr(p, json_array_get(r, 0));
        f->name = pstr(p, json_array_get(r, 1));
        f->city = pstr(p, json_array_get(r, 2));
        f->country_code = pstr(p, json_array_get(r, 3));
        f->postal_code = pstr(p, json_array_get(r, 4));
        f->giata = pstr(p, json_array_get(r, 5));
        f->latitude = json_real_value(json_array_get(r, 6));
        f->longitude = json_real_value(json_array_get(r, 7));
        f->priced = json_is_true(json_array_get(r, 8));
        f->total_minor = (apr_int64_t)json_integer_value(json_array_get(r, 9));
        if (!f->sid) {
            json_decref(doc);
            return 0;
        }
    }
    json_decref(doc);
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
