#include "key_cache.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <libpq-fe.h>
#include <openssl/crypto.h>
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
        if (s->used && CRYPTO_memcmp(s->hash, hash, 64) == 0 && !change_pending(kc)
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

/* ---- the listener ---- */

struct trv_key_listener {
    trv_env *env;
    trv_key_cache *kc;
    apr_thread_t *thread;
    apr_pool_t *pool;
    volatile apr_uint32_t stop;
    int joined;
};

#define STOPPED(l) (apr_atomic_read32(&(l)->stop) || TRV_STOPPING((l)->env))

static void nap(trv_key_listener *l, apr_interval_time_t t)
{
    apr_interval_time_t step = apr_time_from_msec(100);
    while (t > 0 && !STOPPED(l)) {
        apr_sleep(t < step ? t : step);
        t -= step;
    }
}

static int command_ok(PGconn *pg, const char *sql)
{
    PGresult *res = PQexec(pg, sql);
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    return ok;
}

/* Listens on one borrowed connection until it fails or the child stops.
 * Returns 1 when it was listening (the backoff starts over). */
static int listen_once(trv_key_listener *l, apr_pool_t *p)
{
    trv_dbc *c;
    PGconn *pg;
    int listening = 0;

    if (trv_db_open(l->env->db, p, &c) != APR_SUCCESS) {
        return 0;
    }
    pg = (PGconn *)apr_dbd_native_handle(c->driver, c->handle);
    if (pg && PQstatus(pg) == CONNECTION_OK && command_ok(pg, "LISTEN " TRV_KEY_CHANNEL)
        && command_ok(pg, "LISTEN " TRV_JOBS_CHANNEL)) {
        listening = 1;
        apr_atomic_set32(&l->kc->listen_fd, (apr_uint32_t)PQsocket(pg));
        trv_key_cache_enable(l->kc, 1);
        while (!STOPPED(l)) {
            struct pollfd fd = {PQsocket(pg), POLLIN, 0};
            PGnotify *n;
            int got = 0, jobs = 0;
            if (fd.fd < 0 || poll(&fd, 1, 200) < 0) {
                break;
            }
            if (fd.revents && !PQconsumeInput(pg)) {
                break;
            }
            while ((n = PQnotifies(pg)) != NULL) {
                if (strcmp(n->relname, TRV_JOBS_CHANNEL) == 0) {
                    jobs = 1;
                }
                else {
                    got = 1;
                }
                PQfreemem(n);
            }
            if (got) {
                trv_key_cache_flush(l->kc);
            }
            if (jobs) {
                trv_env_wake(l->env);
            }
            if (PQstatus(pg) != CONNECTION_OK) {
                break;
            }
        }
        apr_atomic_set32(&l->kc->listen_fd, (apr_uint32_t)-1);
        trv_key_cache_enable(l->kc, 0);
        if (PQstatus(pg) == CONNECTION_OK) {
            /* The connection goes back to the pool: it must not keep
             * collecting notifications for nobody. */
            command_ok(pg, "UNLISTEN *");
        }
        else {
            c->unavailable = 1;
        }
    }
    else if (pg && PQstatus(pg) == CONNECTION_OK) {
        command_ok(pg, "UNLISTEN *"); /* the first LISTEN may have taken */
    }
    trv_db_close(l->env->db, c);
    return listening;
}

static void *APR_THREAD_FUNC listener_main(apr_thread_t *thd, void *data)
{
    trv_key_listener *l = data;
    apr_interval_time_t backoff = apr_time_from_msec(250);
    apr_pool_t *p;

    apr_pool_create(&p, l->pool);
    while (!STOPPED(l)) {
        if (listen_once(l, p)) {
            backoff = apr_time_from_msec(250);
        }
        apr_pool_clear(p);
        if (STOPPED(l)) {
            break;
        }
        nap(l, backoff);
        backoff = backoff * 2 > apr_time_from_sec(5) ? apr_time_from_sec(5) : backoff * 2;
    }
    apr_pool_destroy(p);
    apr_thread_exit(thd, APR_SUCCESS);
    return NULL;
}

void trv_key_listener_stop(trv_key_listener *l)
{
    apr_status_t rv;
    if (!l || l->joined) {
        return;
    }
    apr_atomic_set32(&l->stop, 1);
    l->joined = 1;
    if (l->thread) {
        apr_thread_join(&rv, l->thread);
    }
}

static apr_status_t stop_cleanup(void *data)
{
    trv_key_listener_stop(data);
    return APR_SUCCESS;
}

trv_key_listener *trv_key_listener_start(apr_pool_t *pchild, trv_env *env,
                                         trv_key_cache *kc)
{
    apr_allocator_t *allocator;
    apr_pool_t *pool;
    apr_thread_mutex_t *mu;
    trv_key_listener *l;

    /* Its own allocator, as the workers have: it allocates concurrently
     * with the MPM's threads. */
    apr_allocator_create(&allocator);
    apr_pool_create_ex(&pool, pchild, NULL, allocator);
    apr_allocator_owner_set(allocator, pool);
    apr_thread_mutex_create(&mu, APR_THREAD_MUTEX_DEFAULT, pool);
    apr_allocator_mutex_set(allocator, mu);
    l = apr_pcalloc(pool, sizeof(*l));
    l->env = env;
    l->kc = kc;
    l->pool = pool;
    /* Before mod_dbd's pool goes: the thread holds one of its connections. */
    apr_pool_pre_cleanup_register(pchild, l, stop_cleanup);
    if (apr_thread_create(&l->thread, NULL, listener_main, l, pool) != APR_SUCCESS) {
        l->thread = NULL;
        return NULL;
    }
    return l;
}
