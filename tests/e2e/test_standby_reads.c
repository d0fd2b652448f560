/* Reads from a streaming standby, never older than the client's own
 * writes (gateway/standby.h, docs/operations.md "Reads from a standby").
 * The test makes a real standby of the stack's cluster (pg_basebackup -R)
 * whose replay is held back by recovery_min_apply_delay (DELAY_MS: the
 * injected replication delay), and an instance (a copy of b) with
 * TravelStandbyConnInfo naming it. Then, booking after booking: the book's
 * answer carries x-travel-lsn; a read and a list sent at once with it as
 * x-travel-min-lsn must show the booking CONFIRMED (0 stale reads), while
 * the same read with x-travel-min-lsn 0/0 (any state will do) is served by
 * the lagging standby and sees the booking as it was (so the delay is real
 * and the first check could fail); hotel bookings the same, a new one
 * found at once with the prebook's token, not yet on the standby without
 * it. Once the standby has replayed, reads with the token are served by
 * it; the share is printed. A revoked key is refused within the key
 * cache's 2 s, before the lagging standby has the revocation (keys are
 * read from the primary). With the delay lifted: how soon after its write
 * a read is served by the standby. With the standby stopped, reads go to
 * the primary without an error. */
#include "hotel_e2e.h"

#include <sys/stat.h>

#define DELAY_MS 3000
#define BOOKINGS 6

static char url[256], sb_dir[512], sb_run[530];
static long pid = -1;
static int sb_port;
static const char *direct_url;
static long reads_total, reads_standby;

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* pg_ctl or pg_basebackup as the cluster's owner (postgres when root). */
static void as_pg(const char *fmt, const char *a, const char *b)
{
    char inner[6000], cmd[7000];
    snprintf(inner, sizeof(inner), fmt, a, b);
    snprintf(cmd, sizeof(cmd), "pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1); "
             "if [ \"$(id -u)\" -eq 0 ]; then run='runuser -u postgres --'; else run=''; fi; "
             "$run %s", inner);
    assert_int_equal(sh(cmd), 0);
}

static void start_standby(void **state)
{
    const char *ci = e2e_conninfo(), *h = strstr(ci, "host="), *p = strstr(ci, "port=");
    char host[512], port[32], cmd[4096], extra[1024];
    FILE *f;
    (void)state;
    assert_non_null(h);
    assert_non_null(p);
    snprintf(host, sizeof(host), "%.*s", (int)strcspn(h + 5, " "), h + 5);
    snprintf(port, sizeof(port), "%.*s", (int)strcspn(p + 5, " "), p + 5);
    snprintf(sb_dir, sizeof(sb_dir), "%s/standby", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(sb_run, sizeof(sb_run), "%s-run", sb_dir);
    sb_port = e2e_free_port();
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s' && chmod 700 '%s' && { [ \"$(id -u)\" != 0 ] "
             "|| chown postgres: '%s' '%s'; }", sb_dir, sb_run, sb_dir, sb_dir, sb_run);
    assert_int_equal(sh(cmd), 0);
    snprintf(cmd, sizeof(cmd), "-h '%s' -p %s", host, port);
    as_pg("\"$pgbin/pg_basebackup\" %s -U postgres -D '%s' -R -X stream -c fast >/dev/null",
          cmd, sb_dir);
    snprintf(cmd, sizeof(cmd), "%s/postgresql.conf", sb_dir);
    f = fopen(cmd, "a");
    assert_non_null(f);
    /* Its own socket and port; replay held back: the injected delay. */
    fprintf(f, "port = %d\nunix_socket_directories = '%s'\nrecovery_min_apply_delay = '%dms'\n",
            sb_port, sb_run, DELAY_MS);
    fclose(f);
    as_pg("\"$pgbin/pg_ctl\" -D '%s' -l '%s/server.log' -w -t 60 start >/dev/null", sb_dir,
          sb_dir);
    direct_url = strdup(e2e_url());
    snprintf(extra, sizeof(extra),
             "TravelStandbyConnInfo \"host=%s port=%d dbname=travel user=travel "
             "connect_timeout=2\"", sb_run, sb_port);
    pid = e2e_start_instance("standby", NULL, extra, url, sizeof(url));
    /* The fe_ helpers talk to e2e_url(). */
    setenv("TRAVEL_TEST_URL", url, 1);
}

