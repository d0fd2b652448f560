/* Filters on the payload: a subscription that sets `filters` gets only the
 * events whose data carries one of the listed values at every path; bad
 * filters are a 422 naming the path and the reason and save nothing; a
 * PATCH changes or (null) removes them. */
#include "test_webhook_common.h"

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    free(key);
    free(org);
    key = e2e_new_org_key("filters", &org);
    return 0;
}

static json_t *subscribe_filtered(const char *url, const char *filters)
{
    char body[2048];
    e2e_resp *r;
    json_t *data;
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"hotel.booking.confirmed\", \"hotel.booking.canceled\"], \"filters\": %s}",
             url, filters);
    r = wh_call(key, "POST", "/v1/hotel/webhook-subscriptions", body);
    if (r->status != 201) {
        fail_msg("subscribing with filters: %ld %s", r->status, r->body);
    }
    data = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    return data;
}

/* Waits until the event's delivery to the subscription is DELIVERED. */
static void wait_delivered(const char *sid, const char *event)
{
    char *dlv = wh_delivery_of(sid, event);
    assert_non_null(dlv);
    json_decref(wh_wait_delivery(key, "hotel", sid, dlv, "DELIVERED", 1, 20000));
    free(dlv);
}

/* The event ids the inbox received, in a JSON array (sorted by arrival). */
static json_t *received_ids(const char *inbox)
{
    json_t *all = wh_inbox_requests(inbox), *ids = json_array(), *r;
    size_t i;
    json_array_foreach(all, i, r) {
        json_array_append_new(ids, json_string(wh_header(r, "webhook-id")));
    }
    json_decref(all);
    return ids;
}

static int has(const json_t *ids, const char *id)
{
    size_t i;
    for (i = 0; i < json_array_size(ids); i++) {
        if (strcmp(json_string_value(json_array_get(ids, i)), id) == 0) {
            return 1;
        }
    }
    return 0;
}

static void only_events_matching_every_path_are_delivered(void **state)
{
    char inbox[64], url[256], path[256];
    json_t *s, *f, *ids;
    char *match1, *match2, *wrong_status, *wrong_supplier, *missing, *marker;
    const char *sid;
    e2e_resp *r;
    (void)state;
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    s = subscribe_filtered(url, "{\"data.booking.status\": [\"CONFIRMED\", \"CANCELED\"], "
                                "\"data.booking.supplier\": \"SUPPLIER_A\"}");
    sid = wh_str(s, "id");
    /* Stored and shown with every value as a list. */
    f = json_object_get(s, "filters");
    assert_int_equal(json_object_size(f), 2);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(f, "data.booking.supplier"), 0)), "SUPPLIER_A");
    assert_int_equal(json_array_size(json_object_get(f, "data.booking.status")), 2);

    match1 = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"b1\", "
                     "\"status\": \"CONFIRMED\", \"supplier\": \"SUPPLIER_A\"}}");
    wrong_status = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"b2\", "
                           "\"status\": \"PENDING\", \"supplier\": \"SUPPLIER_A\"}}");
    wrong_supplier = wh_emit(org, "hotel.booking.canceled", "{\"booking\": {\"id\": \"b3\", "
                             "\"status\": \"CANCELED\", \"supplier\": \"SUPPLIER_B\"}}");
    missing = wh_emit(org, "hotel.booking.canceled", "{\"booking\": {\"id\": \"b4\", "
                      "\"status\": \"CANCELED\"}}");
    match2 = wh_emit(org, "hotel.booking.canceled", "{\"booking\": {\"id\": \"b5\", "
                     "\"status\": \"CANCELED\", \"supplier\": \"SUPPLIER_A\", \"x\": 1}}");
    /* Emitted last, in a transaction of its own: once it is delivered, the
     * fan-out of every event before it is done. */
    marker = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"b6\", "
                     "\"status\": \"CONFIRMED\", \"supplier\": \"SUPPLIER_A\"}}");
    wait_delivered(sid, marker);
    wait_delivered(sid, match1);
    wait_delivered(sid, match2);

    /* Three deliveries in the API, three requests at the receiver. */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries", sid);
    r = wh_call(key, "GET", path, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 3);
    e2e_free(r);
    ids = received_ids(inbox);
    assert_int_equal(json_array_size(ids), 3);
    assert_true(has(ids, match1) && has(ids, match2) && has(ids, marker));
    assert_false(has(ids, wrong_status) || has(ids, wrong_supplier) || has(ids, missing));
    json_decref(ids);

    /* PATCH filters: null removes them; the next event of any supplier goes. */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", sid);
    r = wh_call(key, "PATCH", path, "{\"filters\": null}");
    assert_int_equal(r->status, 200);
    assert_true(json_is_null(json_object_get(json_object_get(r->json, "data"), "filters")));
    e2e_free(r);
    free(marker);
    marker = wh_emit(org, "hotel.booking.canceled", "{\"booking\": {\"id\": \"b7\", "
                     "\"status\": \"CANCELED\", \"supplier\": \"SUPPLIER_B\"}}");
    wait_delivered(sid, marker);

    /* PATCH filters to a number and a boolean. */
    r = wh_call(key, "PATCH", path, "{\"filters\": {\"data.booking.rooms\": [2, 3], "
                                    "\"data.booking.refundable\": true}}");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    free(match1);
    free(missing);
    match1 = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"b8\", "
                     "\"rooms\": 3, \"refundable\": true}}");
    missing = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"b9\", "
                      "\"rooms\": 3, \"refundable\": \"true\"}}");
    free(marker);
    marker = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"b10\", "
                     "\"rooms\": 2, \"refundable\": true}}");
    wait_delivered(sid, marker);
    wait_delivered(sid, match1);
    {
        const char *p[2] = {sid, missing};
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                      "subscription_id = $1 AND event_id = $2", 2, p), 0);
    }
    free(match1);
    free(match2);
    free(wrong_status);
    free(wrong_supplier);
    free(missing);
    free(marker);
    json_decref(s);
}

