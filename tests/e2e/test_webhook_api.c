/* No test here resolves a name through DNS: targets are IP literals or
 * localhost (from /etc/hosts), so a save-time check makes no traffic.
 *
 * The webhook subscription endpoints of both families: create, list, read,
 * change, delete, rotate; validation, the SSRF refusals, the limits, the
 * path id patterns, scoping, and secrets kept encrypted at rest. */
#include "test_webhook_common.h"

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hooks", &org);
    return 0;
}

static void unique_url(char *url, size_t n)
{
    char name[64];
    wh_inbox(name, sizeof(name), url, n);
}

static void create_returns_the_secret_once_and_lists_oldest_first(void **state)
{
    char url1[256], url2[256], path[256];
    json_t *a, *b, *list;
    e2e_resp *r;
    const char *secret;
    (void)state;
    unique_url(url1, sizeof(url1));
    unique_url(url2, sizeof(url2));
    a = wh_subscribe(key, "hotel", url1, "[\"hotel.booking.confirmed\"]");
    b = wh_subscribe(key, "hotel", url2,
                     "[\"hotel.booking.confirmed\", \"hotel.booking.canceled\"]");
    assert_true(strncmp(wh_str(a, "id"), "whs_", 4) == 0);
    assert_string_equal(wh_str(a, "url"), url1);
    assert_string_equal(wh_str(a, "status"), "ACTIVE");
    assert_true(json_is_null(json_object_get(a, "previous_secret_expires_at")));
    assert_int_equal(json_array_size(json_object_get(b, "event_types")), 2);
    assert_string_equal(json_string_value(json_array_get(json_object_get(b, "event_types"), 1)),
                        "hotel.booking.canceled");
    assert_int_equal(strlen(wh_str(a, "created_at")), 24);
    /* whsec_ + base64 of 32 bytes (44 characters). */
    secret = wh_str(a, "signing_secret");
    assert_true(strncmp(secret, "whsec_", 6) == 0);
    assert_int_equal(strlen(secret), 6 + 44);
    assert_string_not_equal(secret, wh_str(b, "signing_secret"));

    r = wh_call(key, "GET", "/v1/hotel/webhook-subscriptions", NULL);
    assert_int_equal(r->status, 200);
    list = json_object_get(r->json, "data");
    assert_int_equal(json_array_size(list), 2);
    assert_string_equal(wh_str(json_array_get(list, 0), "id"), wh_str(a, "id"));
    assert_string_equal(wh_str(json_array_get(list, 1), "id"), wh_str(b, "id"));
    assert_null(json_object_get(json_array_get(list, 0), "signing_secret"));
    assert_null(strstr(r->body, "whsec_"));
    e2e_free(r);

    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", wh_str(a, "id"));
    r = wh_call(key, "GET", path, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(wh_str(json_object_get(r->json, "data"), "url"), url1);
    assert_null(strstr(r->body, "whsec_"));
    e2e_free(r);
    json_decref(a);
    json_decref(b);
}

static void families_and_organizations_are_separate(void **state)
{
    char url[256], path[256], body[512];
    char *other = e2e_new_org_key("someone", NULL);
    json_t *s;
    e2e_resp *r;
    (void)state;
    unique_url(url, sizeof(url));
    s = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    /* The flight subscription is not a hotel one... */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", wh_str(s, "id"));
    r = wh_call(key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    /* ...and is nobody else's. */
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", wh_str(s, "id"));
    r = wh_call(other, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = wh_call(other, "DELETE", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s/rotate-secret",
             wh_str(s, "id"));
    r = wh_call(other, "POST", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = wh_call(other, "GET", "/v1/flight/webhook-subscriptions", NULL);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 0);
    e2e_free(r);
    /* A flight subscription takes flight events only. */
    snprintf(body, sizeof(body), "{\"url\": \"%s-2\", \"event_types\": "
             "[\"hotel.booking.confirmed\"]}", url);
    r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions", body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "event_types[0]"));
    e2e_free(r);
    free(other);
    json_decref(s);
}

static void expect_invalid(const char *body, const char *field)
{
    e2e_resp *r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions", body);
    json_t *d;
    size_t i;
    int found = 0;
    e2e_assert_error(r, 422, "validation_failed");
    json_array_foreach(json_object_get(json_object_get(r->json, "error"), "details"), i, d) {
        found |= strcmp(wh_str(d, "field"), field) == 0;
    }
    if (!found) {
        fail_msg("%s: no detail for %s in %s", body, field, r->body);
    }
    e2e_free(r);
}

static void bad_bodies_are_422_naming_the_field(void **state)
{
    char url[256], body[512];
    long before = e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL);
    (void)state;
    unique_url(url, sizeof(url));
    expect_invalid("{\"event_types\": [\"flight.booking.confirmed\"]}", "url");
    snprintf(body, sizeof(body), "{\"url\": \"%s\"}", url);
    expect_invalid(body, "event_types");
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": []}", url);
    expect_invalid(body, "event_types");
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": [\"flight.nope\"]}", url);
    expect_invalid(body, "event_types[0]");
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.failed\", \"flight.booking.failed\"]}", url);
    expect_invalid(body, "event_types[1]");
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": [7]}", url);
    expect_invalid(body, "event_types[0]");
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.failed\"], \"secret\": \"x\"}", url);
    expect_invalid(body, "secret");
    expect_invalid("{\"url\": 5, \"event_types\": [\"flight.booking.failed\"]}", "url");
    /* Nothing was stored. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL),
                     before);
}

static void ssrf_targets_are_refused(void **state)
{
    static const char *const refused[] = {
        "http://8.8.8.8/x",                    /* public, but not https */
        "ftp://hooks.example.com/x",
        "https://10.1.2.3/x",                  /* private */
        "https://172.16.5.4/x",
        "https://192.168.0.10:8443/x",
        "https://169.254.169.254/latest/meta-data",  /* metadata */
        "https://169.254.1.1/x",               /* link-local */
        "https://100.64.0.1/x",                /* CGNAT */
        "https://0.0.0.0/x",                   /* unspecified */
        "https://224.0.0.1/x",                 /* multicast */
        "https://255.255.255.255/x",
        "https://[fe80::1]/x",                 /* IPv6 link-local */
        "https://[fc00::1]/x",                 /* IPv6 unique local */
        "https://[fd00:ec2::254]/x",           /* IPv6 metadata */
        "https://[ff02::1]/x",                 /* IPv6 multicast */
        "https://[::ffff:10.0.0.1]/x",         /* mapped private */
        "https://[::ffff:169.254.169.254]/x",  /* mapped metadata */
        "https://[64:ff9b::a00:1]/x",          /* NAT64 of 10.0.0.1 */
        "https://user:pw@hooks.example.com/x", /* credentials in the URL */
        "https://hooks.example.com/x#frag",
        "not a url",
        NULL};
    const char *const *u;
    char body[512];
    long before = e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL);
    (void)state;
    for (u = refused; *u; u++) {
        snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
                 "[\"flight.booking.confirmed\"]}", *u);
        expect_invalid(body, "url");
    }
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL),
                     before);
}

