/* What sending in batches could break (webhook/send_batch.c): one sender
 * claims several due attempts at once and records their outcomes in one
 * statement, so a batch holding a failing receiver's attempts and a
 * healthy receiver's must still record each attempt's own outcome, retry
 * schedule and signature. */
#include "test_webhook_common.h"
#include "core/db.h"

#define EVENTS 40

static void one_failing_receiver_in_a_batch_records_each_outcome(void **state)
{
    char bad_inbox[64], bad_url[256], good_inbox[64], good_url[256];
    char *org = NULL, *key = e2e_new_org_key("batch", &org);
    json_t *bad, *good;
    const char *p[3];
    PGresult *res;
    long t0;
    int i, unverified = 0;
    (void)state;

    wh_inbox(bad_inbox, sizeof(bad_inbox), bad_url, sizeof(bad_url));
    wh_inbox(good_inbox, sizeof(good_inbox), good_url, sizeof(good_url));
    wh_inbox_behave(bad_inbox, "{\"status\": 500}");
    bad = wh_subscribe(key, "flight", bad_url, "[\"flight.booking.confirmed\"]");
    good = wh_subscribe(key, "flight", good_url, "[\"flight.booking.confirmed\"]");
    p[0] = wh_str(bad, "id");
    p[1] = wh_str(good, "id");
    p[2] = org;

    /* EVENTS events fanned out to both subscriptions in one transaction,
     * their send jobs due together a second later and alternating between
     * the two receivers, so every batch of two or more holds both. */
    e2e_sql_exec("BEGIN", 0, NULL);
    e2e_sql_exec("INSERT INTO events (id, org_id, family, type, data) "
                 "SELECT 'evt_' || gen_random_uuid(), $1, 'flight', 'flight.booking.confirmed', "
                 "jsonb_build_object('booking', jsonb_build_object('id', 'bkg_batch_' || i)) "
                 "FROM generate_series(1, 40) i", 1, p + 2);
    e2e_sql_exec("UPDATE jobs j SET available_at = now() + interval '1 second' "
                 "+ x.n * interval '1 microsecond' FROM (SELECT jb.id, 2 * row_number() OVER "
                 "(PARTITION BY d.subscription_id ORDER BY d.event_id) "
                 "+ (d.subscription_id = $2)::int AS n FROM jobs jb JOIN webhook_deliveries d "
                 "ON d.id = jb.payload->>'delivery_id' WHERE jb.kind = 'webhook.send' "
                 "AND d.subscription_id IN ($1, $2)) x WHERE j.id = x.id", 2, p);
    e2e_sql_exec("COMMIT", 0, NULL);

    /* The failing receiver's deliveries go through the schedule (three
     * retries in tests) to FAILED; the healthy one's are DELIVERED. */
    t0 = e2e_now_ms();
    while (e2e_now_ms() - t0 < 90000
           && e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                           "(subscription_id = $1 AND status = 'FAILED') OR "
                           "(subscription_id = $2 AND status = 'DELIVERED')", 2, p)
                  < 2 * EVENTS) {
        e2e_sleep_ms(200);
    }
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                  "subscription_id = $1 AND status = 'DELIVERED' "
                                  "AND delivered_at IS NOT NULL AND attempt_count = 1 "
                                  "AND failure_reason IS NULL", 1, p + 1), EVENTS);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                  "subscription_id = $1 AND status = 'FAILED' "
                                  "AND failure_reason = 'retries_exhausted' "
                                  "AND failed_at IS NOT NULL AND delivered_at IS NULL "
                                  "AND attempt_count = 4", 1, p), EVENTS);
    /* Each attempt recorded once with its own receiver's answer. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_attempts a JOIN "
                                  "webhook_deliveries d ON d.id = a.delivery_id WHERE "
                                  "d.subscription_id = $1 AND a.attempt_number = 1 "
                                  "AND a.response_status = 200 AND a.error IS NULL", 1, p + 1),
                     EVENTS);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_attempts a JOIN "
                                  "webhook_deliveries d ON d.id = a.delivery_id WHERE "
                                  "d.subscription_id = $1", 1, p + 1), EVENTS);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_attempts a JOIN "
                                  "webhook_deliveries d ON d.id = a.delivery_id WHERE "
                                  "d.subscription_id = $1 AND a.response_status = 500 "
                                  "AND a.attempt_number BETWEEN 1 AND 4", 1, p), 4 * EVENTS);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM (SELECT DISTINCT a.delivery_id, "
                                  "a.attempt_number FROM webhook_attempts a JOIN "
                                  "webhook_deliveries d ON d.id = a.delivery_id WHERE "
                                  "d.subscription_id = $1) x", 1, p), 4 * EVENTS);
    /* Nothing left queued for either. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d "
                                  "ON d.id = j.payload->>'delivery_id' "
                                  "WHERE d.subscription_id IN ($1, $2)", 2, p), 0);
    /* Batches did hold both receivers: attempts one record statement wrote
     * share their sender and their timestamp (the statement's, to the
     * millisecond; one sender thread makes a claim, a request and a record
     * between two records). */
    assert_true(e2e_sql_long("SELECT count(*) FROM (SELECT a.sender, a.created_at FROM "
                             "webhook_attempts a JOIN webhook_deliveries d ON d.id = "
                             "a.delivery_id WHERE d.subscription_id IN ($1, $2) "
                             "AND a.attempt_number = 1 GROUP BY a.sender, a.created_at "
                             "HAVING count(DISTINCT d.subscription_id) = 2) x", 2, p) >= 1);
    /* Every request the healthy receiver got was signed on its own: its own
     * event id, timestamp and a signature that verifies with its secret. */
    res = PQexecParams(e2e_db(), "SELECT headers->>'webhook-id', headers->>'webhook-timestamp', "
                       "headers->>'webhook-signature', convert_from(body, 'UTF8') "
                       "FROM sandbox.inbox_requests WHERE inbox = $1", 1, NULL,
                       (const char *const[]){good_inbox}, NULL, NULL, 0);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(res), EVENTS);
    for (i = 0; i < PQntuples(res); i++) {
        if (!swh_verify(wh_str(good, "signing_secret"), PQgetvalue(res, i, 0),
                        PQgetvalue(res, i, 1), PQgetvalue(res, i, 2), PQgetvalue(res, i, 3),
                        strlen(PQgetvalue(res, i, 3)))
            || !strstr(PQgetvalue(res, i, 3), PQgetvalue(res, i, 0))) {
            unverified++;
        }
    }
    PQclear(res);
    assert_int_equal(unverified, 0);
    {
        const char *q[2] = {good_inbox, p[1]};
        assert_int_equal(e2e_sql_long("SELECT count(DISTINCT headers->>'webhook-id') FROM "
                                      "sandbox.inbox_requests WHERE inbox = $1 AND "
                                      "headers->>'webhook-id' IN (SELECT event_id FROM "
                                      "webhook_deliveries WHERE subscription_id = $2)", 2, q),
                         EVENTS);
    }
    json_decref(bad);
    json_decref(good);
    free(key);
    free(org);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_failing_receiver_in_a_batch_records_each_outcome),
    };
    return E2E_RUN("webhook batches", tests);
}
