/* The webhook path's other statements (sql/370) find their rows by key
 * however large the tables are, as the sender's claim and record do
 * (test_webhook_batch_plans): the throttle's admission and the circuit
 * breaker's failure state read the few subscriptions of a batch, not every
 * subscription; a retention batch reads its events' deliveries and
 * attempts, not every delivery and event. Each is first run while this
 * test has added nothing (its plans are cached then, as a sender's are at
 * its start), then the tables grow (5,000 subscriptions; 20,000 events
 * past the period with their deliveries), and a run must make no
 * sequential scan. All in one transaction rolled back at the end: no
 * httpd worker ever sees the rows. */
#include "dbtest.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <libpq-fe.h>
#include <string.h>

#define SUBSCRIPTIONS 5000
#define EVENTS 20000
/* The test's events are 60 years old and the period 50 years: no other
 * test's event is past it. */
#define PERIOD_US "1577880000000000"

/* Sequential scans of `table` this transaction has made so far. */
static long seqscans(const char *table)
{
    const char *p[1] = {table};
    return dbt_sql_long("SELECT pg_stat_get_xact_numscans($1::regclass)", 1, p);
}

/* A subscription of a new organization (one each: at most 5 per
 * organization and family). */
static void add_subscriptions(const char *prefix, int n)
{
    const char *p[2] = {prefix, apr_itoa(dbt_pool, n)};
    dbt_sql("INSERT INTO organizations (id, name) SELECT $1 || '_org_' || g, 'plans test' "
            "FROM generate_series(1, $2::int) g", 2, p);
    dbt_sql("INSERT INTO webhook_subscriptions (id, org_id, family, url, event_types, secret_enc) "
            "SELECT $1 || '_whs_' || g, $1 || '_org_' || g, 'flight', "
            "'https://hooks.example.com/' || g, '{flight.booking.confirmed}', 'v1:sealed' "
            "FROM generate_series(1, $2::int) g", 2, p);
}

static void throttle_and_breaker_read_their_subscriptions_by_key(void **state)
{
    const char *pre = trv_id_new(dbt_pool, "pl"), *sub, *p[1];
    char admit[256], fail[256], ok[256];
    long before;
    int i;
    (void)state;

    dbt_sql("BEGIN", 0, NULL);
    add_subscriptions(pre, 1);
    sub = apr_pstrcat(dbt_pool, pre, "_whs_1", NULL);
    snprintf(admit, sizeof(admit), "[{\"sub\": \"%s\", \"spacing_us\": 1000}]", sub);
    snprintf(fail, sizeof(fail), "[{\"sub\": \"%s\", \"ok\": false}]", sub);
    snprintf(ok, sizeof(ok), "[{\"sub\": \"%s\", \"ok\": true}]", sub);
    /* Plans made while there is one subscription more than before. */
    for (i = 0; i < 8; i++) {
        p[0] = admit;
        dbt_sql("SELECT count(*) FROM trv_webhook_throttle_admit($1::jsonb)", 1, p);
        p[0] = i % 2 ? ok : fail;
        dbt_sql("SELECT trv_webhook_breaker_note($1::jsonb)", 1, p);
    }
    add_subscriptions(apr_pstrcat(dbt_pool, pre, "x", NULL), SUBSCRIPTIONS);

    /* Admitted once its spacing (1 ms) has passed, and not twice at once. */
    dbt_sql("SELECT pg_sleep(0.01)", 0, NULL);
    before = seqscans("webhook_subscriptions");
    p[0] = admit;
    assert_string_equal(dbt_sql("SELECT admitted::text FROM trv_webhook_throttle_admit($1::jsonb)",
                                1, p),
                        "true");
    assert_int_equal(seqscans("webhook_subscriptions") - before, 0);

    /* A failure is noted once (the last run above was a 2xx). */
    p[0] = fail;
    dbt_sql("SELECT trv_webhook_breaker_note($1::jsonb)", 1, p);
    assert_int_equal(seqscans("webhook_subscriptions") - before, 0);
    p[0] = sub;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 "
                                  "AND failing_since IS NOT NULL", 1, p),
                     1);
    dbt_sql("ROLLBACK", 0, NULL);
}

