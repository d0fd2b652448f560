#include "db.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

/* Key under which the backend pid that owns the prepared statements is kept
 * in the per-connection statement table. */
#define BACKEND_KEY "#backend"

static PGconn *pg(trv_dbc *c)
{
    return (PGconn *)apr_dbd_native_handle(c->driver, c->handle);
}

/* Drops the statement table when libpq has reset the session underneath. */
static void check_backend(trv_dbc *c)
{
    apr_hash_t *h = *c->prepared;
    int pid = PQbackendPID(pg(c));
    int *known = h ? apr_hash_get(h, BACKEND_KEY, APR_HASH_KEY_STRING) : NULL;

    if (!h) {
        h = *c->prepared = apr_hash_make(c->conn_pool);
    }
    if (known && *known == pid) {
        return;
    }
    if (known) {
        apr_hash_clear(h);
    }
    known = apr_palloc(c->conn_pool, sizeof(*known));
    *known = pid;
    apr_hash_set(h, BACKEND_KEY, APR_HASH_KEY_STRING, known);
}

/* Makes libpq see this connection as broken (CONNECTION_BAD): the pool's
 * check then resets it, a new connection made from the conninfo (with
 * several hosts, to whichever is the primary now). */
static void break_connection(trv_dbc *c)
{
    PGconn *conn = pg(c);
    if (conn && PQstatus(conn) == CONNECTION_OK && PQsocket(conn) >= 0) {
        shutdown(PQsocket(conn), SHUT_RDWR);
        PQclear(PQexec(conn, "SELECT 1"));
    }
}

/* A pooled connection the server ended while it sat idle (a restart, a
 * failover, pg_terminate_backend) has the server's FATAL and EOF waiting on
 * its socket, but libpq only learns it at the next statement, which would
 * fail the request for nothing. An idle connection has nothing to read, so
 * one non-blocking peek tells; anything there (even a rare notice, or a
 * parameter change at a promotion) is reason enough for a new session, as
 * Go's database/sql treats a pooled connection with unread data. The
 * driver's check reconnects (PQreset). Nonzero when still unusable. */
static int revive(trv_dbc *c)
{
    PGconn *conn = pg(c);
    char first;
    ssize_t n;
    if (!conn) {
        return 0;
    }
    if (PQstatus(conn) == CONNECTION_OK) {
        if (PQsocket(conn) < 0 || PQtransactionStatus(conn) != PQTRANS_IDLE) {
            return 0;
        }
        n = recv(PQsocket(conn), &first, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return 0;
        }
        break_connection(c);
    }
    apr_dbd_check_conn(c->driver, c->conn_pool, c->handle);
    return PQstatus(conn) != CONNECTION_OK;
}

apr_status_t trv_db_open(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    apr_status_t rv = src->open(src, p, out);
    if (rv == APR_SUCCESS && revive(*out)) {
        src->close(src, *out);
        *out = NULL;
        rv = APR_EGENERAL;
    }
    if (rv == APR_SUCCESS) {
        (*out)->error = NULL;
        (*out)->unavailable = 0;
        (*out)->retryable = 0;
        (*out)->unnamed = src->unnamed;
        (*out)->drop = 0;
        (*out)->sqlstate[0] = '\0';
        /* Messages carry the SQLSTATE ("ERROR:  25006: ..."), which tells
         * a demoted primary from a bad statement (note_error). */
        PQsetErrorVerbosity(pg(*out), PQERRORS_VERBOSE);
        check_backend(*out);
    }
    return rv;
}

void trv_db_close(trv_dbsrc *src, trv_dbc *c)
{
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        if (c->drop) {
            break_connection(c);
        }
        src->close(src, c);
    }
}

int trv_db_outage_note(apr_time_t now)
{
    static volatile apr_uint64_t last;
    apr_uint64_t was = apr_atomic_read64(&last);
    if (was && (apr_time_t)was + TRV_DB_OUTAGE_LOG_EVERY > now) {
        return 0;
    }
    /* One thread of the racing ones wins the line. */
    return apr_atomic_cas64(&last, (apr_uint64_t)now, was) == was;
}