static void stop_standby(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    setenv("TRAVEL_TEST_URL", direct_url, 1);
    as_pg("\"$pgbin/pg_ctl\" -D '%s' -m fast -w stop >/dev/null 2>&1 || true %s", sb_dir, "");
}

/* GET path with key and, when set, x-travel-min-lsn; counts who served. */
static e2e_resp *read_at(const char *key, const char *path, const char *lsn, int *by_standby)
{
    char kh[512], lh[128];
    const char *hdrs[3] = {kh, lsn ? lh : NULL, NULL};
    e2e_resp *r;
    char *from;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(lh, sizeof(lh), "x-travel-min-lsn: %s", lsn ? lsn : "");
    r = e2e_call(url, "GET", path, hdrs, NULL);
    from = e2e_header(r, "x-travel-read-from");
    if (!from) {
        fail_msg("GET %s: no x-travel-read-from header: %s", path, r->headers);
    }
    *by_standby = strcmp(from, "standby") == 0;
    if (!*by_standby && strcmp(from, "primary") != 0) {
        fail_msg("GET %s: x-travel-read-from %s", path, from);
    }
    free(from);
    return r;
}

/* The booking's status in a read of it or in the first page of the list. */
static const char *status_in(const e2e_resp *r, const char *id)
{
    json_t *d = fe_data(r);
    size_t i;
    if (r->status != 200) {
        return "(not found)";
    }
    if (!json_is_array(d)) {
        return fe_s(d, "status");
    }
    for (i = 0; i < json_array_size(d); i++) {
        if (strcmp(fe_s(json_array_get(d, i), "id"), id) == 0) {
            return fe_s(json_array_get(d, i), "status");
        }
    }
    return "(not listed)";
}

static char *token, *key;

static void reads_never_older_than_the_clients_writes(void **state)
{
    char *org, path[256];
    int n, by, stale_any = 0, stale_controls = 0;
    (void)state;
    key = e2e_new_org_key("standby-reader", &org);
    for (n = 0; n < BOOKINGS; n++) {
        json_t *b = fe_ready(key, "SUPPLIER_A", "Standby", NULL);
        const char *id = fe_s(b, "id");
        e2e_resp *w = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}"), *r;
        fe_expect(w, 200, "book");
        assert_string_equal(fe_s(fe_data(w), "status"), "CONFIRMED");
        free(token);
        token = e2e_header(w, "x-travel-lsn");
        if (!token) {
            fail_msg("a write without x-travel-lsn: %s", w->headers);
        }
        e2e_free(w);
        /* At once, with the token: the booking as the client left it. */
        snprintf(path, sizeof(path), "/v1/flight/bookings/%s", id);
        r = read_at(key, path, token, &by);
        reads_total++;
        reads_standby += by;
        if (strcmp(status_in(r, id), "CONFIRMED") != 0) {
            stale_any++;
        }
        e2e_free(r);
        r = read_at(key, "/v1/flight/bookings?limit=5", token, &by);
        reads_total++;
        reads_standby += by;
        if (strcmp(status_in(r, id), "CONFIRMED") != 0) {
            stale_any++;
        }
        e2e_free(r);
        /* The control: any state will do, so the lagging standby serves
         * it and shows the booking before the book. */
        r = read_at(key, path, "0/0", &by);
        if (by && strcmp(status_in(r, id), "CONFIRMED") != 0) {
            stale_controls++;
        }
        e2e_free(r);
        json_decref(b);
    }
    print_message("      %d stale reads with the token; %d of %d reads without one saw the "
                  "standby %d ms behind\n", stale_any, stale_controls, BOOKINGS, DELAY_MS);
    assert_int_equal(stale_any, 0);
    /* The delay is real: without the token the standby's state is older. */
    assert_true(stale_controls > 0);
    free(org);
}

