/* Fan-out of an outbox event (at its insert, sql/044, or by the
 * event.publish job where the insert did not) against a real
 * PostgreSQL, without httpd: one delivery per live matching subscription of
 * the event's organization and family, paused ones failed at once, the
 * live secrets fixed in the delivery, one send job per pending delivery, and
 * a second run of the job (after a crash) adding nothing. Everything made
 * here is removed again, so no httpd worker later picks it up. */
#include "dbtest.h"
#include "core/ids.h"
#include "core/json.h"
#include "webhook/outbox.h"
#include "webhook/publish.h"

#include <apr_strings.h>
#include <libpq-fe.h>
#include <string.h>

static const char *org;

/* A subscription row as the API would store it; `extra` is SQL run on it
 * afterwards ($1 is its id), e.g. to pause, rotate or delete it. */
static const char *subscription(const char *family, const char *types, const char *extra)
{
    const char *id = trv_id_new(dbt_pool, "whs");
    const char *p[4] = {id, org, family, types};
    dbt_sql("INSERT INTO webhook_subscriptions (id, org_id, family, url, event_types, secret_enc) "
        "VALUES ($1, $2, $3, 'https://hooks.example.com/' || $1, $4::text[], 'v1:sealed-' || $1)",
        4, p);
    if (extra) {
        dbt_sql(extra, 1, p);
    }
    return id;
}

static trv_env *test_env(void)
{
    static trv_env env;
    static trv_config cfg;
    cfg.job_lease = apr_time_from_sec(30);
    env.db = trv_dbsrc_single(dbt_pool, dbt_conn);
    env.cfg = &cfg;
    return &env;
}

static trv_job_result publish(const char *event_id)
{
    trv_job job;
    trv_job_result res;
    memset(&job, 0, sizeof(job));
    memset(&res, 0, sizeof(res));
    job.id = "0";
    job.kind = TRV_EVENT_PUBLISH_JOB;
    job.attempt = 1;
    job.worker = "dbtest:1:0";
    job.payload = trv_json_bind(dbt_pool, json_pack("{s:s}", "event_id", event_id));
    res.outcome = TRV_JOB_DONE;
    trv_event_publish_run(test_env(), dbt_pool, &job, &res);
    return res;
}

static void cleanup(void)
{
    const char *p[1] = {org};
    dbt_sql("DELETE FROM jobs WHERE kind = 'webhook.send' AND payload->>'delivery_id' IN "
        "(SELECT id FROM webhook_deliveries WHERE org_id = $1)", 1, p);
    dbt_sql("DELETE FROM jobs WHERE kind = 'event.publish' AND payload->>'event_id' IN "
        "(SELECT id FROM events WHERE org_id = $1)", 1, p);
    dbt_sql("DELETE FROM webhook_attempts WHERE delivery_id IN "
        "(SELECT id FROM webhook_deliveries WHERE org_id = $1)", 1, p);
    dbt_sql("DELETE FROM webhook_deliveries WHERE org_id = $1", 1, p);
    dbt_sql("DELETE FROM webhook_subscriptions WHERE org_id = $1", 1, p);
    dbt_sql("DELETE FROM events WHERE org_id = $1", 1, p);
}

