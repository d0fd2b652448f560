#include "text_cache.h"

#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <stdlib.h>
#include <string.h>

/* One entry: its key's hash and the generation it was kept in, then key
 * and text in one allocation (key, NUL, text, NUL). */
typedef struct slot {
    apr_uint64_t hash;
    apr_uint64_t generation;
    apr_size_t len;          /* the key's */
    char *text;              /* malloc'd; NULL: empty */
} slot;

struct trv_text_cache {
    apr_thread_mutex_t *lock;
    apr_uint64_t mask;
    apr_uint64_t generation; /* a flush moves it on: older entries are dead */
    slot *slots;
};

static apr_status_t cache_free(void *v)
{
    trv_text_cache *c = v;
    apr_uint64_t i;
    for (i = 0; i <= c->mask; i++) {
        free(c->slots[i].text);
        c->slots[i].text = NULL;
    }
    return APR_SUCCESS;
}

trv_text_cache *trv_text_cache_create(apr_pool_t *p, int slots)
{
    trv_text_cache *c;
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

const char *trv_text_cache_get(trv_text_cache *c, apr_pool_t *p, const char *key,
                               apr_size_t len)
{
    apr_uint64_t h;
    const char *text = NULL;
    slot *s;
    if (!c || !key) {
        return NULL;
    }
    h = key_hash(key, len);
    s = &c->slots[h & c->mask];
    apr_thread_mutex_lock(c->lock);
    if (s->text && s->generation == c->generation && s->hash == h && s->len == len
        && memcmp(s->text, key, len) == 0) {
        text = apr_pstrdup(p, s->text + len + 1);
    }
    apr_thread_mutex_unlock(c->lock);
    return text;
}

trv_text_stamp trv_text_cache_stamp(trv_text_cache *c)
{
    trv_text_stamp st;
    if (!c) {
        return 0;
    }
    apr_thread_mutex_lock(c->lock);
    st = c->generation;
    apr_thread_mutex_unlock(c->lock);
    return st;
}

void trv_text_cache_put(trv_text_cache *c, const char *key, apr_size_t len, const char *text,
                        trv_text_stamp stamp)
{
    apr_uint64_t h;
    apr_size_t tlen;
    char *entry, *old = NULL;
    slot *s;
    if (!c || !key || !text) {
        return;
    }
    tlen = strlen(text);
    if (!(entry = malloc(len + tlen + 2))) {
        return;
    }
    memcpy(entry, key, len);
    entry[len] = '\0';
    memcpy(entry + len + 1, text, tlen + 1);
    h = key_hash(key, len);
    s = &c->slots[h & c->mask];
    apr_thread_mutex_lock(c->lock);
    if (stamp == c->generation) {
        old = s->text;
        s->text = entry;
        s->hash = h;
        s->len = len;
        s->generation = stamp;
        entry = NULL;
    }
    apr_thread_mutex_unlock(c->lock);
    free(old);
    free(entry);
}

void trv_text_cache_flush(trv_text_cache *c)
{
    if (!c) {
        return;
    }
    apr_thread_mutex_lock(c->lock);
    c->generation++;
    apr_thread_mutex_unlock(c->lock);
}
