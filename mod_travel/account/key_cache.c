#include "key_cache.h"
#include "core/crypt.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>

/* Direct-mapped by the first bits of the key's hash: a fixed table, no
 * allocation per key, so a child's memory stays flat however many keys
 * it sees; two keys sharing a slot evict each other (a lookup more). */
#define SLOTS 4096
#define FIELD 72

typedef struct slot {
    int used;
    char hash[65];
    char key_id[FIELD], org_id[FIELD], user_id[FIELD], mode[8];
    apr_time_t expires_at; /* 0: never */
} slot;

/* One per database (per distinct DBDParams in the configuration): a key of
 * one tenant's database is never found in another's cache. */
struct trv_key_cache {
    slot table[SLOTS];
    pthread_rwlock_t lock;
    int enabled;
    apr_uint64_t generation;
    /* The listener's socket while it listens, else -1. */
    volatile apr_uint32_t listen_fd;
    /* What the listener last found (trv_notify_state) and why, for
     * GET /v1/health; under lock. */
    trv_notify_state notify;
    char notify_reason[256];
};

static apr_status_t cache_cleanup(void *data)
{
    trv_key_cache *kc = data;
    pthread_rwlock_destroy(&kc->lock);
    return APR_SUCCESS;
}

trv_key_cache *trv_key_cache_create(apr_pool_t *p)
{
    trv_key_cache *kc = apr_pcalloc(p, sizeof(*kc));
    pthread_rwlock_init(&kc->lock, NULL);
    kc->listen_fd = (apr_uint32_t)-1;
    apr_pool_cleanup_register(p, kc, cache_cleanup, apr_pool_cleanup_null);
    return kc;
}

/* Data waiting on the listener's socket may be a change not flushed yet:
 * a hit is then not trusted (one poll, no read: the listener consumes). */
static int change_pending(trv_key_cache *kc)
{
    struct pollfd fd = {(int)apr_atomic_read32(&kc->listen_fd), POLLIN, 0};
    return fd.fd < 0 || poll(&fd, 1, 0) != 0;
}

int trv_key_cache_trusted(trv_key_cache *kc)
{
    int on;
    if (!kc) {
        return 0;
    }
    pthread_rwlock_rdlock(&kc->lock);
    on = kc->enabled && !change_pending(kc);
    pthread_rwlock_unlock(&kc->lock);
    return on;
}

static unsigned slot_of(const char *hash)
{
    unsigned v = 0;
    int i;
    for (i = 0; i < 3; i++) {
        char ch = hash[i];
        v = v * 16 + (unsigned)(ch >= 'a' ? ch - 'a' + 10 : ch - '0');
    }
    return v % SLOTS;
}

static int is_hash(const char *hash)
{
    return hash && strlen(hash) == 64 && strspn(hash, "0123456789abcdef") == 64;
}

int trv_key_cache_get(trv_key_cache *kc, apr_pool_t *p, const char *hash,
                      trv_principal *who, trv_key_stamp *stamp)
{
    int found = 0;
    *stamp = 0;
    if (!kc) {
        return 0;
    }
    pthread_rwlock_rdlock(&kc->lock);
    *stamp = kc->generation;
    if (kc->enabled && is_hash(hash)) {
        const slot *s = &kc->table[slot_of(hash)];
        /* Constant time over the whole hash, as the database path does. */
        /* An expiry is no change to the row (nothing notifies it): a key
         * past it is a miss, and the database then refuses it. */
        if (s->used && trv_crypt_equal(s->hash, hash, 64) && !change_pending(kc)
            && (!s->expires_at || apr_time_now() < s->expires_at)) {
            who->key_id = apr_pstrdup(p, s->key_id);
            who->org_id = apr_pstrdup(p, s->org_id);
            who->user_id = apr_pstrdup(p, s->user_id);
            who->mode = apr_pstrdup(p, s->mode);
            who->expires_at = s->expires_at;
            found = 1;
        }
    }
    pthread_rwlock_unlock(&kc->lock);
    return found;
}

static int fits(const char *v, size_t n)
{
    return v && strlen(v) < n;
}

void trv_key_cache_put(trv_key_cache *kc, const char *hash, const trv_principal *who,
                       trv_key_stamp stamp)
{
    slot *s;
    if (!kc || !is_hash(hash) || !fits(who->key_id, FIELD) || !fits(who->org_id, FIELD)
        || !fits(who->user_id, FIELD) || !fits(who->mode, 8)) {
        return;
    }
    pthread_rwlock_wrlock(&kc->lock);
    /* A change that arrived after the lookup began may be this key's. */
    if (kc->enabled && kc->generation == stamp) {
        s = &kc->table[slot_of(hash)];
        memcpy(s->hash, hash, 65);
        strcpy(s->key_id, who->key_id);
        strcpy(s->org_id, who->org_id);
        strcpy(s->user_id, who->user_id);
        strcpy(s->mode, who->mode);
        s->expires_at = who->expires_at;
        s->used = 1;
    }
    pthread_rwlock_unlock(&kc->lock);
}

static void flush_locked(trv_key_cache *kc)
{
    int i;
    kc->generation++;
    for (i = 0; i < SLOTS; i++) {
        kc->table[i].used = 0;
    }
}

void trv_key_cache_flush(trv_key_cache *kc)
{
    pthread_rwlock_wrlock(&kc->lock);
    flush_locked(kc);
    pthread_rwlock_unlock(&kc->lock);
}

void trv_key_cache_enable(trv_key_cache *kc, int on)
{
    pthread_rwlock_wrlock(&kc->lock);
    kc->enabled = on;
    flush_locked(kc);
    pthread_rwlock_unlock(&kc->lock);
}

void trv_key_cache_set_listen_fd(trv_key_cache *kc, int fd)
{
    apr_atomic_set32(&kc->listen_fd, (apr_uint32_t)fd);
}

void trv_key_cache_set_notify(trv_key_cache *kc, trv_notify_state st, const char *reason)
{
    pthread_rwlock_wrlock(&kc->lock);
    kc->notify = st;
    apr_cpystrn(kc->notify_reason, reason ? reason : "", sizeof(kc->notify_reason));
    pthread_rwlock_unlock(&kc->lock);
}

trv_notify_state trv_key_cache_notify(trv_key_cache *kc, apr_pool_t *p, const char **reason)
{
    trv_notify_state st;
    pthread_rwlock_rdlock(&kc->lock);
    st = kc->notify;
    *reason = kc->notify_reason[0] ? apr_pstrdup(p, kc->notify_reason) : NULL;
    pthread_rwlock_unlock(&kc->lock);
    return st;
}