int trv_db_sqlstate_drops(const char *st)
{
    return strcmp(st, "25006") == 0 || strcmp(st, "57P01") == 0
           || strcmp(st, "57P02") == 0 || strcmp(st, "57P03") == 0
           || strncmp(st, "08", 2) == 0;
}

/* The SQLSTATE of a verbose libpq message ("ERROR:  25006: cannot ..."),
 * and the message without its LOCATION (the server's source position). */
static void split_message(char *msg, char sqlstate[6])
{
    static const char *const severities[] = {"ERROR:", "FATAL:", "PANIC:"};
    char *loc = strstr(msg, " LOCATION:");
    size_t i;
    sqlstate[0] = '\0';
    if (loc) {
        *loc = '\0';
    }
    for (i = 0; i < sizeof(severities) / sizeof(severities[0]); i++) {
        char *s = strstr(msg, severities[i]);
        if (s) {
            s += strlen(severities[i]);
            while (*s == ' ') {
                s++;
            }
            if (strspn(s, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 5 && s[5] == ':') {
                memcpy(sqlstate, s, 5);
                sqlstate[5] = '\0';
            }
            return;
        }
    }
}

char *trv_db_one_line(apr_pool_t *p, const char *msg)
{
    char *out = apr_pstrdup(p, msg), *o = out;
    const char *s;
    int blank = 0;
    for (s = msg; *s; s++) {
        if (*s == '\n' || *s == '\t' || *s == '\r' || *s == ' ') {
            blank = o > out;
            continue;
        }
        if (blank) {
            *o++ = ' ';
            blank = 0;
        }
        *o++ = *s;
    }
    *o = '\0';
    return out;
}

/* PostgreSQL's words for 40P01 and 40001: apr_dbd gives the message, not
 * the SQLSTATE (it clears the result), so the text is matched; the
 * cluster's lc_messages is C/English (docs/operations.md). */
static int aborted_for_a_race(const char *msg)
{
    return strstr(msg, "deadlock detected") != NULL
        || strstr(msg, "could not serialize access") != NULL;
}

static void note_error(trv_dbc *c, apr_pool_t *p, int rv)
{
    const char *msg = apr_dbd_error(c->driver, c->handle, rv);
    char *line = msg ? trv_db_one_line(p, msg) : NULL;
    if (line) {
        split_message(line, c->sqlstate);
    }
    else {
        c->sqlstate[0] = '\0';
    }
    c->error = line ? line : "unknown database error";
    /* A deadlock or a serialization failure: the transaction may run
     * again (trv_db_transaction); the words are the fallback where the
     * SQLSTATE is not in the message. */
    c->retryable = strcmp(c->sqlstate, "40P01") == 0 || strcmp(c->sqlstate, "40001") == 0
                   || (line && aborted_for_a_race(line));
    if (c->in_txn) {
        c->txn_failed = 1;
    }
    if (c->sqlstate[0] && trv_db_sqlstate_drops(c->sqlstate)) {
        c->drop = 1;
    }
    if (PQstatus(pg(c)) != CONNECTION_OK || c->drop) {
        /* One fixed phrase for a lost server, whatever libpq's words for it
         * ("terminating connection", "server closed the connection
         * unexpectedly", ...): logs and tests recognise it by this. */
        c->unavailable = 1;
        c->error = apr_pstrcat(p, TRV_DB_UNAVAILABLE ": ", c->error, NULL);
    }
}

static apr_status_t prepared(trv_dbc *c, const trv_stmt *st,
                             apr_dbd_prepared_t **out)
{
    apr_hash_t *h = *c->prepared;
    apr_dbd_prepared_t *stmt = apr_hash_get(h, st->label, APR_HASH_KEY_STRING);
    int rv;

    if (!stmt) {
        /* Unnamed: apr_dbd_pgsql only translates the placeholders and keeps
         * the text; nothing reaches the server until the statement runs, so
         * it survives any server connection a pooler hands out. */
        rv = apr_dbd_prepare(c->driver, c->conn_pool, c->handle, st->sql,
                             c->unnamed ? NULL : st->label, &stmt);
        if (rv != 0) {
            note_error(c, c->conn_pool, rv);
            c->error = apr_psprintf(c->conn_pool, "prepare %s: %s", st->label,
                                    c->error);
            return APR_EGENERAL;
        }
        apr_hash_set(h, st->label, APR_HASH_KEY_STRING, stmt);
    }
    *out = stmt;
    return APR_SUCCESS;
}

apr_status_t trv_db_select(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                           trv_rows **out, int nargs, const char *const *args)
{
    apr_dbd_prepared_t *stmt;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    trv_rows *r;
    int rv, i, j;

    if (prepared(c, st, &stmt) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    /* random = 1: a sequential result sleeps 100 ms when empty. */
    rv = apr_dbd_pselect(c->driver, p, c->handle, &res, stmt, 1, nargs,
                         (const char **)args);
    if (rv != 0) {
        note_error(c, p, rv);
        c->error = apr_psprintf(p, "%s: %s", st->label, c->error);
        return APR_EGENERAL;
    }
    r = apr_pcalloc(p, sizeof(*r));
    r->n = apr_dbd_num_tuples(c->driver, res);
    r->ncols = apr_dbd_num_cols(c->driver, res);
    r->names = apr_palloc(p, sizeof(char *) * (r->ncols + 1));
    for (j = 0; j < r->ncols; j++) {
        r->names[j] = apr_dbd_get_name(c->driver, res, j);
    }
    r->cells = apr_pcalloc(p, sizeof(char *) * (r->n * r->ncols + 1));
    for (i = 0; i < r->n; i++) {
        if (apr_dbd_get_row(c->driver, p, res, &row, i + 1) != 0) {
            break;
        }
        for (j = 0; j < r->ncols; j++) {
            const char *v = NULL;
            if (apr_dbd_datum_get(c->driver, row, j, APR_DBD_TYPE_STRING, &v)
                == APR_ENOENT) {
                v = NULL;
            }
            r->cells[i * r->ncols + j] = v;
        }
    }
    *out = r;
    return APR_SUCCESS;
}

apr_status_t trv_db_exec(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                         int *affected, int nargs, const char *const *args)
{
    apr_dbd_prepared_t *stmt;
    int rv, n = 0;

    if (prepared(c, st, &stmt) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    rv = apr_dbd_pquery(c->driver, p, c->handle, &n, stmt, nargs,
                        (const char **)args);
    if (rv != 0) {
        note_error(c, p, rv);
        c->error = apr_psprintf(p, "%s: %s", st->label, c->error);
        return APR_EGENERAL;
    }
    if (affected) {
        *affected = n;
    }
    return APR_SUCCESS;
}

const char *trv_rows_get(const trv_rows *r, int i, const char *col)
{
    int j;
    if (!r || i < 0 || i >= r->n) {
        return NULL;
    }
    for (j = 0; j < r->ncols; j++) {
        if (strcmp(r->names[j], col) == 0) {
            return r->cells[i * r->ncols + j];
        }
    }
    return NULL;
}

int trv_rows_int(const trv_rows *r, int i, const char *col, int dflt)
{
    const char *v = trv_rows_get(r, i, col);
    return v ? atoi(v) : dflt;
}

int trv_rows_bool(const trv_rows *r, int i, const char *col)
{
    const char *v = trv_rows_get(r, i, col);
    return v && (v[0] == 't' || v[0] == '1');
}

static apr_status_t run_plain(trv_dbc *c, apr_pool_t *p, const char *sql)
{
    int n = 0, rv = apr_dbd_query(c->driver, c->handle, &n, sql);
    if (rv != 0) {
        note_error(c, p, rv);
        return APR_EGENERAL;
    }
    return APR_SUCCESS;
}

apr_status_t trv_db_begin(trv_dbc *c, apr_pool_t *p)
{
    if (run_plain(c, p, "BEGIN") != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    c->in_txn = 1;
    c->txn_failed = 0;
    return APR_SUCCESS;
}

apr_status_t trv_db_commit(trv_dbc *c)
{
    apr_status_t rv;
    if (!c->in_txn) {
        return APR_EGENERAL;
    }
    if (c->txn_failed) {
        trv_db_rollback(c);
        return APR_EGENERAL;
    }
    c->in_txn = 0;
    rv = run_plain(c, c->conn_pool, "COMMIT");
    if (rv != APR_SUCCESS) {
        /* A failed COMMIT leaves no transaction open in PostgreSQL. */
        return rv;
    }
    return APR_SUCCESS;
}

void trv_db_rollback(trv_dbc *c)
{
    if (!c->in_txn) {
        return;
    }
    c->in_txn = 0;
    c->txn_failed = 0;
    run_plain(c, c->conn_pool, "ROLLBACK");
}

/* 5..25 ms times the attempt: the other transaction of the race is usually
 * done by then, and two losers do not start again in step. */
static void pause_before(int attempt)
{
    apr_interval_time_t ms = (apr_interval_time_t)(5 + (apr_time_now() / 7) % 21);
    apr_sleep(apr_time_from_msec(ms * attempt));
}

apr_status_t trv_db_transaction(trv_dbc *c, apr_pool_t *p, trv_db_txn_fn *fn, void *baton)
{
    apr_status_t rv = APR_EGENERAL;
    int attempt;
    for (attempt = 1; attempt <= TRV_DB_TXN_TRIES; attempt++) {
        if (attempt > 1) {
            pause_before(attempt - 1);
        }
        c->retryable = 0;
        if (trv_db_begin(c, p) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        rv = fn(c, p, baton);
        if (rv == APR_SUCCESS) {
            rv = trv_db_commit(c);
        }
        else {
            trv_db_rollback(c);
        }
        if (rv == APR_SUCCESS || !c->retryable || c->unavailable) {
            return rv;
        }
    }
    return rv;
}

/* ---- standalone connections (travelctl, db tests) ---- */

typedef struct single_conn {
    trv_dbc dbc;
    apr_hash_t *prepared;
} single_conn;

apr_status_t trv_db_connect(apr_pool_t *p, const char *conninfo, trv_dbc **out,
                            const char **error)
{
    static int dbd_ready;
    single_conn *s = apr_pcalloc(p, sizeof(*s));
    const apr_dbd_driver_t *driver;
    const char *err = NULL;
    apr_status_t rv;

    if (!dbd_ready) {
        apr_dbd_init(p);
        dbd_ready = 1;
    }
    rv = apr_dbd_get_driver(p, "pgsql", &driver);
    if (rv != APR_SUCCESS) {
        *error = "the apr_dbd pgsql driver is not installed (libaprutil1-dbd-pgsql)";
        return rv;
    }
    rv = apr_dbd_open_ex(driver, p, conninfo, &s->dbc.handle, &err);
    if (rv != APR_SUCCESS) {
        *error = err ? trv_db_one_line(p, err) : "cannot connect to PostgreSQL";
        return rv;
    }
    s->dbc.driver = driver;
    s->dbc.conn_pool = p;
    s->dbc.prepared = &s->prepared;
    *out = &s->dbc;
    check_backend(&s->dbc);
    return APR_SUCCESS;
}

static apr_status_t single_open(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    (void)p;
    *out = src->baton;
    return APR_SUCCESS;
}

static void single_close(trv_dbsrc *src, trv_dbc *c)
{
    (void)src;
    (void)c;
}

trv_dbsrc *trv_dbsrc_single(apr_pool_t *p, trv_dbc *c)
{
    trv_dbsrc *src = apr_pcalloc(p, sizeof(*src));
    src->open = single_open;
    src->close = single_close;
    src->baton = c;
    return src;
}