static void a_retention_batch_reads_its_rows_by_key(void **state)
{
    const char *pre = trv_id_new(dbt_pool, "pl"), *p[3];
    long before_d, before_e, before_a, removed;
    int i;
    (void)state;

    dbt_sql("BEGIN", 0, NULL);
    /* Plans made before this test's events exist (none is past 50 years). */
    for (i = 0; i < 8; i++) {
        assert_int_equal(dbt_sql_long("SELECT events FROM trv_webhook_retention_remove("
                                      PERIOD_US ", 500)", 0, NULL),
                         0);
    }
    add_subscriptions(pre, 1);
    /* One statement: the fan-out (sql/044) makes a delivery and a send job
     * for each; they are then done (DELIVERED, their jobs gone). */
    p[0] = apr_pstrcat(dbt_pool, pre, "_org_1", NULL);
    p[1] = apr_itoa(dbt_pool, EVENTS);
    dbt_sql("INSERT INTO events (id, org_id, family, type, data, created_at) "
            "SELECT 'evt_' || $1 || '_' || g, $1, 'flight', 'flight.booking.confirmed', "
            "jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || g)), "
            "now() - interval '60 years' + g * interval '1 millisecond' "
            "FROM generate_series(1, $2::int) g", 2, p);
    /* Joined by hashing, whatever the tables' statistics say: once an
     * earlier test's rows had been analyzed, the planner took these
     * 40,000 new rows for a few and joined them in a nested loop, 40,000
     * by 40,000 (six minutes of one core). Only this statement. */
    dbt_sql("SET LOCAL enable_nestloop = off", 0, NULL);
    dbt_sql("DELETE FROM jobs WHERE kind = 'webhook.send' AND payload->>'delivery_id' IN "
            "(SELECT id FROM webhook_deliveries WHERE org_id = $1)", 1, p);
    dbt_sql("SET LOCAL enable_nestloop = on", 0, NULL);
    dbt_sql("UPDATE webhook_deliveries SET status = 'DELIVERED', attempt_count = 1 "
            "WHERE org_id = $1", 1, p);
    dbt_sql("INSERT INTO webhook_attempts (delivery_id, replay, attempt_number, response_status, "
            "response_body, duration_ms, sender) SELECT id, 0, 1, 200, '', 1, 'dbtest' "
            "FROM webhook_deliveries WHERE org_id = $1", 1, p);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE org_id = $1",
                                  1, p),
                     EVENTS);

    before_d = seqscans("webhook_deliveries");
    before_e = seqscans("events");
    before_a = seqscans("webhook_attempts");
    removed = dbt_sql_long("SELECT events FROM trv_webhook_retention_remove(" PERIOD_US ", 500)",
                           0, NULL);
    /* The oldest 500, each with its delivery and attempt. */
    assert_int_equal(removed, 500);
    assert_int_equal(seqscans("webhook_deliveries") - before_d, 0);
    assert_int_equal(seqscans("events") - before_e, 0);
    assert_int_equal(seqscans("webhook_attempts") - before_a, 0);
    p[1] = apr_pstrcat(dbt_pool, "evt_", pre, "_org_1_500", NULL);
    p[2] = apr_pstrcat(dbt_pool, "evt_", pre, "_org_1_501", NULL);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM events WHERE org_id = $1 AND id IN ($2, $3)",
                                  3, p),
                     1);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE org_id = $1",
                                  1, p),
                     EVENTS - 500);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_attempts a JOIN "
                                  "webhook_deliveries d ON d.id = a.delivery_id WHERE d.org_id = $1",
                                  1, p),
                     EVENTS - 500);
    dbt_sql("ROLLBACK", 0, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(throttle_and_breaker_read_their_subscriptions_by_key),
        cmocka_unit_test(a_retention_batch_reads_its_rows_by_key),
    };
    return cmocka_run_group_tests(tests, dbt_setup, dbt_teardown);
}
