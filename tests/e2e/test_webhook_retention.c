/* Retention (docs/webhooks.md, "Retention"): events older than
 * TravelWebhookRetention (30 days on the test stack) are removed with their
 * deliveries and attempts by the webhook.retention job; newer ones are
 * kept; and what the API answers about what is gone: the delivery is 404,
 * a replay of it is 404, the event log's `after` of a removed event is 404,
 * a recover whose since is before the period is 422. */
#include "test_webhook_common.h"

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    free(key);
    free(org);
    key = e2e_new_org_key("retention", &org);
    return 0;
}

static long count_of(const char *sql, const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_long(sql, 1, p);
}

static void rows_past_retention_are_removed_and_newer_kept(void **state)
{
    char inbox[64], url[256], path[512], body[256];
    json_t *s;
    const char *sid;
    char *old[3], *young[2], *old_dlv[3], *young_dlv[2];
    e2e_resp *r;
    long t0;
    int i;
    (void)state;
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    s = wh_subscribe(key, "hotel", url, "[\"hotel.booking.confirmed\"]");
    sid = wh_str(s, "id");
    for (i = 0; i < 3; i++) {
        old[i] = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"old\"}}");
    }
    for (i = 0; i < 2; i++) {
        young[i] = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"new\"}}");
    }
    for (i = 0; i < 3; i++) {
        old_dlv[i] = wh_delivery_of(sid, old[i]);
        json_decref(wh_wait_delivery(key, "hotel", sid, old_dlv[i], "DELIVERED", 1, 20000));
    }
    for (i = 0; i < 2; i++) {
        young_dlv[i] = wh_delivery_of(sid, young[i]);
        json_decref(wh_wait_delivery(key, "hotel", sid, young_dlv[i], "DELIVERED", 1, 20000));
    }
    /* Three events written 31 days ago, as far as the log knows; one just
     * inside the period. */
    for (i = 0; i < 3; i++) {
        const char *p[1] = {old[i]};
        e2e_sql_exec("UPDATE events SET created_at = now() - interval '31 days' WHERE id = $1",
                     1, p);
    }
    {
        const char *p[1] = {young[0]};
        e2e_sql_exec("UPDATE events SET created_at = now() - interval '29 days' WHERE id = $1",
                     1, p);
    }
    /* The chain runs every minute with a 30-day period: bring its next run
     * forward rather than wait for it. */
    t0 = e2e_now_ms();
    while (count_of("SELECT count(*) FROM events WHERE id = $1", old[2]) > 0) {
        if (e2e_now_ms() - t0 > 30000) {
            fail_msg("events past retention were not removed within 30 s");
        }
        e2e_sql_exec("UPDATE jobs SET available_at = now() WHERE kind = 'webhook.retention' "
                     "AND status = 'queued' AND available_at > now()", 0, NULL);
        e2e_sleep_ms(300);
    }
    for (i = 0; i < 3; i++) {
        assert_int_equal(count_of("SELECT count(*) FROM events WHERE id = $1", old[i]), 0);
        assert_int_equal(count_of("SELECT count(*) FROM webhook_deliveries WHERE id = $1",
                                  old_dlv[i]), 0);
        assert_int_equal(count_of("SELECT count(*) FROM webhook_attempts WHERE delivery_id = $1",
                                  old_dlv[i]), 0);
    }
    for (i = 0; i < 2; i++) {
        assert_int_equal(count_of("SELECT count(*) FROM events WHERE id = $1", young[i]), 1);
        assert_int_equal(count_of("SELECT count(*) FROM webhook_attempts WHERE delivery_id = $1",
                                  young_dlv[i]), 1);
        json_decref(wh_get_delivery(key, "hotel", sid, young_dlv[i]));
    }

    /* What the API answers about what is gone. */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries/%s", sid,
             old_dlv[0]);
    r = wh_call(key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries/%s/replay", sid,
             old_dlv[0]);
    r = wh_call(key, "POST", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/events?after=%s", old[0]);
    r = wh_call(key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    assert_non_null(strstr(r->body, "kept for"));
    e2e_free(r);
    r = wh_call(key, "GET", "/v1/hotel/events", NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 2);
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/recover", sid);
    {
        char *since = e2e_sql_text("SELECT trv_ts(now() - interval '40 days')", 0, NULL);
        snprintf(body, sizeof(body), "{\"since\": \"%s\"}", since);
        free(since);
    }
    r = wh_call(key, "POST", path, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(wh_detail(r, "since"), "retention"));
    e2e_free(r);
    {
        char *since = e2e_sql_text("SELECT trv_ts(now() - interval '29 days 23 hours')", 0,
                                   NULL);
        snprintf(body, sizeof(body), "{\"since\": \"%s\"}", since);
        free(since);
    }
    r = wh_call(key, "POST", path, body);
    assert_int_equal(r->status, 202);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "data"),
                                                        "events")), 0);
    e2e_free(r);
    for (i = 0; i < 3; i++) {
        free(old[i]);
        free(old_dlv[i]);
    }
    for (i = 0; i < 2; i++) {
        free(young[i]);
        free(young_dlv[i]);
    }
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(rows_past_retention_are_removed_and_newer_kept, setup),
    };
    return E2E_RUN("webhook retention", tests);
}
