#include "json_cache.h"
#include "json_arena.h"

#include <apr_thread_mutex.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *key;                /* malloc'd; NULL: a free slot */
    json_t *doc;
    apr_time_t expires;
} entry;

struct trv_json_cache {
    apr_thread_mutex_t *lock;
    int n;
    entry *slots;
};

static apr_status_t cache_free(void *v)
{
    trv_json_cache *c = v;
    int i;
    for (i = 0; i < c->n; i++) {
        free(c->slots[i].key);
        json_decref(c->slots[i].doc);
        c->slots[i].key = NULL;
        c->slots[i].doc = NULL;
    }
    return APR_SUCCESS;
}

trv_json_cache *trv_json_cache_create(apr_pool_t *p, int max_entries)
{
    trv_json_cache *c;
    if (max_entries < 1) {
        return NULL;
    }
    c = apr_pcalloc(p, sizeof(*c));
    if (apr_thread_mutex_create(&c->lock, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS) {
        return NULL;
    }
    c->n = max_entries;
    c->slots = apr_pcalloc(p, sizeof(entry) * (apr_size_t)max_entries);
    apr_pool_cleanup_register(p, c, cache_free, apr_pool_cleanup_null);
    return c;
}

json_t *trv_json_cache_get(trv_json_cache *c, const char *key, apr_time_t now)
{
    json_t *doc = NULL;
    int i;
    if (!c || !key) {
        return NULL;
    }
    apr_thread_mutex_lock(c->lock);
    for (i = 0; i < c->n; i++) {
        if (c->slots[i].key && strcmp(c->slots[i].key, key) == 0) {
            if (c->slots[i].expires > now) {
                doc = json_incref(c->slots[i].doc);
            }
            break;
        }
    }
    apr_thread_mutex_unlock(c->lock);
    return doc;
}

void trv_json_cache_put(trv_json_cache *c, const char *key, json_t *doc, apr_time_t now,
                        apr_interval_time_t ttl)
{
    entry *e = NULL;
    char *k;
    json_t *old = NULL;
    int i;
    if (!c || !key || !doc || ttl <= 0 || !(k = strdup(key))) {
        return;
    }
    apr_thread_mutex_lock(c->lock);
    /* The same key, else a free or expired slot, else the one that
     * expires first. */
    for (i = 0; i < c->n && !e; i++) {
        if (c->slots[i].key && strcmp(c->slots[i].key, key) == 0) {
            e = &c->slots[i];
        }
    }
    for (i = 0; i < c->n && !e; i++) {
        if (!c->slots[i].key || c->slots[i].expires <= now) {
            e = &c->slots[i];
        }
    }
    if (!e) {
        e = &c->slots[0];
        for (i = 1; i < c->n; i++) {
            if (c->slots[i].expires < e->expires) {
                e = &c->slots[i];
            }
        }
    }
    free(e->key);
    old = e->doc;
    e->key = k;
    /* Kept past the request: out of its arena (json_arena.h). */
    e->doc = trv_json_arena_detach(doc);
    e->expires = now + ttl;
    apr_thread_mutex_unlock(c->lock);
    /* The last reference may be a big tree: freed outside the lock. */
    json_decref(old);
}