static void loopback_is_allowed_by_the_test_configuration(void **state)
{
    char url[256];
    const char *port = strrchr(e2e_sandbox_url(), ':') + 1;
    json_t *s;
    char *k = e2e_new_org_key("loop", NULL);
    (void)state;
    snprintf(url, sizeof(url), "http://[::1]:%s/inbox/v6", port);
    s = wh_subscribe(k, "flight", url, "[\"flight.booking.confirmed\"]");
    json_decref(s);
    snprintf(url, sizeof(url), "http://localhost:%s/inbox/name", port);
    s = wh_subscribe(k, "flight", url, "[\"flight.booking.confirmed\"]");
    json_decref(s);
    free(k);
}

/* The detail the API gave for url, or "". */
static const char *url_detail(e2e_resp *r)
{
    json_t *d;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(r->json, "error"), "details"), i, d) {
        if (strcmp(wh_str(d, "field"), "url") == 0) {
            return wh_str(d, "reason") ? wh_str(d, "reason") : "";
        }
    }
    return "";
}

/* Whether the test resolver recorded NAME as refused (its log, one
 * "name call" line per lookup it refused). */
static int resolver_refused(const char *name)
{
    char line[600];
    size_t n = strlen(name);
    int found = 0;
    FILE *f = fopen(e2e_env("TRAVEL_TEST_DNS_LOG"), "r");
    while (f && fgets(line, sizeof(line), f)) {
        found |= strncmp(line, name, n) == 0 && line[n] == ' ';
    }
    if (f) {
        fclose(f);
    }
    return found;
}

