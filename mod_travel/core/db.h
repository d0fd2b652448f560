/* PostgreSQL through apr_dbd: borrowed connections, prepared statements
 * registered by label and prepared lazily on each connection, rows read into
 * a flat table, transactions.
 *
 * Statements are prepared on first use per connection rather than through
 * ap_dbd_prepare: a connection that libpq reset (after PostgreSQL restarted)
 * has lost its server-side statements, and this layer notices the new backend
 * and prepares them again, where mod_dbd's table would go stale. */
#ifndef TRV_DB_H
#define TRV_DB_H

#include <apr_dbd.h>
#include <apr_hash.h>
#include <apr_pools.h>

/* How every log line names a lost or unreachable database, so operators
 * and the tests' expected-error lists match one phrase. */
#define TRV_DB_UNAVAILABLE "database unavailable"

typedef struct trv_dbc {
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_hash_t **prepared;     /* label -> apr_dbd_prepared_t*, per connection */
    apr_pool_t *conn_pool;     /* lives as long as the connection */
    int in_txn;                /* BEGIN issued, COMMIT/ROLLBACK pending */
    int txn_failed;            /* a statement of the open transaction failed */
    const char *error;         /* last error text, for the log */
    int unavailable;           /* the connection is down: answer 503 */
    int retryable;             /* the last failure aborted the transaction for
                                * a deadlock or a serialization failure: run
                                * again from BEGIN, it can succeed */
    void *token;               /* the source's own handle */
    int unnamed;               /* pooled mode: no server-side statements */
    /* The server said this connection must not serve again (a read-only
     * standby or demoted primary, shutting down, starting up, a
     * connection failure: SQLSTATE 25006, 57P01-57P03, class 08):
     * trv_db_close breaks it, so the pool reconnects it, and with a
     * multi-host DBDParams finds the new primary. */
    int drop;
    char sqlstate[6];          /* of the last error, "" when none */
} trv_dbc;

typedef struct trv_dbsrc trv_dbsrc;
struct trv_dbsrc {
    /* Borrows a connection for a short step; never hold one across HTTP. */
    apr_status_t (*open)(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out);
    void (*close)(trv_dbsrc *src, trv_dbc *c);
    void *baton;
    /* The connections go through a transaction-pooling pooler (PgBouncer):
     * a session's server connection changes between transactions, so no
     * statement is PREPAREd on the server. Each one is sent whole with its
     * parameters (libpq's PQexecParams: apr_dbd_pgsql does that for a
     * statement prepared without a label). Direct connections keep labelled
     * statements, parsed and planned once per connection (faster on the
     * read path: docs/operations.md). */
    int unnamed;
};

typedef struct trv_stmt {
    const char *label; /* lower-case SQL identifier, unique per statement */
    const char *sql;   /* apr_dbd syntax: %s placeholders, cast explicitly */
} trv_stmt;

typedef struct trv_rows {
    int n;
    int ncols;
    const char **names;
    const char **cells; /* n * ncols; NULL for SQL NULL */
} trv_rows;

apr_status_t trv_db_open(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out);
void trv_db_close(trv_dbsrc *src, trv_dbc *c);

/* Runs a statement returning rows (SELECT, INSERT ... RETURNING). A NULL
 * argument binds SQL NULL. */
apr_status_t trv_db_select(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                           trv_rows **out, int nargs, const char *const *args);
/* Runs a statement without rows; *affected may be NULL. */
apr_status_t trv_db_exec(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                         int *affected, int nargs, const char *const *args);

#define TRV_DB_ARGS(...) \
    (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), \
    (const char *const[]){__VA_ARGS__}

/* Value of column `col` in row i; NULL for SQL NULL or unknown column. */
const char *trv_rows_get(const trv_rows *r, int i, const char *col);
int trv_rows_int(const trv_rows *r, int i, const char *col, int dflt);
int trv_rows_bool(const trv_rows *r, int i, const char *col);

/* Transactions are plain BEGIN/COMMIT/ROLLBACK on the borrowed connection:
 * apr_dbd_transaction_start would register a second COMMIT as a cleanup of
 * whatever pool it is given, which could land on a connection already back
 * in mod_dbd's pool and in use by another thread. */
apr_status_t trv_db_begin(trv_dbc *c, apr_pool_t *p);
/* Commits; if any statement of the transaction failed, rolls back and
 * returns an error. */
apr_status_t trv_db_commit(trv_dbc *c);
void trv_db_rollback(trv_dbc *c);

/* A transaction: BEGIN, fn(c, p, baton), COMMIT. When PostgreSQL aborts
 * it for a deadlock (40P01) or a serialization failure (40001), in fn or
 * at COMMIT, it is rolled back and run again from BEGIN (up to
 * TRV_DB_TXN_TRIES times in all, after a short random pause that grows),
 * so a request that lost such a race answers as if it had come second
 * instead of 500. fn therefore does database work only, and sets its
 * outputs afresh on each run. fn returns APR_SUCCESS to commit; any other
 * status rolls back and is returned (a database failure: c->error says
 * which). Returns APR_SUCCESS once committed. */
#define TRV_DB_TXN_TRIES 5
typedef apr_status_t trv_db_txn_fn(trv_dbc *c, apr_pool_t *p, void *baton);
apr_status_t trv_db_transaction(trv_dbc *c, apr_pool_t *p, trv_db_txn_fn *fn, void *baton);

/* libpq's messages span lines ("...unexpectedly\n\tThis probably means
 * ..."), and httpd escapes control characters in the error log, where they
 * would read as literal \n\t: the message on one line, each run of white
 * space one blank. Every c->error is made so. */
char *trv_db_one_line(apr_pool_t *p, const char *msg);

/* Whether an error with this SQLSTATE means the connection is useless
 * until reopened (see trv_dbc.drop). */
int trv_db_sqlstate_drops(const char *sqlstate);

/* Whether a request that found no database connection at `now` should
 * say so at error level: once per TRV_DB_OUTAGE_LOG_EVERY per process, so
 * an outage is a line every few seconds, not one per request. */
#define TRV_DB_OUTAGE_LOG_EVERY apr_time_from_sec(5)
int trv_db_outage_note(apr_time_t now);

/* Opens a standalone connection (travelctl, tests): conninfo is libpq's. */
apr_status_t trv_db_connect(apr_pool_t *p, const char *conninfo, trv_dbc **out,
                            const char **error);
/* A source that hands out one standalone connection. */
trv_dbsrc *trv_dbsrc_single(apr_pool_t *p, trv_dbc *c);

#endif
