#include "key_listener.h"
#include "core/text_cache.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <libpq-fe.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct trv_key_listener {
    trv_env *env;
    trv_key_cache *kc;
    apr_thread_t *thread;
    apr_pool_t *pool;
    volatile apr_uint32_t stop;
    int joined;
    apr_uint64_t probes;        /* makes each proof's payload unique */
    /* What the log last said, so a state is logged once, not per retry. */
    trv_notify_state logged;
    char logged_reason[256];
    char why[512];              /* why the current attempt failed */
};

static const trv_stmt probe_stmt = {
    "trv_notify_probe", "SELECT pg_notify('" TRV_PROBE_CHANNEL "', %s) IS NULL AS sent"};

#define STOPPED(l) (apr_atomic_read32(&(l)->stop) || TRV_STOPPING((l)->env))

/* The idempotent answers requests could not store while the database was
 * away (gateway/idempotency.h): this thread stores them once it is back. */
static void retry_pending(trv_key_listener *l, apr_pool_t *p)
{
    const trv_idempotency *idem = l->env->idempotency;
    if (idem && idem->retry_pending) {
        idem->retry_pending(p);
    }
}

/* The caches kept under this listener's watch on or off: both forget what
 * they held (changes may have been missed while no one listened). */
static void trust(trv_key_listener *l, int on)
{
    trv_key_cache_enable(l->kc, on);
    trv_text_cache_flush(l->env->hotel_sellers);
}

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

static void fail(trv_key_listener *l, const char *what, const char *detail)
{
    apr_snprintf(l->why, sizeof(l->why), "%s%s%s", what, detail ? ": " : "",
                 detail ? detail : "");
}

/* Logs a change of state (not a repeat of the same one) and records it for
 * GET /v1/health. */
static void report(trv_key_listener *l, trv_notify_state st, const char *reason)
{
    const trv_config *cfg = l->env->cfg;
    trv_key_cache_set_notify(l->kc, st, reason);
    if (st == l->logged && strcmp(reason ? reason : "", l->logged_reason) == 0) {
        return;
    }
    if (st == TRV_NOTIFY_POLLING) {
        trv_log_msg(&l->env->log, TRV_LOG_WARNING, "-",
                    TRVLOGNO(2201) "notifications are not proven (%s): the key cache is "
                    "off and workers poll every %" APR_TIME_T_FMT " ms until a proof NOTIFY "
                    "arrives", reason, apr_time_as_msec(cfg->job_poll));
    }
    else if (st == TRV_NOTIFY_LISTENING && l->logged == TRV_NOTIFY_POLLING) {
        trv_log_msg(&l->env->log, TRV_LOG_NOTICE, "-",
                    TRVLOGNO(2202) "notifications proven again: the key cache is on");
    }
    l->logged = st;
    apr_cpystrn(l->logged_reason, reason ? reason : "", sizeof(l->logged_reason));
}

/* The listening connection: cfg->notify_conninfo's own, or one borrowed
 * from env's source (*c set). NULL with l->why set when there is none. */
static PGconn *open_listener(trv_key_listener *l, apr_pool_t *p, trv_dbc **c)
{
    const char *conninfo = l->env->cfg ? l->env->cfg->notify_conninfo : NULL;
    PGconn *pg;
    *c = NULL;
    if (conninfo) {
        pg = PQconnectdb(conninfo);
        if (PQstatus(pg) != CONNECTION_OK) {
            fail(l, TRV_DB_UNAVAILABLE " (TravelNotifyConnInfo)",
                 trv_db_one_line(p, PQerrorMessage(pg)));
            PQfinish(pg);
            return NULL;
        }
        return pg;
    }
    if (trv_db_open(l->env->db, p, c) != APR_SUCCESS) {
        fail(l, TRV_DB_UNAVAILABLE, "no connection to listen on");
        *c = NULL;
        return NULL;
    }
    pg = (PGconn *)apr_dbd_native_handle((*c)->driver, (*c)->handle);
    if (!pg || PQstatus(pg) != CONNECTION_OK) {
        fail(l, TRV_DB_UNAVAILABLE, "the borrowed connection is down");
        (*c)->unavailable = 1;
        return NULL;
    }
    return pg;
}

static void close_listener(trv_key_listener *l, PGconn *pg, trv_dbc *c)
{
    if (!c) {
        if (pg) {
            PQfinish(pg);
        }
        return;
    }
    if (pg && PQstatus(pg) == CONNECTION_OK) {
        /* The connection goes back to the pool: it must not keep
         * collecting notifications for nobody. */
        command_ok(pg, "UNLISTEN *");
    }
    else {
        c->unavailable = 1;
    }
    trv_db_close(l->env->db, c);
}

/* Sends a proof NOTIFY through env's source with a payload of its own,
 * written into payload. 0 (l->why set) when it could not be sent. */