static void an_event_fans_out_once_to_the_matching_subscriptions(void **state)
{
    const char *active, *paused, *other_type, *hotel, *deleted, *rotated, *expired;
    const char *event_id = NULL, *p[2];
    json_t *data = trv_json_bind(dbt_pool, json_pack("{s:{s:s}}", "booking", "id", "bkg_1"));
    trv_job_result res;
    (void)state;

    org = trv_id_new(dbt_pool, "org");
    p[0] = org;
    dbt_sql("INSERT INTO organizations (id, name) VALUES ($1, 'fan-out test')", 1, p);
    active = subscription("flight", "{flight.booking.confirmed,flight.booking.failed}", NULL);
    paused = subscription("flight", "{flight.booking.confirmed}",
                          "UPDATE webhook_subscriptions SET status = 'PAUSED' WHERE id = $1");
    other_type = subscription("flight", "{flight.booking.failed}", NULL);
    hotel = subscription("hotel", "{hotel.booking.confirmed}", NULL);
    deleted = subscription("flight", "{flight.booking.confirmed}",
                           "UPDATE webhook_subscriptions SET deleted_at = now() WHERE id = $1");
    rotated = subscription("flight", "{flight.booking.confirmed}",
                           "UPDATE webhook_subscriptions SET previous_secret_enc = 'v1:old-' || $1, "
                           "previous_secret_expires_at = now() + interval '23 hours' WHERE id = $1");
    expired = subscription("flight", "{flight.booking.confirmed}",
                           "UPDATE webhook_subscriptions SET previous_secret_enc = 'v1:old-' || $1, "
                           "previous_secret_expires_at = now() - interval '1 second' WHERE id = $1");

    /* The outbox, as a domain uses it: the event and its fan-out in one
     * transaction, published by the insert itself, so no publish job is
     * queued (one would only find nothing to do). */
    assert_int_equal(trv_db_begin(dbt_conn, dbt_pool), APR_SUCCESS);
    assert_int_equal(trv_outbox_emit(dbt_conn, dbt_pool, org, "flight.booking.confirmed", data,
                                     &event_id), APR_SUCCESS);
    assert_int_equal(trv_db_commit(dbt_conn), APR_SUCCESS);
    assert_non_null(event_id);
    p[0] = event_id;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs WHERE kind = 'event.publish' AND "
                           "payload->>'event_id' = $1", 1, p), 0);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM events WHERE id = $1 AND published_at IS NOT NULL",
                           1, p), 1);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1", 1, p), 4);

    /* A publish job run anyway (queued before this change) adds nothing. */
    res = publish(event_id);
    assert_int_equal(res.outcome, TRV_JOB_DONE);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1", 1, p), 4);

    p[1] = active;
    assert_string_equal(dbt_sql("SELECT status || ' ' || url || ' ' || array_to_string(secrets_enc, ',') "
                            "FROM webhook_deliveries WHERE event_id = $1 AND subscription_id = $2",
                            2, p),
                        apr_psprintf(dbt_pool, "PENDING https://hooks.example.com/%s v1:sealed-%s",
                                     active, active));
    p[1] = paused;
    assert_string_equal(dbt_sql("SELECT status || ' ' || failure_reason || ' ' || "
                            "(failed_at IS NOT NULL)::text FROM webhook_deliveries "
                            "WHERE event_id = $1 AND subscription_id = $2", 2, p),
                        "FAILED subscription_paused true");
    /* During the 24 hours after a rotation both secrets sign, newest first. */
    p[1] = rotated;
    assert_string_equal(dbt_sql("SELECT array_to_string(secrets_enc, ',') FROM webhook_deliveries "
                            "WHERE event_id = $1 AND subscription_id = $2", 2, p),
                        apr_psprintf(dbt_pool, "v1:sealed-%s,v1:old-%s", rotated, rotated));
    p[1] = expired;
    assert_string_equal(dbt_sql("SELECT array_to_string(secrets_enc, ',') FROM webhook_deliveries "
                            "WHERE event_id = $1 AND subscription_id = $2", 2, p),
                        apr_psprintf(dbt_pool, "v1:sealed-%s", expired));
    p[1] = other_type;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1 "
                           "AND subscription_id = $2", 2, p), 0);
    p[1] = hotel;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1 "
                           "AND subscription_id = $2", 2, p), 0);
    p[1] = deleted;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1 "
                           "AND subscription_id = $2", 2, p), 0);
    /* One send job per pending delivery: its first attempt of send 0. */
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                           "d.id = j.payload->>'delivery_id' WHERE d.event_id = $1 AND "
                           "j.kind = 'webhook.send' AND (j.payload->>'replay')::int = 0 AND "
                           "(j.payload->>'attempt')::int = 1 AND d.status = 'PENDING'", 1, p), 3);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                           "d.id = j.payload->>'delivery_id' WHERE d.event_id = $1", 1, p), 3);

    /* The job runs again (its worker died before recording it): nothing new. */
    res = publish(event_id);
    assert_int_equal(res.outcome, TRV_JOB_DONE);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1", 1, p), 4);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                           "d.id = j.payload->>'delivery_id' WHERE d.event_id = $1", 1, p), 3);
    /* Even if the published mark were lost, the deliveries stay one each. */
    dbt_sql("UPDATE events SET published_at = NULL WHERE id = $1", 1, p);
    res = publish(event_id);
    assert_int_equal(res.outcome, TRV_JOB_DONE);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1", 1, p), 4);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                           "d.id = j.payload->>'delivery_id' WHERE d.event_id = $1", 1, p), 3);
    cleanup();
}