static void hotel_reads_never_older_than_the_clients_writes(void **state)
{
    char *org, *k = e2e_new_org_key("standby-hotels", &org), path[256], ref[64], idem[64];
    int n, by, stale_any = 0, stale_controls = 0;
    (void)state;
    for (n = 0; n < 3; n++) {
        json_t *offer = he_offer(k, "SUPPLIER_A", n * 4);
        char *body, *lsn;
        const char *id;
        e2e_resp *w, *r;
        snprintf(ref, sizeof(ref), "standby-%d", n);
        snprintf(idem, sizeof(idem), "standby-%ld-%d", e2e_now_ms(), n);
        body = he_prebook_body(fe_s(offer, "offer_reference"), ref, "Standby");
        w = he_prebook(k, idem, body);
        fe_expect(w, 201, "a hotel prebook");
        id = fe_s(fe_data(w), "id");
        lsn = e2e_header(w, "x-travel-lsn");
        assert_non_null(lsn);
        snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", id);
        r = read_at(k, path, lsn, &by);
        reads_total++;
        reads_standby += by;
        stale_any += r->status != 200;
        e2e_free(r);
        r = read_at(k, "/v1/hotel/bookings?limit=5", lsn, &by);
        reads_total++;
        reads_standby += by;
        stale_any += strcmp(status_in(r, id), "(not listed)") == 0;
        e2e_free(r);
        /* Without the token the lagging standby has not got it yet. */
        r = read_at(k, path, "0/0", &by);
        stale_controls += by && r->status == 404;
        e2e_free(r);
        free(lsn);
        free(body);
        e2e_free(w);
        json_decref(offer);
    }
    print_message("      hotels: %d stale reads with the token; %d of 3 reads without one "
                  "missed the new booking\n", stale_any, stale_controls);
    assert_int_equal(stale_any, 0);
    assert_true(stale_controls > 0);
    free(org);
    free(k);
}

static void a_replayed_standby_serves_the_reads(void **state)
{
    long start = e2e_now_ms();
    int i, by = 0;
    e2e_resp *r;
    (void)state;
    /* Until the standby has replayed the last write (the delay, bounded). */
    while (!by && e2e_now_ms() - start < DELAY_MS + 15000) {
        r = read_at(key, "/v1/flight/bookings?limit=5", token, &by);
        assert_int_equal(r->status, 200);
        e2e_free(r);
        if (!by) {
            e2e_sleep_ms(200);
        }
    }
    assert_true(by);
    for (i = 0; i < 40; i++) {
        r = read_at(key, i % 4 ? "/v1/flight/bookings?limit=5" : "/v1/flight/bookings?limit=1",
                    token, &by);
        assert_int_equal(r->status, 200);
        reads_total++;
        reads_standby += by;
        e2e_free(r);
    }
    /* A read without the token goes to the primary. */
    r = read_at(key, "/v1/flight/bookings?limit=1", NULL, &by);
    assert_int_equal(r->status, 200);
    assert_false(by);
    e2e_free(r);
    print_message("      reads with the token served by the standby: %ld of %ld (%.0f %%)\n",
                  reads_standby, reads_total, 100.0 * reads_standby / reads_total);
    assert_true(reads_standby >= 40);
}

/* The delay lifted (the standby streams as fast as it can): how soon after
 * its write a read is served by the standby (reads 0, 100, 300 and 700 ms
 * after it), still never stale. The stack's primary runs with
 * synchronous_commit off, so a commit reaches the standby after the WAL
 * writer's next flush (up to 200 ms here; at once with it on). */