static void bad_filters_are_a_422_naming_the_path(void **state)
{
    static const struct {
        const char *filters, *field;
    } bad[] = {
        {"[\"data.booking.status\"]", "filters"},
        {"{}", "filters"},
        {"{\"booking.status\": \"CONFIRMED\"}", "filters.booking.status"},
        {"{\"data\": \"x\"}", "filters.data"},
        {"{\"data.booking..status\": \"x\"}", "filters.data.booking..status"},
        {"{\"data.booking.st atus\": \"x\"}", "filters.data.booking.st atus"},
        {"{\"data.a.b.c.d.e.f.g.h.i\": \"x\"}", "filters.data.a.b.c.d.e.f.g.h.i"},
        {"{\"data.booking.status\": []}", "filters.data.booking.status"},
        {"{\"data.booking.status\": {\"eq\": \"x\"}}", "filters.data.booking.status"},
        {"{\"data.booking.status\": null}", "filters.data.booking.status"},
        {"{\"data.booking.status\": [\"A\", [\"B\"]]}", "filters.data.booking.status[1]"},
        {"{\"data.booking.status\": [\"A\", \"A\"]}", "filters.data.booking.status[1]"},
        {"{\"data.a\": 1, \"data.b\": 1, \"data.c\": 1, \"data.d\": 1, \"data.e\": 1, "
         "\"data.f\": 1, \"data.g\": 1, \"data.h\": 1, \"data.i\": 1, \"data.j\": 1, "
         "\"data.k\": 1}", "filters"},
    };
    char url[256], name[64], body[2048], path[256];
    size_t i;
    json_t *s;
    e2e_resp *r;
    (void)state;
    wh_inbox(name, sizeof(name), url, sizeof(url));
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
                 "[\"hotel.booking.confirmed\"], \"filters\": %s}", url, bad[i].filters);
        r = wh_call(key, "POST", "/v1/hotel/webhook-subscriptions", body);
        e2e_assert_error(r, 422, "validation_failed");
        if (!wh_detail(r, bad[i].field) || !*wh_detail(r, bad[i].field)) {
            fail_msg("filters %s: no reason for %s in %s", bad[i].filters, bad[i].field,
                     r->body);
        }
        e2e_free(r);
    }
    /* Nothing was saved. */
    r = wh_call(key, "GET", "/v1/hotel/webhook-subscriptions", NULL);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 0);
    e2e_free(r);

    /* A PATCH with bad filters changes nothing, not even its other fields. */
    s = subscribe_filtered(url, "{\"data.booking.status\": \"CONFIRMED\"}");
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", wh_str(s, "id"));
    r = wh_call(key, "PATCH", path, "{\"status\": \"PAUSED\", \"filters\": {\"x\": 1}}");
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(wh_detail(r, "filters.x"));
    e2e_free(r);
    r = wh_call(key, "GET", path, NULL);
    assert_string_equal(wh_str(json_object_get(r->json, "data"), "status"), "ACTIVE");
    assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(
                            json_object_get(r->json, "data"), "filters"),
                            "data.booking.status"), 0)), "CONFIRMED");
    e2e_free(r);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(only_events_matching_every_path_are_delivered, setup),
        cmocka_unit_test_setup(bad_filters_are_a_422_naming_the_path, setup),
    };
    return E2E_RUN("webhook filters", tests);
}