/* Where the insert did not publish the event (its trigger off), the outbox
 * queues the publish job, and the job fans it out. */
static void an_event_not_fanned_out_at_insert_gets_a_publish_job(void **state)
{
    const char *event_id = NULL, *active, *p[1];
    json_t *data = trv_json_bind(dbt_pool, json_pack("{s:{s:s}}", "booking", "id", "bkg_2"));
    trv_job_result res;
    (void)state;

    org = trv_id_new(dbt_pool, "org");
    p[0] = org;
    dbt_sql("INSERT INTO organizations (id, name) VALUES ($1, 'publish job test')", 1, p);
    active = subscription("flight", "{flight.booking.confirmed}", NULL);
    assert_non_null(active);
    assert_int_equal(trv_db_begin(dbt_conn, dbt_pool), APR_SUCCESS);
    dbt_sql("ALTER TABLE events DISABLE TRIGGER events_fan_out", 0, NULL);
    assert_int_equal(trv_outbox_emit(dbt_conn, dbt_pool, org, "flight.booking.confirmed", data,
                                     &event_id), APR_SUCCESS);
    dbt_sql("ALTER TABLE events ENABLE TRIGGER events_fan_out", 0, NULL);
    assert_int_equal(trv_db_commit(dbt_conn), APR_SUCCESS);
    p[0] = event_id;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs WHERE kind = 'event.publish' AND "
                           "payload->>'event_id' = $1", 1, p), 1);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1", 1, p), 0);
    res = publish(event_id);
    assert_int_equal(res.outcome, TRV_JOB_DONE);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_deliveries WHERE event_id = $1", 1, p), 1);
    cleanup();
}

/* An open circuit (sql/400): the sends of a subscription whose open_until
 * is ahead are queued due then, by the insert's fan-out and by the publish
 * job alike; another subscription's at once. The breaker's note opens a
 * circuit (open_until, and failing_since when unset), never moves
 * open_until back, and a 2xx closes it and lets out the sends it held
 * back (sql/410). */