/* Webhook hosts are resolved when saved; in tests every name goes through
 * the test resolver (tests/resolver/hosts_only.c, preloaded into httpd):
 * a name of its table resolves to the table's address (and the address rule
 * applies to it), any other name is refused and recorded, never asked of
 * the system resolver (no DNS query leaves the machine). */
static void hostnames_resolve_through_the_test_table_only(void **state)
{
    char body[512], path[4096];
    const char *name = "unlisted-name.invalid";
    e2e_resp *r;
    FILE *f;
    long before = e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL);
    (void)state;
    r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions",
                "{\"url\": \"https://private.hooks.test/in\", "
                "\"event_types\": [\"flight.booking.confirmed\"]}");
    e2e_assert_error(r, 422, "validation_failed");
    if (!strstr(url_detail(r), "private.hooks.test resolves to 10.1.2.3")) {
        fail_msg("private.hooks.test: %s", r->body);
    }
    e2e_free(r);
    /* This one the run expects to see refused. */
    snprintf(path, sizeof(path), "%s/expected-dns", e2e_env("TRAVEL_TEST_DIR"));
    f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f, "%s\n", name);
    fclose(f);
    snprintf(body, sizeof(body), "{\"url\": \"https://%s/in\", "
             "\"event_types\": [\"flight.booking.confirmed\"]}", name);
    r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions", body);
    e2e_assert_error(r, 422, "validation_failed");
    if (!strstr(url_detail(r), "does not resolve")) {
        fail_msg("%s: %s", name, r->body);
    }
    e2e_free(r);
    assert_true(resolver_refused(name));
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL),
                     before);
}

static void five_per_organization_and_family_one_per_url(void **state)
{
    char *k = e2e_new_org_key("limits", NULL);
    char urls[6][256], body[512], path[256];
    json_t *subs[5];
    e2e_resp *r;
    int i;
    (void)state;
    for (i = 0; i < 6; i++) {
        unique_url(urls[i], sizeof(urls[i]));
    }
    for (i = 0; i < 5; i++) {
        subs[i] = wh_subscribe(k, "flight", urls[i], "[\"flight.booking.confirmed\"]");
    }
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.confirmed\"]}", urls[5]);
    r = wh_call(k, "POST", "/v1/flight/webhook-subscriptions", body);
    e2e_assert_error(r, 409, "subscription_limit_reached");
    e2e_free(r);
    /* The hotel set is its own. */
    json_decref(wh_subscribe(k, "hotel", urls[0], "[\"hotel.booking.confirmed\"]"));
    /* One per URL: a second subscription for a URL in use is refused... */
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", wh_str(subs[4], "id"));
    r = wh_call(k, "DELETE", path, NULL);
    assert_int_equal(r->status, 200);
    assert_true(json_is_true(json_object_get(json_object_get(r->json, "data"), "deleted")));
    e2e_free(r);
    r = wh_call(k, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.failed\"]}", urls[0]);
    r = wh_call(k, "POST", "/v1/flight/webhook-subscriptions", body);
    e2e_assert_error(r, 409, "url_already_subscribed");
    e2e_free(r);
    /* ...and so is moving one onto it. */
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", wh_str(subs[1], "id"));
    snprintf(body, sizeof(body), "{\"url\": \"%s\"}", urls[0]);
    r = wh_call(k, "PATCH", path, body);
    e2e_assert_error(r, 409, "url_already_subscribed");
    e2e_free(r);
    /* Setting a subscription's own URL again is no conflict. */
    snprintf(body, sizeof(body), "{\"url\": \"%s\"}", urls[1]);
    r = wh_call(k, "PATCH", path, body);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    /* The deleted one's URL and place are free again. */
    json_decref(wh_subscribe(k, "flight", urls[4], "[\"flight.booking.confirmed\"]"));
    for (i = 0; i < 5; i++) {
        json_decref(subs[i]);
    }
    free(k);
}

