/* The e2e harness: real HTTP (libcurl) to the httpd instances that
 * tests/run-stack-tests.sh started, and direct SQL (libpq) to their
 * database for setting up and checking state. */
#ifndef TRV_E2E_H
#define TRV_E2E_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

typedef struct e2e_resp {
    long status;
    char *body;
    size_t body_len;
    json_t *json;          /* parsed body, NULL if not JSON */
    char *headers;         /* raw response headers */
    int api;               /* an answer of mod_travel's /v1 API (not the sandbox's) */
} e2e_resp;

/* Environment set by the runner. */
const char *e2e_env(const char *name);
const char *e2e_url(void);         /* instance a (with the sandbox) */
const char *e2e_sandbox_url(void);
const char *e2e_conninfo(void);
/* The command that runs httpd ("/usr/sbin/apache2", or under make
 * test-httpd-asan that with AddressSanitizer preloaded). */
const char *e2e_apache2(void);

/* A request; headers is a NULL-terminated list of "Name: value" or NULL. */
e2e_resp *e2e_call(const char *base, const char *method, const char *path,
                   const char *const *headers, const char *body);
/* The same from the local address source (e.g. another loopback address,
 * "127.0.0.2": the server sees a client of its own); NULL: any. */
e2e_resp *e2e_call_from(const char *source, const char *base, const char *method,
                        const char *path, const char *const *headers, const char *body);
/* GET/POST with the given API key (may be NULL: no x-api-key). */
e2e_resp *e2e_get(const char *key, const char *path);
e2e_resp *e2e_post(const char *key, const char *path, const char *json);
void e2e_free(e2e_resp *r);
/* The value of a response header (case-insensitive), malloc'd, or NULL. */
char *e2e_header(const e2e_resp *r, const char *name);
/* error.code of an error response, or "" */
const char *e2e_error_code(const e2e_resp *r);
/* Asserts the error envelope shape with this status and code. */
void e2e_assert_error(const e2e_resp *r, long status, const char *code);

/* Runs bin/travelctl against the test database; returns its last line of
 * standard output (malloc'd) or NULL when it failed. */
char *e2e_travelctl(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A new organization and a key for user `user` in it: returns the key. */
char *e2e_new_org_key(const char *user, char **org_id);
char *e2e_new_key(const char *org_id, const char *user);

PGconn *e2e_db(void);
/* Runs a query with text parameters; returns the first column of the first
 * row as a long (0 when no row). Fails the test on a SQL error. */
long e2e_sql_long(const char *sql, int nparams, const char *const *params);
/* Same, as a malloc'd string (NULL when no row or NULL). */
char *e2e_sql_text(const char *sql, int nparams, const char *const *params);
void e2e_sql_exec(const char *sql, int nparams, const char *const *params);
/* Runs sql as the test cluster's superuser on database dbname. */
void e2e_sql_admin(const char *dbname, const char *sql);
/* A migrated database `name` of its own (dropped first if it is there),
 * for an instance whose jobs no other instance may take; its connection
 * string in conninfo. */
void e2e_own_database(const char *name, char *conninfo, size_t n);

/* Tells the runner that error-log lines matching this extended regex are
 * expected (a test that provokes failures on purpose). */
void e2e_expect_log(const char *regex);

/* The pid of test instance `instance` ("a", "b") from its pid file, or -1;
 * the parent of a process (to tell which instance a child belongs to). */
long e2e_instance_pid(const char *instance);
long e2e_parent_of(long pid);

/* A loopback TCP port nothing listens on now. */
int e2e_free_port(void);
/* A whole file (malloc'd; "" when it cannot be read). */
char *e2e_slurp(const char *path);
/* The first line of the file at path holding every needle (a NULL-ended
 * list), read again every 100 ms for up to 10 s while none does (a log
 * line written after the answer): malloc'd, or NULL. */
char *e2e_log_line(const char *path, const char *const *needles);

/* Starts a private httpd from a copy of instance b's configuration (its
 * own folder $TRAVEL_TEST_DIR/httpd-NAME, port, logs and pid file), with
 * each (from, to) pair of `edits` (NULL-terminated) replaced in the text
 * and `extra` appended; waits until GET /v1/health answers at all. Fills
 * url (http://127.0.0.1:PORT) and returns the pid (fails the test when it
 * does not start). */
long e2e_start_instance(const char *name, const char *const *edits, const char *extra,
                        char *url, size_t url_len);
/* Stops a process this test started (SIGTERM, bounded wait). */
void e2e_stop_pid(long pid);

/* Milliseconds since an arbitrary start. */
long e2e_now_ms(void);
/* The wall clock in milliseconds: for what the server counts in the wall
 * clock's seconds (call budgets, rate limits), whose seconds turn at other
 * moments than e2e_now_ms's. */
long e2e_wall_ms(void);
void e2e_sleep_ms(long ms);

/* Waits until a change that each httpd child learns from its own database
 * notification (key revocations, expiries moved) has reached every child
 * that answers: the children hear it one by one, milliseconds apart or
 * longer when a loaded machine holds one back, so one refused request says
 * nothing of the other children. Done when status(baton) has answered
 * `want` for a whole second in a row (a child still behind answers
 * otherwise and starts the second again); gives up when none has begun
 * limit_ms after the call. Returns 1 when done. */
int e2e_until_steady(long (*status)(void *), void *baton, long want, long limit_ms);

int e2e_run(const char *name, const struct CMUnitTest *tests, size_t n);
#define E2E_RUN(name, tests) e2e_run(name, tests, sizeof(tests) / sizeof(tests[0]))

#endif