static int send_probe(trv_key_listener *l, apr_pool_t *p, char *payload, size_t n)
{
    trv_dbc *c;
    trv_rows *rows;
    int ok;
    apr_snprintf(payload, n, "%ld.%pp.%" APR_UINT64_T_FMT, (long)getpid(), (void *)l,
                 ++l->probes);
    if (trv_db_open(l->env->db, p, &c) != APR_SUCCESS) {
        fail(l, TRV_DB_UNAVAILABLE, "no connection to send the proof NOTIFY on");
        return 0;
    }
    ok = trv_db_select(c, p, &probe_stmt, &rows, TRV_DB_ARGS(payload)) == APR_SUCCESS;
    if (!ok) {
        fail(l, "the proof NOTIFY failed", c->error);
    }
    trv_db_close(l->env->db, c);
    return ok;
}

/* Listens until the connection fails, a proof does not come back, or the
 * child stops. Returns 1 when a proof arrived (the backoff starts over). */
static int listen_once(trv_key_listener *l, apr_pool_t *p)
{
    apr_interval_time_t check = l->env->cfg ? l->env->cfg->notify_check
                                            : TRV_DEFAULT_NOTIFY_CHECK;
    trv_dbc *c;
    PGconn *pg = open_listener(l, p, &c);
    apr_pool_t *tmp;
    char pending[96] = "";
    apr_time_t deadline = 0, next = 0;
    int proven = 0;

    l->why[0] = '\0';
    if (pg && !(command_ok(pg, "LISTEN " TRV_KEY_CHANNEL)
                && command_ok(pg, "LISTEN " TRV_JOBS_CHANNEL)
                && command_ok(pg, "LISTEN " TRV_HOTEL_SELLERS_CHANNEL)
                && command_ok(pg, "LISTEN " TRV_PROBE_CHANNEL))) {
        fail(l, "LISTEN failed", trv_db_one_line(p, PQerrorMessage(pg)));
    }
    apr_pool_create(&tmp, p);
    if (pg && !l->why[0]) {
        trv_key_cache_set_listen_fd(l->kc, PQsocket(pg));
    }
    while (pg && !l->why[0] && !STOPPED(l)) {
        apr_time_t now = apr_time_now();
        struct pollfd fd = {PQsocket(pg), POLLIN, 0};
        PGnotify *nt;
        int keys = 0, jobs = 0, sellers = 0;

        if (!pending[0] && now >= next) {
            apr_pool_clear(tmp);
            if (!send_probe(l, tmp, pending, sizeof(pending))) {
                pending[0] = '\0';
                break;
            }
            deadline = now + TRV_NOTIFY_PROOF_TIMEOUT;
        }
        else if (pending[0] && now > deadline) {
            fail(l, "a NOTIFY sent through the database connections did not come back "
                 "within 2 s", l->env->cfg && l->env->cfg->db_pooled
                 ? "a pooler drops notifications; set TravelNotifyConnInfo to a direct "
                   "connection" : NULL);
            break;
        }
        if (fd.fd < 0 || poll(&fd, 1, 200) < 0 || (fd.revents && !PQconsumeInput(pg))) {
            fail(l, TRV_DB_UNAVAILABLE, "the listening connection was lost");
            break;
        }
        while ((nt = PQnotifies(pg)) != NULL) {
            if (strcmp(nt->relname, TRV_PROBE_CHANNEL) == 0) {
                /* Every listener hears every proof: only its own counts. */
                if (pending[0] && strcmp(nt->extra, pending) == 0) {
                    pending[0] = '\0';
                    next = apr_time_now() + check;
                    if (!proven) {
                        proven = 1;
                        trust(l, 1);
                        report(l, TRV_NOTIFY_LISTENING, NULL);
                    }
                }
            }
            else if (strcmp(nt->relname, TRV_JOBS_CHANNEL) == 0) {
                jobs = 1;
            }
            else if (strcmp(nt->relname, TRV_HOTEL_SELLERS_CHANNEL) == 0) {
                sellers = 1;
            }
            else {
                keys = 1;
            }
            PQfreemem(nt);
        }
        if (keys) {
            trv_key_cache_flush(l->kc);
        }
        if (sellers) {
            trv_text_cache_flush(l->env->hotel_sellers);
        }
        retry_pending(l, tmp);
        if (jobs) {
            trv_env_wake(l->env);
        }
        if (PQstatus(pg) != CONNECTION_OK) {
            fail(l, TRV_DB_UNAVAILABLE, "the listening connection was lost");
        }
    }
    trv_key_cache_set_listen_fd(l->kc, -1);
    trust(l, 0);
    if (l->why[0] && !STOPPED(l)) {
        report(l, TRV_NOTIFY_POLLING, l->why);
    }
    apr_pool_destroy(tmp);
    close_listener(l, pg, c);
    return proven;
}