static void patch_changes_what_it_names(void **state)
{
    char url[256], url2[256], path[256], body[512];
    json_t *s, *d;
    e2e_resp *r;
    (void)state;
    unique_url(url, sizeof(url));
    unique_url(url2, sizeof(url2));
    s = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", wh_str(s, "id"));
    r = wh_call(key, "PATCH", path, "{\"status\": \"PAUSED\"}");
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    assert_string_equal(wh_str(d, "status"), "PAUSED");
    assert_string_equal(wh_str(d, "url"), url);
    assert_null(json_object_get(d, "signing_secret"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.failed\", \"flight.booking.canceled\"], \"status\": \"ACTIVE\"}",
             url2);
    r = wh_call(key, "PATCH", path, body);
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    assert_string_equal(wh_str(d, "status"), "ACTIVE");
    assert_string_equal(wh_str(d, "url"), url2);
    assert_int_equal(json_array_size(json_object_get(d, "event_types")), 2);
    e2e_free(r);
    /* An empty object is a valid change of nothing. */
    r = wh_call(key, "PATCH", path, "{}");
    assert_int_equal(r->status, 200);
    assert_string_equal(wh_str(json_object_get(r->json, "data"), "url"), url2);
    e2e_free(r);
    /* Bad values change nothing. */
    r = wh_call(key, "PATCH", path, "{\"status\": \"paused\", \"url\": \"https://10.0.0.1/\"}");
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "\"status\""));
    assert_non_null(strstr(r->body, "\"url\""));
    e2e_free(r);
    r = wh_call(key, "PATCH", path, "{\"event_types\": []}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = wh_call(key, "GET", path, NULL);
    d = json_object_get(r->json, "data");
    assert_string_equal(wh_str(d, "status"), "ACTIVE");
    assert_string_equal(wh_str(d, "url"), url2);
    e2e_free(r);
    json_decref(s);
}

static void path_ids_follow_the_documented_patterns(void **state)
{
    char path[512], longid[200];
    e2e_resp *r;
    (void)state;
    r = wh_call(key, "GET", "/v1/flight/webhook-subscriptions/sub_123", NULL);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "^whs_[a-zA-Z0-9-]+$"));
    e2e_free(r);
    memset(longid, 'a', sizeof(longid));
    memcpy(longid, "whs_", 4);
    longid[129] = '\0';
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", longid);
    r = wh_call(key, "PATCH", path, "{}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    longid[128] = '\0'; /* 128 characters: well-formed, just unknown */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", longid);
    r = wh_call(key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions/whs_abc/deliveries/evt_1/replay",
                NULL);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "delivery_id"));
    e2e_free(r);
    r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions/whs_abc/deliveries/dlv_x/replay",
                NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = wh_call(key, "GET", "/v1/flight/webhook-subscriptions/whs_abc/deliveries?limit=0", NULL);
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
}

static void deliveries_query_is_checked(void **state)
{
    char url[256], path[512];
    static const char *const bad[] = {"limit=0", "limit=101", "offset=-1", "offset=100001",
                                      "status=DONE", "status=pending", "sort=asc", NULL};
    const char *const *q;
    json_t *s;
    e2e_resp *r;
    (void)state;
    unique_url(url, sizeof(url));
    s = wh_subscribe(key, "hotel", url, "[\"hotel.booking.confirmed\"]");
    for (q = bad; *q; q++) {
        snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries?%s",
                 wh_str(s, "id"), *q);
        r = wh_call(key, "GET", path, NULL);
        e2e_assert_error(r, 422, "validation_failed");
        e2e_free(r);
    }
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries?limit=100"
             "&offset=100000&status=FAILED", wh_str(s, "id"));
    r = wh_call(key, "GET", path, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "meta"),
                                                        "limit")), 100);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "meta"),
                                                        "offset")), 100000);
    e2e_free(r);
    json_decref(s);
}