static void without_the_delay(void **state)
{
    static const int pause_ms[4] = {0, 100, 200, 400};
    char path[4096];
    FILE *f;
    int n, i, by, stale_any = 0, at[4] = {0, 0, 0, 0};
    (void)state;
    snprintf(path, sizeof(path), "%s/postgresql.conf", sb_dir);
    f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f, "recovery_min_apply_delay = 0\n");
    fclose(f);
    as_pg("\"$pgbin/pg_ctl\" -D '%s' reload >/dev/null %s", sb_dir, "");
    for (n = 0; n < 6; n++) {
        json_t *b = fe_ready(key, "SUPPLIER_A", "Standby", NULL);
        const char *id = fe_s(b, "id");
        e2e_resp *w = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}"), *r;
        char *lsn;
        fe_expect(w, 200, "book");
        lsn = e2e_header(w, "x-travel-lsn");
        assert_non_null(lsn);
        snprintf(path, sizeof(path), "/v1/flight/bookings/%s", id);
        for (i = 0; i < 4; i++) {
            e2e_sleep_ms(pause_ms[i]);
            r = read_at(key, path, lsn, &by);
            stale_any += strcmp(status_in(r, id), "CONFIRMED") != 0;
            at[i] += by;
            e2e_free(r);
        }
        free(lsn);
        e2e_free(w);
        json_decref(b);
    }
    print_message("      no delay: reads served by the standby of 6, at 0 / 100 / 300 / 700 ms "
                  "after the write: %d / %d / %d / %d; %d stale\n", at[0], at[1], at[2], at[3],
                  stale_any);
    assert_int_equal(stale_any, 0);
}

/* A read that any replayed state would do for (0/0), with key k. */
static long any_state_read(void *k)
{
    char kh[512];
    const char *hdrs[3] = {kh, "x-travel-min-lsn: 0/0", NULL};
    e2e_resp *r;
    long st;
    snprintf(kh, sizeof(kh), "x-api-key: %s", (const char *)k);
    r = e2e_call(url, "GET", "/v1/flight/bookings?limit=1", hdrs, NULL);
    st = r->status;
    e2e_free(r);
    return st;
}

/* Keys are read from the primary: a revocation holds within the key
 * cache's bound (2 s: docs/operations.md), before the standby, DELAY_MS
 * behind, could have replayed it. */
static void a_revoked_key_is_refused_whatever_the_lag(void **state)
{
    char *org, *k = e2e_new_org_key("standby-revoked", &org), *key_id, *out;
    const char *p[1] = {org};
    long t0;
    int i;
    (void)state;
    for (i = 0; i < 12; i++) {
        assert_int_equal(any_state_read(k), 200);
    }
    key_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1", 1, p);
    out = e2e_travelctl("key revoke %s", key_id);
    assert_non_null(out);
    t0 = e2e_now_ms();
    if (!e2e_until_steady(any_state_read, k, 401, 2000)) {
        fail_msg("the revoked key was still taken after 2 s");
    }
    print_message("      revoked key refused for good %ld ms after the revocation (the "
                  "standby is %d ms behind)\n", e2e_now_ms() - t0, DELAY_MS);
    free(out);
    free(key_id);
    free(org);
    free(k);
}

static void a_stopped_standby_sends_reads_to_the_primary(void **state)
{
    e2e_resp *r;
    int by, i;
    (void)state;
    as_pg("\"$pgbin/pg_ctl\" -D '%s' -m fast -w stop >/dev/null %s", sb_dir, "");
    for (i = 0; i < 5; i++) {
        r = read_at(key, "/v1/flight/bookings?limit=5", token, &by);
        assert_int_equal(r->status, 200);
        assert_false(by);
        e2e_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_standby),
        cmocka_unit_test(reads_never_older_than_the_clients_writes),
        cmocka_unit_test(hotel_reads_never_older_than_the_clients_writes),
        cmocka_unit_test(a_replayed_standby_serves_the_reads),
        cmocka_unit_test(a_revoked_key_is_refused_whatever_the_lag),
        cmocka_unit_test(without_the_delay),
        cmocka_unit_test(a_stopped_standby_sends_reads_to_the_primary),
        cmocka_unit_test(stop_standby),
    };
    return E2E_RUN("standby reads", tests);
}
