/* The webhook sender's claim and record (sql/310) find a batch's rows by
 * their keys, however large webhook_deliveries and jobs are: as prepared
 * statements they once kept plans made while the tables were new, which
 * read both tables whole (sequential scans) on every batch, and the breaker
 * bench's PostgreSQL CPU grew run after run. Here, in one transaction
 * rolled back at the end (no httpd worker ever sees its rows): the
 * functions are first run while this organization has nothing queued
 * (their plans are cached then, as a sender's are at its start), then
 * 20,000 events fan out to 20,000 deliveries and send jobs, and a batch's
 * claim and record must make no sequential scan of either table, and the
 * claim and the record must not walk the queue's key either (sql/411). */
#include "dbtest.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <libpq-fe.h>
#include <string.h>

#define EVENTS 20000

/* Sequential scans of `table` this transaction has made so far. */
static long seqscans(const char *table)
{
    const char *p[1] = {table};
    return dbt_sql_long("SELECT pg_stat_get_xact_numscans($1::regclass)", 1, p);
}

/* Rows of jobs fetched through its primary key so far in this
 * transaction: a claim reads its batch by key, a handful; a plan that
 * walks the key from the first job to the last reads the whole queue
 * (sql/411), and no sequential scan shows it. */
static long jobs_by_key(void)
{
    return dbt_sql_long("SELECT pg_stat_get_xact_tuples_fetched('jobs_pkey'::regclass)", 0, NULL);
}

static void a_batch_reads_its_rows_by_key_however_large_the_tables(void **state)
{
    const char *org = trv_id_new(dbt_pool, "org"), *sub = trv_id_new(dbt_pool, "whs");
    const char *worker = "dbtest:plans:0", *job, *p[4];
    long before_d, before_j, before_k, claimed;
    int i;
    (void)state;

    dbt_sql("BEGIN", 0, NULL);
    /* The queue's statistics as a quiet site's autovacuum (or the breaker
     * bench's VACUUM ANALYZE between runs) leaves them: a few rows. */
    dbt_sql("ANALYZE jobs", 0, NULL);
    /* Plans made while nothing of this organization is queued (own_job 0
     * names no job: the claim takes nothing, but is planned). */
    for (i = 0; i < 8; i++) {
        dbt_sql("SELECT count(*) FROM trv_webhook_batch_claim(1000000, 0, 'dbtest:none', 1, 15)",
            0, NULL);
        dbt_sql("SELECT count(*) FROM trv_webhook_batch_record('[{\"job_id\": 0, \"job_attempt\": 1, "
            "\"action\": \"done\"}]', 'dbtest:none', 'webhook.send', 25)", 0, NULL);
    }
    p[0] = org;
    p[1] = sub;
    dbt_sql("INSERT INTO organizations (id, name) VALUES ($1, 'batch plans test')", 1, p);
    dbt_sql("INSERT INTO webhook_subscriptions (id, org_id, family, url, event_types, secret_enc) "
        "VALUES ($2, $1, 'flight', 'https://hooks.example.com/' || $2, "
        "'{flight.booking.confirmed}', 'v1:sealed-' || $2)", 2, p);
    /* One statement: the fan-out (sql/044) makes a delivery and a send job
     * for each. */
    p[1] = apr_itoa(dbt_pool, EVENTS);
    dbt_sql("INSERT INTO events (id, org_id, family, type, data) "
        "SELECT 'evt_plans_' || $1 || '_' || g, $1, 'flight', 'flight.booking.confirmed', "
        "jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || g)) "
        "FROM generate_series(1, $2::int) g", 2, p);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs WHERE kind = 'webhook.send' AND "
                         "payload->>'delivery_id' IN (SELECT id FROM webhook_deliveries "
                         "WHERE org_id = $1)", 1, p),
                     EVENTS);
    /* Due by the transaction's clock (the claim compares with now()). */
    dbt_sql("UPDATE jobs SET available_at = now() - interval '1 second' WHERE kind = 'webhook.send' "
        "AND payload->>'delivery_id' IN (SELECT id FROM webhook_deliveries WHERE org_id = $1)",
        1, p);

    /* The worker's own job, as the queue's claim leaves it. */
    p[1] = worker;
    job = dbt_sql("UPDATE jobs SET status = 'running', attempts = 1, locked_by = $2 "
              "WHERE id = (SELECT min(j.id) FROM jobs j JOIN webhook_deliveries d "
              "ON d.id = j.payload->>'delivery_id' WHERE d.org_id = $1) RETURNING id", 2, p);
    assert_non_null(job);

    before_d = seqscans("webhook_deliveries");
    before_j = seqscans("jobs");
    before_k = jobs_by_key();
    p[0] = job;
    p[1] = worker;
    claimed = dbt_sql_long("SELECT count(*) FROM trv_webhook_batch_claim(30000000, $1::bigint, "
                  "$2, 1, 15)", 2, p);
    assert_int_equal(claimed, 16);
    assert_int_equal(seqscans("webhook_deliveries") - before_d, 0);
    assert_int_equal(seqscans("jobs") - before_j, 0);
    /* Its own job and the 15 more, each by key (not 20,000). */
    print_message("      claim of 16 among %d queued: %ld rows of jobs read by key\n", EVENTS,
                  jobs_by_key() - before_k);
    assert_true(jobs_by_key() - before_k <= 64);

    /* The record of the 16: half "done" (each job ends), half "wait" (put
     * back, as held and throttled requests are). */
    p[0] = worker;
    p[1] = dbt_sql("SELECT jsonb_agg(jsonb_build_object('job_id', id, 'job_attempt', attempts, "
               "'action', CASE WHEN id % 2 = 0 THEN 'done' ELSE 'wait' END, "
               "'next_us', 1000000)) FROM jobs WHERE locked_by = $1", 1, p);
    assert_non_null(p[1]);
    before_d = seqscans("webhook_deliveries");
    before_j = seqscans("jobs");
    before_k = jobs_by_key();
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM trv_webhook_batch_record($2::jsonb, $1, "
                         "'webhook.send', 25)", 2, p),
                     0);
    assert_int_equal(seqscans("webhook_deliveries") - before_d, 0);
    assert_int_equal(seqscans("jobs") - before_j, 0);
    print_message("      record of 16 among %d queued: %ld rows of jobs read by key\n", EVENTS,
                  jobs_by_key() - before_k);
    assert_true(jobs_by_key() - before_k <= 64);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs WHERE locked_by = $1", 1, p), 0);
    dbt_sql("ROLLBACK", 0, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_batch_reads_its_rows_by_key_however_large_the_tables),
    };
    return cmocka_run_group_tests(tests, dbt_setup, dbt_teardown);
}