static void rotation_returns_a_new_secret_and_keeps_the_previous_24h(void **state)
{
    char url[256], path[256];
    json_t *s, *d;
    e2e_resp *r;
    const char *exp;
    (void)state;
    unique_url(url, sizeof(url));
    s = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s/rotate-secret",
             wh_str(s, "id"));
    r = wh_call(key, "POST", path, NULL);
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    assert_true(strncmp(wh_str(d, "signing_secret"), "whsec_", 6) == 0);
    assert_string_not_equal(wh_str(d, "signing_secret"), wh_str(s, "signing_secret"));
    exp = wh_str(d, "previous_secret_expires_at");
    assert_int_equal(strlen(exp), 24);
    {
        const char *p[1] = {exp};
        long secs = e2e_sql_long("SELECT extract(epoch FROM ($1::timestamptz - now()))::int",
                                 1, p);
        assert_true(secs > 24 * 3600 - 60 && secs <= 24 * 3600);
    }
    e2e_free(r);
    /* A body, if any, must be empty. */
    r = wh_call(key, "POST", path, "{\"secret\": \"mine\"}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = wh_call(key, "POST", path, "{}");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    json_decref(s);
}

/* The hotel family's rotate and delete behave as the flight family's: a
 * new secret with the previous one live for a day, and a delete that frees
 * the subscription (404 afterwards, gone from the list). */
static void hotel_rotate_and_delete(void **state)
{
    char url[256], path[256];
    json_t *s, *d;
    e2e_resp *r;
    size_t i;
    (void)state;
    unique_url(url, sizeof(url));
    s = wh_subscribe(key, "hotel", url, "[\"hotel.booking.canceled\"]");
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/rotate-secret",
             wh_str(s, "id"));
    r = wh_call(key, "POST", path, NULL);
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    assert_true(strncmp(wh_str(d, "signing_secret"), "whsec_", 6) == 0);
    assert_string_not_equal(wh_str(d, "signing_secret"), wh_str(s, "signing_secret"));
    assert_int_equal(strlen(wh_str(d, "previous_secret_expires_at")), 24);
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", wh_str(s, "id"));
    r = wh_call(key, "DELETE", path, NULL);
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    assert_string_equal(wh_str(d, "id"), wh_str(s, "id"));
    assert_true(json_is_true(json_object_get(d, "deleted")));
    assert_null(json_object_get(d, "signing_secret"));
    e2e_free(r);
    r = wh_call(key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = wh_call(key, "DELETE", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = wh_call(key, "GET", "/v1/hotel/webhook-subscriptions", NULL);
    assert_int_equal(r->status, 200);
    for (i = 0; i < json_array_size(json_object_get(r->json, "data")); i++) {
        assert_string_not_equal(wh_str(json_array_get(json_object_get(r->json, "data"), i),
                                       "id"), wh_str(s, "id"));
    }
    e2e_free(r);
    json_decref(s);
}

static void secrets_are_encrypted_at_rest(void **state)
{
    char url[256];
    json_t *s;
    const char *p[2];
    char *stored;
    (void)state;
    unique_url(url, sizeof(url));
    s = wh_subscribe(key, "hotel", url, "[\"hotel.booking.confirmed\"]");
    p[0] = wh_str(s, "id");
    p[1] = wh_str(s, "signing_secret") + 6;
    stored = e2e_sql_text("SELECT secret_enc FROM webhook_subscriptions WHERE id = $1", 1, p);
    assert_non_null(stored);
    assert_true(strncmp(stored, "v1:", 3) == 0);
    assert_null(strstr(stored, p[1]));
    /* Neither the secret nor its key bytes appear in any column of the row. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions s WHERE "
                                  "s.id = $1 AND (s::text LIKE '%' || $2 || '%' "
                                  "OR s::text LIKE '%whsec_%')", 2, p), 0);
    free(stored);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(create_returns_the_secret_once_and_lists_oldest_first, setup),
        cmocka_unit_test(families_and_organizations_are_separate),
        cmocka_unit_test(bad_bodies_are_422_naming_the_field),
        cmocka_unit_test(ssrf_targets_are_refused),
        cmocka_unit_test(loopback_is_allowed_by_the_test_configuration),
        cmocka_unit_test(hostnames_resolve_through_the_test_table_only),
        cmocka_unit_test(five_per_organization_and_family_one_per_url),
        cmocka_unit_test(patch_changes_what_it_names),
        cmocka_unit_test(path_ids_follow_the_documented_patterns),
        cmocka_unit_test(deliveries_query_is_checked),
        cmocka_unit_test(rotation_returns_a_new_secret_and_keeps_the_previous_24h),
        cmocka_unit_test(hotel_rotate_and_delete),
        cmocka_unit_test(secrets_are_encrypted_at_rest),
    };
    return E2E_RUN("webhook subscriptions", tests);
}