static void an_open_circuit_queues_its_sends_when_it_is_due(void **state)
{
    const char *opened, *closed, *event_id = NULL, *p[3];
    json_t *data = trv_json_bind(dbt_pool, json_pack("{s:{s:s}}", "booking", "id", "bkg_3"));
    int pass;
    (void)state;

    org = trv_id_new(dbt_pool, "org");
    p[0] = org;
    dbt_sql("INSERT INTO organizations (id, name) VALUES ($1, 'open circuit test')", 1, p);
    opened = subscription("flight", "{flight.booking.confirmed}",
                        "UPDATE webhook_subscriptions SET open_until = now() + interval '30 s', "
                        "failing_since = now() WHERE id = $1");
    closed = subscription("flight", "{flight.booking.confirmed}", NULL);
    for (pass = 0; pass < 2; pass++) {
        assert_int_equal(trv_db_begin(dbt_conn, dbt_pool), APR_SUCCESS);
        if (pass == 1) {
            dbt_sql("ALTER TABLE events DISABLE TRIGGER events_fan_out", 0, NULL);
        }
        assert_int_equal(trv_outbox_emit(dbt_conn, dbt_pool, org, "flight.booking.confirmed",
                                         data, &event_id), APR_SUCCESS);
        if (pass == 1) {
            dbt_sql("ALTER TABLE events ENABLE TRIGGER events_fan_out", 0, NULL);
        }
        assert_int_equal(trv_db_commit(dbt_conn), APR_SUCCESS);
        if (pass == 1) {
            assert_int_equal(publish(event_id).outcome, TRV_JOB_DONE);
        }
        p[0] = event_id;
        p[1] = opened;
        assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                               "d.id = j.payload->>'delivery_id' JOIN webhook_subscriptions s ON "
                               "s.id = d.subscription_id WHERE d.event_id = $1 AND s.id = $2 AND "
                               "j.available_at = s.open_until", 2, p), 1);
        p[1] = closed;
        assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                               "d.id = j.payload->>'delivery_id' WHERE d.event_id = $1 AND "
                               "d.subscription_id = $2 AND j.available_at <= now()", 2, p), 1);
    }

    /* Beside the two sends queued behind the open circuit: a retry of the
     * open one due after the circuit's end, and a send of the other one
     * due within it (sql/410 must leave both where they are). */
    p[0] = opened;
    dbt_sql("INSERT INTO jobs (kind, payload, available_at, max_attempts) "
            "SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', 0, "
            "'attempt', 2, 'test', 'late retry'), s.open_until + interval '15 s', 25 "
            "FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id "
            "WHERE s.id = $1 LIMIT 1", 1, p);
    p[0] = closed;
    dbt_sql("INSERT INTO jobs (kind, payload, available_at, max_attempts) "
            "SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', 0, "
            "'attempt', 2, 'test', 'other'), now() + interval '10 s', 25 "
            "FROM webhook_deliveries d WHERE d.subscription_id = $1 LIMIT 1", 1, p);

    /* The note: a 2xx closes the open one; a hold opens the other. */
    p[0] = apr_psprintf(dbt_pool, "[{\"sub\": \"%s\", \"ok\": true}, {\"sub\": \"%s\", "
                        "\"ok\": false, \"open_us\": 20000000}]", opened, closed);
    dbt_sql("SELECT trv_webhook_breaker_note($1::jsonb)", 1, p);
    p[0] = opened;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 AND "
                           "open_until IS NULL AND failing_since IS NULL", 1, p), 1);
    /* Closing it let out the two sends it held back (due 30 s ahead): they
     * are due now. The retry due after the circuit's end keeps its time,
     * and so does the other subscription's send. */
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                           "d.id = j.payload->>'delivery_id' WHERE d.subscription_id = $1 AND "
                           "j.payload->>'test' IS NULL AND j.available_at <= now()", 1, p), 2);
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                           "d.id = j.payload->>'delivery_id' WHERE d.subscription_id = $1 AND "
                           "j.payload->>'test' = 'late retry' "
                           "AND j.available_at > now() + interval '40 s'", 1, p), 1);
    p[0] = closed;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON "
                           "d.id = j.payload->>'delivery_id' WHERE d.subscription_id = $1 AND "
                           "j.payload->>'test' = 'other' "
                           "AND j.available_at > now() + interval '5 s'", 1, p), 1);
    p[0] = closed;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 AND "
                           "open_until > now() + interval '19 s' AND failing_since IS NOT NULL",
                           1, p), 1);
    /* A shorter hold does not move it back. */
    p[0] = apr_psprintf(dbt_pool, "[{\"sub\": \"%s\", \"ok\": false, \"open_us\": 1000000}]",
                        closed);
    dbt_sql("SELECT trv_webhook_breaker_note($1::jsonb)", 1, p);
    p[0] = closed;
    assert_int_equal(dbt_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 AND "
                           "open_until > now() + interval '19 s'", 1, p), 1);
    cleanup();
}

static void an_unknown_event_is_a_dead_job(void **state)
{
    trv_job_result res = publish("evt_0000-no-such-event");
    (void)state;
    assert_int_equal(res.outcome, TRV_JOB_DEAD);
    assert_non_null(strstr(res.error, "evt_0000-no-such-event"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_event_fans_out_once_to_the_matching_subscriptions),
        cmocka_unit_test(an_event_not_fanned_out_at_insert_gets_a_publish_job),
        cmocka_unit_test(an_open_circuit_queues_its_sends_when_it_is_due),
        cmocka_unit_test(an_unknown_event_is_a_dead_job),
    };
    return cmocka_run_group_tests_name("webhook fan-out", tests, dbt_setup, dbt_teardown);
}
