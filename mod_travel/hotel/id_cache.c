#include "id_cache.h"

#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <stdlib.h>
#include <string.h>

/* One kept group: its key's hash, then key and id in one allocation
 * (key, NUL, id, NUL). */
typedef struct slot {
    apr_uint64_t hash;
    apr_size_t len;          /* the key's */
    char *text;              /* malloc'd; NULL: empty */
} slot;

struct trv_hotel_id_cache {
    apr_thread_mutex_t *lock;
    apr_uint64_t mask;
    slot *slots;
};

static apr_status_t cache_free(void *v)
{
    trv_hotel_id_cache *c = v;
    apr_uint64_t i;
    for (i = 0; i <= c->mask; i++) {
        free(c->slots[i].text);
        c->slots[i].text = NULL;
    }
    return APR_SUCCESS;
}

trv_hotel_id_cache *trv_hotel_id_cache_create(apr_pool_t *p, int slots)
{
    trv_hotel_id_cache *c;
    apr_uint64_t n = 1;
    if (slots < 1) {
        return NULL;
    }
    while (n < (apr_uint64_t)slots) {
        n <<= 1;
    }
    c = apr_pcalloc(p, sizeof(*c));
    if (apr_thread_mutex_create(&c->lock, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS) {
        return NULL;
    }
    c->mask = n - 1;
    c->slots = apr_pcalloc(p, sizeof(slot) * n);
    apr_pool_cleanup_register(p, c, cache_free, apr_pool_cleanup_null);
    return c;
}

/* FNV-1a, 64 bits. */
static apr_uint64_t key_hash(const char *key, apr_size_t len)
{
    apr_uint64_t h = 14695981039346656037ULL;
    apr_size_t i;
    for (i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ULL;
    }
    return h;
}

const char *trv_hotel_id_cache_get(trv_hotel_id_cache *c, apr_pool_t *p, const char *key,
                                   apr_size_t len)
{
    apr_uint64_t h;
    const char *id = NULL;
    slot *s;
    if (!c || !key) {
        return NULL;
    }
    h = key_hash(key, len);
    s = &c->slots[h & c->mask];
    apr_thread_mutex_lock(c->lock);
    if (s->text && s->hash == h && s->len == len && memcmp(s->text, key, len) == 0) {
        id = apr_pstrdup(p, s->text + len + 1);
    }
    apr_thread_mutex_unlock(c->lock);
    return id;
}

void trv_hotel_id_cache_put(trv_hotel_id_cache *c, const char *key, apr_size_t len,
                            const char *id)
{
    apr_uint64_t h;
    apr_size_t idlen;
    char *text, *old;
    slot *s;
    if (!c || !key || !id) {
        return;
    }
    idlen = strlen(id);
    if (!(text = malloc(len + idlen + 2))) {
        return;
    }
    memcpy(text, key, len);
    text[len] = '\0';
    memcpy(text + len + 1, id, idlen + 1);
    h = key_hash(key, len);
    s = &c->slots[h & c->mask];
    apr_thread_mutex_lock(c->lock);
    old = s->text;
    s->text = text;
    s->hash = h;
    s->len = len;
    apr_thread_mutex_unlock(c->lock);
    free(old);
}