/* Behind a pooler, whether this child's connections all get a server: a
 * session-pooling PgBouncer whose pool is smaller than children x DBDMax
 * lets the extra clients connect and then makes their first query wait
 * (query_wait_timeout, 120 s). At start, a SELECT 1 on each of DBDMax
 * connections at once; any unanswered after TRV_POOL_CHECK_WAIT is said
 * in the log, and its connection broken (the pool reconnects it). */
#define TRV_POOL_CHECK_WAIT apr_time_from_sec(2)

static void check_pool(trv_key_listener *l, apr_pool_t *p)
{
    int n = l->env->db_pool_max, opened = 0, answered = 0, i;
    trv_dbc **cs = apr_pcalloc(p, sizeof(*cs) * (size_t)(n > 0 ? n : 1));
    int *done = apr_pcalloc(p, sizeof(*done) * (size_t)(n > 0 ? n : 1));
    struct pollfd *fds = apr_pcalloc(p, sizeof(*fds) * (size_t)(n > 0 ? n : 1));
    apr_time_t deadline = apr_time_now() + TRV_POOL_CHECK_WAIT;

    for (i = 0; i < n; i++) {
        PGconn *pg;
        if (trv_db_open(l->env->db, p, &cs[i]) != APR_SUCCESS) {
            break;
        }
        opened++;
        pg = (PGconn *)apr_dbd_native_handle(cs[i]->driver, cs[i]->handle);
        done[i] = !PQsendQuery(pg, "SELECT 1");
    }
    for (;;) {
        apr_time_t now = apr_time_now();
        int k = 0, ms;
        for (i = 0; i < opened; i++) {
            if (!done[i]) {
                PGconn *pg = (PGconn *)apr_dbd_native_handle(cs[i]->driver, cs[i]->handle);
                fds[k].fd = PQsocket(pg);
                fds[k].events = POLLIN;
                fds[k].revents = 0;
                k++;
            }
        }
        if (k == 0 || now >= deadline) {
            break;
        }
        ms = (int)apr_time_as_msec(deadline - now) + 1;
        if (poll(fds, (nfds_t)k, ms) < 0) {
            break;
        }
        for (i = 0; i < opened; i++) {
            PGconn *pg = (PGconn *)apr_dbd_native_handle(cs[i]->driver, cs[i]->handle);
            PGresult *res;
            if (done[i] || !PQconsumeInput(pg) || PQisBusy(pg)) {
                continue;
            }
            while ((res = PQgetResult(pg)) != NULL) {
                PQclear(res);
            }
            done[i] = 1;
            answered++;
        }
    }
    for (i = 0; i < opened; i++) {
        PGconn *pg = (PGconn *)apr_dbd_native_handle(cs[i]->driver, cs[i]->handle);
        if (!done[i]) {
            PGresult *res;
            /* Still waiting for a server: given back as it is, the next
             * borrower would find a query in flight. */
            shutdown(PQsocket(pg), SHUT_RDWR);
            while ((res = PQgetResult(pg)) != NULL) {
                PQclear(res);
            }
            cs[i]->unavailable = 1;
        }
        trv_db_close(l->env->db, cs[i]);
    }
    if (answered < opened) {
        trv_log_msg(&l->env->log, TRV_LOG_ERR, "-",
                    TRVLOGNO(2203) "%d of this child's %d database connections (DBDMax) got "
                    "no answer to SELECT 1 within 2 s: the pool behind DBDParams is smaller "
                    "than the children's connections. Requests will wait for a server "
                    "connection; PgBouncer in session mode needs default_pool_size >= "
                    "children x DBDMax of every node, transaction mode (TravelDBMode "
                    "pooled) shares a small one", opened - answered, opened);
    }
}

static void *APR_THREAD_FUNC listener_main(apr_thread_t *thd, void *data)
{
    trv_key_listener *l = data;
    apr_interval_time_t backoff = apr_time_from_msec(250);
    apr_pool_t *p;

    apr_pool_create(&p, l->pool);
    if (l->env->cfg && l->env->cfg->db_pooled && l->env->db_pool_max > 0) {
        check_pool(l, p);
        apr_pool_clear(p);
    }
    while (!STOPPED(l)) {
        if (listen_once(l, p)) {
            backoff = apr_time_from_msec(250);
        }
        retry_pending(l, p);
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
    /* Before mod_dbd's pool goes: the thread may hold one of its connections. */
    apr_pool_pre_cleanup_register(pchild, l, stop_cleanup);
    if (apr_thread_create(&l->thread, NULL, listener_main, l, pool) != APR_SUCCESS) {
        l->thread = NULL;
        return NULL;
    }
    return l;
}
