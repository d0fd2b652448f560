/* The dashboard over real HTTP behind httpd's Basic authentication (the
 * stack's /dashboard/ location): a login without a grant is refused, every
 * change needs the page's form token with its cookie, a login sees and
 * changes only its own organization, and nothing it shows is markup. */
#include "dashboard_e2e.h"
#include "hotel_e2e.h"
#include "test_webhook_common.h"
#include "watch_e2e.h"

#include <time.h>

#define PW "correct-horse-battery"

static long keys_of(const char *org_id)
{
    const char *p[1] = {org_id};
    return e2e_sql_long("SELECT count(*) FROM api_keys WHERE org_id = $1", 1, p);
}

/* A new organization with a granted login; returns the org id. */
static char *org_with_login(char *login, size_t n, const char *stem)
{
    char *org = NULL, *key = e2e_new_org_key("owner", &org);
    free(key);
    dash_login_name(login, n, stem);
    dash_htpasswd(login, PW);
    dash_grant(org, login);
    return org;
}

static void test_login_needs_a_grant(void **state)
{
    char login[128], *org = NULL, *key;
    dash_session s;
    e2e_resp *r;
    (void)state;
    key = e2e_new_org_key("owner", &org);
    dash_login_name(login, sizeof(login), "nogrant");
    dash_htpasswd(login, PW);
    memset(&s, 0, sizeof(s));
    dash_basic(&s, login, PW);
    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 403);
    assert_null(strstr(r->body, "<form"));
    assert_null(strstr(r->body, org));
    assert_non_null(e2e_header(r, "Content-Security-Policy"));
    e2e_free(r);

    dash_grant(org, login);
    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, org));
    e2e_free(r);

    free(e2e_travelctl("dashboard revoke --login '%s'", login));
    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 403);
    e2e_free(r);
    free(key);
    free(org);
}

static void test_travelctl_dashboard_flags(void **state)
{
    const char *ctl = e2e_env("TRAVEL_TEST_TRAVELCTL"), *db = e2e_conninfo();
    (void)state;
    /* An unknown flag, a missing one: usage, exit 2, nothing done. */
    assert_int_equal(dash_sh("'%s' --db '%s' dashboard grant --org org_x --login a --admin "
                             ">/dev/null 2>&1", ctl, db), 2);
    assert_int_equal(dash_sh("'%s' --db '%s' dashboard grant --login a >/dev/null 2>&1",
                             ctl, db), 2);
    assert_int_equal(dash_sh("'%s' --db '%s' dashboard revoke --login a --org b "
                             ">/dev/null 2>&1", ctl, db), 2);
    /* Well-formed but wrong: exit 1. */
    assert_int_equal(dash_sh("'%s' --db '%s' dashboard grant --org org_missing --login a "
                             ">/dev/null 2>&1", ctl, db), 1);
    assert_int_equal(dash_sh("'%s' --db '%s' dashboard revoke --login never-granted-%d "
                             ">/dev/null 2>&1", ctl, db, (int)getpid()), 1);
}

static void test_changes_need_the_form_token(void **state)
{
    char login[128], other[128], form[512], *org, *org2;
    dash_session s, s2, nocookie;
    e2e_resp *r;
    long before;
    (void)state;
    org = org_with_login(login, sizeof(login), "csrf");
    org2 = org_with_login(other, sizeof(other), "csrf-other");
    dash_open(&s, login, PW);
    dash_open(&s2, other, PW);
    before = keys_of(org);

    /* No token, a made-up one, another login's, and the right one
     * without the session cookie: 403, nothing created. */
    r = dash_post(&s, "action=create_key&mode=test");
    assert_int_equal(r->status, 403);
    e2e_free(r);
    r = dash_post(&s, "csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&action=create_key");
    assert_int_equal(r->status, 403);
    e2e_free(r);
    snprintf(form, sizeof(form), "csrf=%s&action=create_key", s2.csrf);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 403);
    e2e_free(r);
    nocookie = s;
    nocookie.cookie[0] = '\0';
    snprintf(form, sizeof(form), "csrf=%s&action=create_key", s.csrf);
    r = dash_post(&nocookie, form);
    assert_int_equal(r->status, 403);
    assert_null(dash_secret(r->body));
    e2e_free(r);
    /* A GET never changes anything, whatever it carries. */
    snprintf(form, sizeof(form), DASH_PATH "?csrf=%s&action=create_key", s.csrf);
    r = dash_get(&s, form);
    assert_int_equal(r->status, 200);
    assert_null(dash_secret(r->body));
    e2e_free(r);
    assert_int_equal(keys_of(org), before);

    /* The page's own form, with its cookie: done. */
    snprintf(form, sizeof(form), "csrf=%s&action=create_key&mode=test", s.csrf);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 201);
    assert_non_null(dash_secret(r->body));
    e2e_free(r);
    assert_int_equal(keys_of(org), before + 1);
    free(org);
    free(org2);
}

/* The list's status with the key `key`. */
static long list_status(void *key)
{
    e2e_resp *r = e2e_get(key, "/v1/flight/bookings");
    long st = r->status;
    e2e_free(r);
    return st;
}

static void test_key_shown_once_and_revoked_at_once(void **state)
{
    char login[128], form[512], key_id[128], *org, *key;
    dash_session s;
    e2e_resp *r;
    (void)state;
    org = org_with_login(login, sizeof(login), "keys");
    dash_open(&s, login, PW);
    snprintf(form, sizeof(form), "csrf=%s&action=create_key&mode=test", s.csrf);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 201);
    key = dash_secret(r->body);
    assert_non_null(key);
    assert_true(strncmp(key, "tk_test_", 8) == 0);
    e2e_free(r);

    r = e2e_get(key, "/v1/flight/bookings");
    assert_int_equal(r->status, 200);
    e2e_free(r);

    /* Never shown again: the next page has its prefix only. */
    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 200);
    assert_null(strstr(r->body, key));
    assert_null(dash_secret(r->body));
    {
        const char *p[1] = {org};
        char *id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1 AND user_id = "
                                "(SELECT user_id FROM dashboard_logins WHERE org_id = $1) "
                                "ORDER BY created_at DESC LIMIT 1", 1, p);
        assert_non_null(id);
        snprintf(key_id, sizeof(key_id), "%s", id);
        free(id);
    }
    assert_non_null(strstr(r->body, key_id));
    e2e_free(r);

    snprintf(form, sizeof(form), "csrf=%s&action=revoke_key&key_id=%s", s.csrf, key_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 303);
    e2e_free(r);
    /* Every child's key cache forgets the key when the database's change
     * notification reaches it: milliseconds after the commit, unless the
     * scheduler of a loaded machine holds a process back. Bounded (as in
     * test_flight_reads); from then on, refused for good. */
    {
        int i;
        if (!e2e_until_steady(list_status, key, 401, 5000)) {
            fail_msg("the revoked key was still taken 5 s after its revocation");
        }
        for (i = 0; i < 10; i++) {
            r = e2e_get(key, "/v1/flight/bookings");
            e2e_assert_error(r, 401, "unauthorized");
            e2e_free(r);
        }
    }
    r = dash_get(&s, DASH_PATH);
    snprintf(form, sizeof(form), "data-key=\"%s\" data-state=\"revoked\"", key_id);
    assert_non_null(strstr(r->body, form));
    e2e_free(r);
    /* A key past its expiry is listed as expired, without a Revoke. */
    {
        char *other = e2e_new_key(org, "expiring"), *other_id;
        const char *p[1] = {org};
        assert_non_null(other);
        other_id = e2e_sql_text("UPDATE api_keys SET expires_at = now() - interval '1 minute' "
                                "WHERE org_id = $1 AND user_id = (SELECT id FROM users WHERE "
                                "org_id = $1 AND name = 'expiring') RETURNING id", 1, p);
        assert_non_null(other_id);
        r = dash_get(&s, DASH_PATH);
        snprintf(form, sizeof(form), "data-key=\"%s\" data-state=\"expired\"", other_id);
        assert_non_null(strstr(r->body, form));
        snprintf(form, sizeof(form), "name=\"key_id\" value=\"%s\"", other_id);
        assert_null(strstr(r->body, form));
        e2e_free(r);
        free(other);
        free(other_id);
    }
    free(key);
    free(org);
}

static void test_organization_scope(void **state)
{
    char login[128], form[1024], inbox[128], url[512];
    char *org, *org_b = NULL, *key_b, *key_b_id, *evt, *dlv;
    const char *sub_id;
    json_t *sub;
    dash_session s;
    e2e_resp *r;
    (void)state;
    org = org_with_login(login, sizeof(login), "scope");
    key_b = e2e_new_org_key("b-user", &org_b);
    {
        const char *p[1] = {org_b};
        key_b_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1", 1, p);
    }
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    sub = wh_subscribe(key_b, "flight", url, "[\"flight.booking.confirmed\"]");
    sub_id = wh_str(sub, "id");
    evt = wh_emit(org_b, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_scope\"}}");
    dlv = wh_delivery_of(sub_id, evt);
    assert_non_null(dlv);
    json_decref(wh_wait_delivery(key_b, "flight", sub_id, dlv, "DELIVERED", 1, 30000));

    {
        /* B's watcher endpoint is B's alone. */
        char body[700];
        snprintf(body, sizeof(body), "{\"url\": \"%s\"}", url);
        r = e2e_post(key_b, "/v1/watcher/webhooks", body);
        assert_int_equal(r->status, 201);
        e2e_free(r);
    }

    dash_open(&s, login, PW);
    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 200);
    assert_null(strstr(r->body, key_b_id));
    assert_null(strstr(r->body, sub_id));
    assert_null(strstr(r->body, org_b));
    assert_null(strstr(r->body, url));
    assert_non_null(strstr(r->body, "data-watcher-endpoint=\"none\""));
    e2e_free(r);

    /* Another organization's key, subscription and delivery, named by id:
     * 404, and nothing changed. */
    snprintf(form, sizeof(form), "csrf=%s&action=revoke_key&key_id=%s", s.csrf, key_b_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 404);
    e2e_free(r);
    r = e2e_get(key_b, "/v1/flight/bookings");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    snprintf(form, sizeof(form), "csrf=%s&action=pause&family=flight&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 404);
    e2e_free(r);
    snprintf(form, sizeof(form), "csrf=%s&action=replay&family=flight&subscription_id=%s"
             "&delivery_id=%s", s.csrf, sub_id, dlv);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 404);
    e2e_free(r);
    snprintf(form, sizeof(form), "csrf=%s&action=rotate_secret&family=flight"
             "&subscription_id=%s", s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 404);
    assert_null(dash_secret(r->body));
    e2e_free(r);
    {
        const char *p[2] = {sub_id, dlv};
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE "
                                      "id = $1 AND status = 'ACTIVE' AND "
                                      "previous_secret_enc IS NULL", 1, p), 1);
        assert_int_equal(e2e_sql_long("SELECT replay_count FROM webhook_deliveries "
                                      "WHERE id = $2 AND subscription_id = $1", 2, p), 0);
    }
    json_decref(sub);
    free(evt);
    free(dlv);
    free(key_b);
    free(key_b_id);
    free(org_b);
    free(org);
}

static const char *sub_status(const char *sub_id)
{
    static char out[32];
    const char *p[1] = {sub_id};
    char *s = e2e_sql_text("SELECT status FROM webhook_subscriptions WHERE id = $1", 1, p);
    snprintf(out, sizeof(out), "%s", s ? s : "");
    free(s);
    return out;
}

/* Pause, Resume, Rotate secret and Replay are the API's own handlers: the
 * subscription changes as through the API, a paused subscription's
 * delivery is not replayed (the API's 409 and its message on the page),
 * and a rotated secret is shown once and signs what is sent next. */
static void test_webhook_buttons(void **state)
{
    char login[128], form[1024], inbox[128], url[512], *org, *key, *evt, *dlv, *secret;
    const char *sub_id;
    json_t *sub, *d;
    dash_session s;
    e2e_resp *r;
    (void)state;
    org = org_with_login(login, sizeof(login), "hooks");
    key = e2e_new_key(org, "hooks-api");
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    sub = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    sub_id = wh_str(sub, "id");
    evt = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_buttons\"}}");
    dlv = wh_delivery_of(sub_id, evt);
    assert_non_null(dlv);
    json_decref(wh_wait_delivery(key, "flight", sub_id, dlv, "DELIVERED", 1, 30000));
    dash_open(&s, login, PW);

    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, sub_id));
    assert_non_null(strstr(r->body, dlv));
    assert_non_null(strstr(r->body, ">Pause</button>"));
    /* Every event family's section reads: the watch family has no
     * subscriptions but the organization's watcher endpoint, none yet. */
    assert_null(strstr(r->body, "could not be read"));
    assert_non_null(strstr(r->body, "data-watcher-endpoint=\"none\""));
    e2e_free(r);
    {
        char body[700];
        snprintf(body, sizeof(body), "{\"url\": \"%s\"}", url);
        r = e2e_post(key, "/v1/watcher/webhooks", body);
        assert_int_equal(r->status, 201);
        e2e_free(r);
    }
    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 200);
    assert_null(strstr(r->body, "could not be read"));
    {
        char attr[700];
        snprintf(attr, sizeof(attr), "data-watcher-endpoint=\"%s\"", url);
        assert_non_null(strstr(r->body, attr));
    }
    assert_non_null(strstr(r->body, ">Rotate secret</button>"));
    assert_non_null(strstr(r->body, ">Replay</button>"));
    e2e_free(r);

    snprintf(form, sizeof(form), "csrf=%s&action=pause&family=flight&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 303);
    e2e_free(r);
    assert_string_equal(sub_status(sub_id), "PAUSED");
    r = dash_get(&s, DASH_PATH);
    assert_non_null(strstr(r->body, ">Resume</button>"));
    e2e_free(r);

    /* Replaying while paused: refused as the API refuses it. */
    snprintf(form, sizeof(form), "csrf=%s&action=replay&family=flight&subscription_id=%s"
             "&delivery_id=%s", s.csrf, sub_id, dlv);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 409);
    assert_non_null(strstr(r->body, "paused"));
    e2e_free(r);

    snprintf(form, sizeof(form), "csrf=%s&action=resume&family=flight&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 303);
    e2e_free(r);
    assert_string_equal(sub_status(sub_id), "ACTIVE");

    /* Rotate: the new secret once, and the previous one kept signing. */
    snprintf(form, sizeof(form), "csrf=%s&action=rotate_secret&family=flight"
             "&subscription_id=%s", s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 200);
    secret = dash_secret(r->body);
    assert_non_null(secret);
    assert_true(strncmp(secret, "whsec_", 6) == 0);
    assert_string_not_equal(secret, wh_str(sub, "signing_secret"));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH);
    assert_null(strstr(r->body, secret));
    e2e_free(r);
    {
        const char *p[1] = {sub_id};
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE "
                                      "id = $1 AND previous_secret_expires_at > now()", 1, p),
                         1);
    }

    /* Replay: a new send of the same event, delivered again. */
    snprintf(form, sizeof(form), "csrf=%s&action=replay&family=flight&subscription_id=%s"
             "&delivery_id=%s", s.csrf, sub_id, dlv);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 303);
    e2e_free(r);
    d = wh_wait_delivery(key, "flight", sub_id, dlv, "DELIVERED", 1, 30000);
    assert_int_equal(json_integer_value(json_object_get(d, "replay_count")), 1);
    json_decref(d);
    free(secret);
    json_decref(sub);
    free(evt);
    free(dlv);
    free(key);
    free(org);
}

/* The page's row of a booking (malloc'd), or NULL when it is not shown. */
static char *booking_row(const char *body, const char *id)
{
    char attr[160];
    const char *at, *end;
    snprintf(attr, sizeof(attr), "<tr data-booking=\"%s\">", id);
    if (!(at = strstr(body, attr)) || !(end = strstr(at, "</tr>"))) {
        return NULL;
    }
    return strndup(at, (size_t)(end - at));
}

/* Hotel bookings made through the API are listed with the status the API
 * gives them, their stay and exact total; another organization's are not. */
static void test_hotel_bookings_listed(void **state)
{
    char login[128], path[256], want[256], *org = NULL, *org_b = NULL, *key, *key_b, *row;
    const char *section;
    json_t *ready, *booked, *other;
    dash_session s;
    e2e_resp *r, *page;
    long minor;
    (void)state;
    key = e2e_new_org_key("owner", &org);
    dash_login_name(login, sizeof(login), "hotels");
    dash_htpasswd(login, PW);
    dash_grant(org, login);
    key_b = e2e_new_org_key("b-user", &org_b);

    ready = he_ready(key, "SUPPLIER_A", "dash-ready", "Lovelace");
    booked = he_ready(key, "SUPPLIER_B", "dash-booked", "Lovelace");
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", fe_s(booked, "id"));
    r = e2e_post(key, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    json_decref(booked);
    booked = json_incref(fe_data(r));
    e2e_free(r);
    other = he_ready(key_b, "SUPPLIER_A", "dash-other", "Lovelace");

    dash_open(&s, login, PW);
    page = dash_get(&s, DASH_PATH);
    assert_int_equal(page->status, 200);
    section = strstr(page->body, "<section id=\"hotel-bookings\">");
    assert_non_null(section);
    assert_null(strstr(page->body, fe_s(other, "id")));

    row = booking_row(section, fe_s(booked, "id"));
    assert_non_null(row);
    assert_non_null(strstr(row, "<td>CONFIRMED</td>"));
    snprintf(want, sizeof(want), "<td>%s – %s</td>", fe_s(booked, "check_in"),
             fe_s(booked, "check_out"));
    assert_non_null(strstr(row, want));
    minor = he_minor(json_object_get(booked, "total"));
    assert_true(minor > 0);
    snprintf(want, sizeof(want), "<td>%ld.%02ld EUR</td>", minor / 100, minor % 100);
    assert_non_null(strstr(row, want));
    snprintf(want, sizeof(want), "<td>%s</td>", fe_s(booked, "created_at"));
    assert_non_null(strstr(row, want));
    free(row);

    row = booking_row(section, fe_s(ready, "id"));
    assert_non_null(row);
    assert_non_null(strstr(row, "<td>READY_FOR_COMPLETE</td>"));
    free(row);
    e2e_free(page);

    /* What the other organization's own login sees: its booking only. */
    {
        char login_b[128];
        dash_session sb;
        dash_login_name(login_b, sizeof(login_b), "hotels-b");
        dash_htpasswd(login_b, PW);
        dash_grant(org_b, login_b);
        dash_open(&sb, login_b, PW);
        page = dash_get(&sb, DASH_PATH);
        assert_int_equal(page->status, 200);
        row = booking_row(page->body, fe_s(other, "id"));
        assert_non_null(row);
        assert_non_null(strstr(row, "<td>READY_FOR_COMPLETE</td>"));
        free(row);
        assert_null(strstr(page->body, fe_s(booked, "id")));
        assert_null(strstr(page->body, fe_s(ready, "id")));
        e2e_free(page);
    }
    json_decref(ready);
    json_decref(booked);
    json_decref(other);
    free(key);
    free(key_b);
    free(org);
    free(org_b);
}

/* With the database unreachable (the stack's instance nodb) the page says
 * so with 503 and Retry-After, and shows nothing. */
/* Revoke, Pause and Rotate secret ask first: the list's button opens a
 * question (a GET that changes nothing) whose form does it; Resume and
 * Replay do not ask. A question naming nothing real has no form. */
static void test_changes_ask_first(void **state)
{
    char login[128], path[1024], form[1024], inbox[128], url[512], *org, *key, *key_id;
    const char *sub_id;
    json_t *sub;
    dash_session s;
    e2e_resp *r;
    (void)state;
    org = org_with_login(login, sizeof(login), "ask");
    key = e2e_new_key(org, "ask-api");
    {
        const char *p[1] = {org};
        key_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL "
                              "ORDER BY created_at DESC LIMIT 1", 1, p);
    }
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    sub = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    sub_id = wh_str(sub, "id");
    dash_open(&s, login, PW);

    /* The list's Revoke is a GET form to the question. */
    r = dash_get(&s, DASH_PATH);
    snprintf(path, sizeof(path), "name=\"confirm\" value=\"revoke_key\"><input type=\"hidden\" "
             "name=\"key_id\" value=\"%s\">", key_id);
    assert_non_null(strstr(r->body, path));
    assert_non_null(strstr(r->body, "name=\"confirm\" value=\"pause\""));
    assert_non_null(strstr(r->body, "name=\"confirm\" value=\"rotate_secret\""));
    e2e_free(r);

    snprintf(path, sizeof(path), DASH_PATH "?confirm=revoke_key&key_id=%s", key_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    snprintf(form, sizeof(form), "Revoke the API key %s?", key_id);
    assert_non_null(strstr(r->body, form));
    assert_non_null(strstr(r->body, "name=\"action\" value=\"revoke_key\""));
    assert_non_null(strstr(r->body, ">Revoke</button>"));
    assert_non_null(strstr(r->body, ">Cancel</a>"));
    e2e_free(r);
    /* Asking changed nothing. */
    r = e2e_get(key, "/v1/flight/bookings");
    assert_int_equal(r->status, 200);
    e2e_free(r);

    snprintf(path, sizeof(path), DASH_PATH "?confirm=pause&family=flight&subscription_id=%s",
             sub_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "name=\"action\" value=\"pause\""));
    assert_non_null(strstr(r->body, ">Pause</button>"));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?confirm=rotate_secret&family=flight"
             "&subscription_id=%s", sub_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "name=\"action\" value=\"rotate_secret\""));
    assert_non_null(strstr(r->body, ">Rotate secret</button>"));
    assert_null(dash_secret(r->body));
    e2e_free(r);
    assert_string_equal(sub_status(sub_id), "ACTIVE");
    {
        const char *p[1] = {sub_id};
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 "
                                      "AND previous_secret_enc IS NULL", 1, p), 1);
    }

    /* The question's own form does it. */
    snprintf(form, sizeof(form), "csrf=%s&action=pause&family=flight&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 303);
    e2e_free(r);
    assert_string_equal(sub_status(sub_id), "PAUSED");

    /* Questions about nothing: no form. */
    r = dash_get(&s, DASH_PATH "?confirm=drop_everything&key_id=key_x");
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "Nothing to confirm"));
    assert_null(strstr(r->body, "<form"));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?confirm=revoke_key&key_id=%3Cscript%3E");
    assert_non_null(strstr(r->body, "Nothing to confirm"));
    assert_null(strstr(r->body, "<script"));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?confirm=pause&family=nope&subscription_id=whs_x");
    assert_non_null(strstr(r->body, "Nothing to confirm"));
    e2e_free(r);
    json_decref(sub);
    free(key_id);
    free(key);
    free(org);
}

/* A booking's page and a delivery's page: reached from the lists' links,
 * every user's booking of the organization (flight and hotel), its
 * payments, its events and their deliveries; a delivery's attempts with
 * their response bodies, its payload and Replay. Another organization's
 * ids, and ids that are not ids, are 404 with nothing of theirs. */
static void test_detail_pages(void **state)
{
    char login[128], inbox[128], url[512], path[512], want[512];
    char *org = NULL, *org_b = NULL, *key, *key_other, *key_b, *evt, *dlv, *evt_b, *dlv_b;
    char *book_rid;
    const char *fid, *hid, *sub_id, *sub_b_id;
    json_t *flight, *hotel, *sub, *sub_b, *d;
    dash_session s;
    e2e_resp *r;
    (void)state;
    key = e2e_new_org_key("owner", &org);
    key_other = e2e_new_key(org, "someone-else");
    key_b = e2e_new_org_key("b-user", &org_b);
    dash_login_name(login, sizeof(login), "detail");
    dash_htpasswd(login, PW);
    dash_grant(org, login);

    /* A confirmed flight booking of another user of the organization. */
    flight = fe_ready(key_other, "SUPPLIER_A", "Lovelace", NULL);
    fid = fe_s(flight, "id");
    r = fe_book(key_other, fid, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "flight book");
    book_rid = e2e_header(r, "x-request-id");
    assert_non_null(book_rid);
    e2e_free(r);
    hotel = he_ready(key, "SUPPLIER_A", "dash-detail", "Lovelace");
    hid = fe_s(hotel, "id");
    /* A delivery about the flight booking, and one of organization B. */
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    sub = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    sub_id = wh_str(sub, "id");
    snprintf(want, sizeof(want), "{\"booking\": {\"id\": \"%s\"}}", fid);
    evt = wh_emit(org, "flight.booking.confirmed", want);
    dlv = wh_delivery_of(sub_id, evt);
    assert_non_null(dlv);
    json_decref(wh_wait_delivery(key, "flight", sub_id, dlv, "DELIVERED", 1, 30000));
    sub_b = wh_subscribe(key_b, "flight", url, "[\"flight.booking.confirmed\"]");
    sub_b_id = wh_str(sub_b, "id");
    evt_b = wh_emit(org_b, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_b\"}}");
    dlv_b = wh_delivery_of(sub_b_id, evt_b);
    assert_non_null(dlv_b);
    d = wh_wait_delivery(key_b, "flight", sub_b_id, dlv_b, "DELIVERED", 1, 30000);
    json_decref(d);

    dash_open(&s, login, PW);
    r = dash_get(&s, DASH_PATH);
    snprintf(want, sizeof(want), "href=\"?booking=%s\"", fid);
    assert_non_null(strstr(r->body, want));
    snprintf(want, sizeof(want), "href=\"?booking=%s\"", hid);
    assert_non_null(strstr(r->body, want));
    snprintf(want, sizeof(want), "href=\"?delivery=%s\"", dlv);
    assert_non_null(strstr(r->body, want));
    /* Every delivery of the organization on one list: by the booking it
     * is about, by status; another organization's never. */
    assert_non_null(strstr(r->body, "href=\"?list=deliveries\""));
    {
        e2e_resp *l;
        char q[512];
        snprintf(q, sizeof(q), DASH_PATH "?list=deliveries&q=%s", fid);
        l = dash_get(&s, q);
        assert_int_equal(l->status, 200);
        snprintf(want, sizeof(want), "<tr data-delivery=\"%s\" data-status=\"DELIVERED\">", dlv);
        assert_non_null(strstr(l->body, want));
        snprintf(want, sizeof(want), "href=\"?booking=%s\"", fid);
        assert_non_null(strstr(l->body, want));
        assert_null(strstr(l->body, dlv_b));
        e2e_free(l);
        snprintf(q, sizeof(q), DASH_PATH "?list=deliveries&status=FAILED&q=%s", fid);
        l = dash_get(&s, q);
        assert_non_null(strstr(l->body, "No webhook deliveries."));
        e2e_free(l);
        snprintf(q, sizeof(q), DASH_PATH "?list=deliveries&q=%s", dlv_b);
        l = dash_get(&s, q);
        assert_int_equal(l->status, 200);
        assert_non_null(strstr(l->body, "No webhook deliveries."));
        e2e_free(l);
        snprintf(q, sizeof(q), DASH_PATH "?list=deliveries&q=%s", sub_b_id);
        l = dash_get(&s, q);
        assert_non_null(strstr(l->body, "No webhook deliveries."));
        e2e_free(l);
        l = dash_get(&s, DASH_PATH "?list=deliveries&status=SENT");
        assert_int_equal(l->status, 422);
        e2e_free(l);
    }
    /* The organization's supplier calls, the flight's among them. */
    assert_non_null(strstr(r->body, "data-calls-of=\"flight SUPPLIER_A\""));
    assert_non_null(strstr(r->body, "data-calls-of=\"hotel SUPPLIER_A\""));
    /* The subscription's figures: one attempt, answered 2xx. */
    snprintf(want, sizeof(want), "<tr data-figures=\"%s\" data-success=\"100\"><td><code>%s"
             "</code> (flight)</td><td>1</td>", sub_id, sub_id);
    assert_non_null(strstr(r->body, want));
    assert_null(strstr(r->body, sub_b_id));
    e2e_free(r);

    /* The flight booking: fields, the captured payment, its events, the
     * delivery about it, the API's document. */
    snprintf(path, sizeof(path), DASH_PATH "?booking=%s", fid);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "<h1>Flight booking"));
    assert_non_null(strstr(r->body, "data-field=\"status\">CONFIRMED</dd>"));
    assert_non_null(strstr(r->body, "<td>CAPTURED</td>"));
    assert_non_null(strstr(r->body, "flight.booking.confirmed"));
    snprintf(want, sizeof(want), "<tr data-delivery=\"%s\">", dlv);
    assert_non_null(strstr(r->body, want));
    assert_non_null(strstr(r->body, "As the API answers it"));
    assert_non_null(e2e_header(r, "Content-Security-Policy"));
    /* Its supplier calls in the timeline: the book request's, with its
     * request id, answered, with a duration. */
    assert_non_null(strstr(r->body, "data-supplier-call=\""));
    assert_non_null(strstr(r->body, "data-outcome=\"ok\""));
    snprintf(want, sizeof(want), "request id <code>%s</code>", book_rid);
    assert_non_null(strstr(r->body, want));
    assert_non_null(strstr(r->body, " ms, request id "));
    /* The API's document as the API writes its amounts (never a double's
     * 17 digits). */
    {
        char amount[64];
        const json_t *t = json_object_get(json_object_get(flight, "total_amount"), "amount");
        assert_true(json_is_number(t));
        snprintf(amount, sizeof(amount), "&quot;amount&quot;: %.15g,", json_number_value(t));
        assert_non_null(strstr(r->body, amount));
        assert_null(strstr(r->body, "00000000000"));
        assert_null(strstr(r->body, "99999999999"));
    }
    e2e_free(r);
    {
        const char *q[2] = {fid, org};
        /* Recorded under the booking's organization, with a duration. */
        assert_true(e2e_sql_long("SELECT count(*) FROM supplier_calls WHERE booking_id = $1 "
                                 "AND org_id = $2 AND family = 'flight' AND duration_ms >= 0 "
                                 "AND outcome = 'ok'", 2, q) >= 2);
    }

    snprintf(path, sizeof(path), DASH_PATH "?booking=%s", hid);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "data-supplier-call=\""));
    assert_non_null(strstr(r->body, "<h1>Hotel booking"));
    assert_non_null(strstr(r->body, "data-field=\"status\">READY_FOR_COMPLETE</dd>"));
    e2e_free(r);

    /* The delivery: its attempt with the inbox's answer, the payload, Replay. */
    snprintf(path, sizeof(path), DASH_PATH "?delivery=%s", dlv);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "data-status=\"DELIVERED\""));
    assert_non_null(strstr(r->body, "<tr data-attempt=\"1\"><td>1</td>"));
    assert_non_null(strstr(r->body, "&quot;received&quot;:true"));
    assert_non_null(strstr(r->body, evt));
    assert_non_null(strstr(r->body, ">Replay</button>"));
    e2e_free(r);

    /* The subscription's deliveries on their own page, by status. */
    snprintf(want, sizeof(want), "href=\"?deliveries=%s&amp;family=flight\"", sub_id);
    r = dash_get(&s, DASH_PATH);
    assert_non_null(strstr(r->body, want));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?deliveries=%s&family=flight&status=DELIVERED",
             sub_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    snprintf(want, sizeof(want), "href=\"?delivery=%s\"", dlv);
    assert_non_null(strstr(r->body, want));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?deliveries=%s&family=flight&status=FAILED", sub_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_null(strstr(r->body, dlv));
    assert_non_null(strstr(r->body, "No deliveries."));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?deliveries=%s&family=flight&status=LOST", sub_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 422);
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?deliveries=%s&family=flight", sub_b_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 404);
    assert_null(strstr(r->body, dlv_b));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?deliveries=%s&family=nope", sub_id);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 404);
    e2e_free(r);

    /* Organization B's delivery and booking, and ids that are not ids. */
    snprintf(path, sizeof(path), DASH_PATH "?delivery=%s", dlv_b);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 404);
    assert_null(strstr(r->body, evt_b));
    assert_null(strstr(r->body, "<form"));
    e2e_free(r);
    {
        json_t *other = fe_ready(key_b, "SUPPLIER_A", "Lovelace", NULL);
        snprintf(path, sizeof(path), DASH_PATH "?booking=%s", fe_s(other, "id"));
        r = dash_get(&s, path);
        assert_int_equal(r->status, 404);
        assert_null(strstr(r->body, "Lovelace"));
        e2e_free(r);
        json_decref(other);
    }
    r = dash_get(&s, DASH_PATH "?booking=%3Cscript%3E");
    assert_int_equal(r->status, 404);
    assert_null(strstr(r->body, "<script"));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?delivery=dlv_nothing-here");
    assert_int_equal(r->status, 404);
    e2e_free(r);

    json_decref(flight);
    json_decref(hotel);
    json_decref(sub);
    json_decref(sub_b);
    free(evt);
    free(dlv);
    free(evt_b);
    free(dlv_b);
    free(key);
    free(key_other);
    free(key_b);
    free(org);
    free(org_b);
    free(book_rid);
}

/* The booking lists on their own page: search (id, passenger name), status,
 * supplier and date filters, pages with Previous / Next keeping the
 * filters, refusals of filters it cannot read; another organization's
 * booking is never found, even by its id. */
static void test_lists_search_filter_page(void **state)
{
    char login[128], path[1024], today[16], tomorrow[16];
    char *org = NULL, *org_b = NULL, *key, *key_b;
    const char *a_id, *b_id;
    json_t *a, *b, *other, *hotel;
    dash_session s;
    e2e_resp *r;
    time_t now = time(NULL);
    (void)state;
    strftime(today, sizeof(today), "%Y-%m-%d", gmtime(&now));
    now += 86400;
    strftime(tomorrow, sizeof(tomorrow), "%Y-%m-%d", gmtime(&now));
    key = e2e_new_org_key("owner", &org);
    key_b = e2e_new_org_key("b-user", &org_b);
    dash_login_name(login, sizeof(login), "lists");
    dash_htpasswd(login, PW);
    dash_grant(org, login);
    a = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    a_id = fe_s(a, "id");
    b = fe_ready(key, "SUPPLIER_A", "Hopperlist", NULL);
    b_id = fe_s(b, "id");
    r = fe_book(key, b_id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    e2e_free(r);
    other = fe_ready(key_b, "SUPPLIER_A", "Hopperlist", NULL);
    hotel = he_ready(key, "SUPPLIER_A", "dash-lists", "Lovelace");
    dash_open(&s, login, PW);

    r = dash_get(&s, DASH_PATH);
    assert_non_null(strstr(r->body, "href=\"?list=flight-bookings\""));
    /* The chart counts today's bookings of this organization only: one
     * confirmed flight, a flight and a hotel booking still open (B's
     * booking is not counted). */
    assert_non_null(strstr(r->body, "data-chart=\"bookings-per-day\" data-max=\"3\""));
    {
        char bar[256];
        snprintf(bar, sizeof(bar), "data-day=\"%s\" data-group=\"confirmed\" data-count=\"1\"",
                 today);
        assert_non_null(strstr(r->body, bar));
        snprintf(bar, sizeof(bar), "data-day=\"%s\" data-group=\"open\" data-count=\"2\"",
                 today);
        assert_non_null(strstr(r->body, bar));
    }
    e2e_free(r);

    /* A passenger's name, in part and in another case. */
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&q=hOpPeRl");
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, b_id));
    assert_null(strstr(r->body, a_id));
    assert_null(strstr(r->body, fe_s(other, "id")));
    assert_non_null(strstr(r->body, "data-total=\"1\""));
    e2e_free(r);
    /* An id; another organization's id finds nothing. */
    snprintf(path, sizeof(path), DASH_PATH "?list=flight-bookings&q=%s", a_id);
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, a_id));
    assert_null(strstr(r->body, b_id));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=flight-bookings&q=%s", fe_s(other, "id"));
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "No flight bookings."));
    e2e_free(r);
    /* Status, supplier, dates. */
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&status=CONFIRMED");
    assert_non_null(strstr(r->body, b_id));
    assert_null(strstr(r->body, a_id));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&supplier=SUPPLIER_B");
    assert_non_null(strstr(r->body, "No flight bookings."));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=flight-bookings&from=%s&to=%s", today, today);
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, a_id));
    assert_non_null(strstr(r->body, b_id));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=flight-bookings&from=%s", tomorrow);
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, "No flight bookings."));
    e2e_free(r);
    /* Pages of one, newest first: the confirmed one, then Next. */
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&limit=1&supplier=SUPPLIER_A");
    assert_non_null(strstr(r->body, b_id));
    assert_null(strstr(r->body, a_id));
    assert_non_null(strstr(r->body, "1–1 of 2"));
    assert_non_null(strstr(r->body,
                           "href=\"?list=flight-bookings&amp;supplier=SUPPLIER_A&amp;limit=1"
                           "&amp;offset=1\">Next</a>"));
    assert_null(strstr(r->body, ">Previous</a>"));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&limit=1&supplier=SUPPLIER_A&offset=1");
    assert_non_null(strstr(r->body, a_id));
    assert_null(strstr(r->body, b_id));
    assert_non_null(strstr(r->body, ">Previous</a>"));
    assert_null(strstr(r->body, ">Next</a>"));
    e2e_free(r);
    /* The hotel list's filters. */
    r = dash_get(&s, DASH_PATH "?list=hotel-bookings&status=READY_FOR_COMPLETE");
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, fe_s(hotel, "id")));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=hotel-bookings&status=CONFIRMED");
    assert_null(strstr(r->body, fe_s(hotel, "id")));
    e2e_free(r);
    /* Filters it cannot read: 422, said, nothing listed. */
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&status=%3Cb%3E");
    assert_int_equal(r->status, 422);
    assert_non_null(strstr(r->body, "not one a booking can have"));
    assert_null(strstr(r->body, "<b>"));
    assert_null(strstr(r->body, a_id));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&from=tomorrow");
    assert_int_equal(r->status, 422);
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=flight-bookings&limit=1000");
    assert_int_equal(r->status, 422);
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=keys-of-everyone");
    assert_int_equal(r->status, 404);
    e2e_free(r);
    json_decref(a);
    json_decref(b);
    json_decref(other);
    json_decref(hotel);
    free(key);
    free(key_b);
    free(org);
    free(org_b);
}

static void test_database_down_is_503(void **state)
{
    char login[128];
    const char *h[2];
    dash_session s;
    e2e_resp *r;
    char *retry;
    (void)state;
    dash_login_name(login, sizeof(login), "nodb");
    dash_htpasswd(login, PW);
    memset(&s, 0, sizeof(s));
    dash_basic(&s, login, PW);
    h[0] = s.auth;
    h[1] = NULL;
    r = e2e_call(e2e_env("TRAVEL_TEST_URL_NODB"), "GET", DASH_PATH, h, NULL);
    assert_int_equal(r->status, 503);
    retry = e2e_header(r, "Retry-After");
    assert_non_null(retry);
    free(retry);
    assert_null(strstr(r->body, "<form"));
    e2e_free(r);
}

static void test_everything_shown_is_escaped(void **state)
{
    static const char hostile[] = "<script>alert(\"x\")</script>&'";
    char login[128], *org, *key, *user_id;
    dash_session s;
    e2e_resp *r;
    (void)state;
    /* An organization, a login and a booking's supplier reference made of
     * markup: each is shown as text. */
    org = e2e_travelctl("org create '%s'", "<script>alert(\"org\")</script>&Co");
    assert_non_null(org);
    key = e2e_new_key(org, "'<img src=x onerror=alert(1)>'"); /* quoted for the shell */
    assert_non_null(key);
    dash_login_name(login, sizeof(login), "esc<b>\"x\"");
    dash_htpasswd(login, PW);
    dash_grant(org, login);
    {
        const char *p[1] = {org};
        user_id = e2e_sql_text("SELECT id FROM users WHERE org_id = $1 LIMIT 1", 1, p);
        assert_non_null(user_id);
    }
    {
        const char *q[3] = {org, user_id, hostile};
        e2e_sql_exec("INSERT INTO flight_bookings (id, org_id, user_id, supplier, status, "
                     "currency, total_amount, supplier_reference) VALUES ('bkg_' || "
                     "gen_random_uuid(), $1, $2, 'SUPPLIER_B', 'CONFIRMED', 'EUR', "
                     "123.45, $3)", 3, q);
    }
    dash_open(&s, login, PW);
    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 200);
    assert_null(strstr(r->body, "<script"));
    assert_null(strstr(r->body, "<img"));
    assert_null(strstr(r->body, "<b>\""));
    assert_non_null(strstr(r->body, "&lt;script&gt;alert(&quot;org&quot;)&lt;/script&gt;&amp;Co"));
    assert_non_null(strstr(r->body, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"));
    assert_non_null(strstr(r->body, "&lt;img src=x onerror=alert(1)&gt;"));
    assert_non_null(strstr(r->body, "esc&lt;b&gt;&quot;x&quot;"));
    assert_non_null(strstr(r->body, "123.45 EUR"));
    e2e_free(r);
    free(user_id);
    free(key);
    free(org);
}

/* Send a test event: the subscription's endpoint receives one event of the
 * documented type <family>.webhook.test, signed with the subscription's
 * secret, whatever event types it asked for; the answer leads to its
 * delivery's page. A paused subscription, another organization's and a
 * form without its token queue nothing. */
static void test_send_test_event(void **state)
{
    char login[128], form[1024], inbox[128], url[512], inbox_b[128], url_b[512];
    char *org, *org_b = NULL, *key, *key_b, *loc, *dlv;
    const char *sub_id, *sub_b;
    json_t *sub, *subb, *d, *reqs, *body;
    dash_session s;
    e2e_resp *r;
    (void)state;
    org = org_with_login(login, sizeof(login), "testevt");
    key = e2e_new_key(org, "testevt-api");
    key_b = e2e_new_org_key("testevt-b", &org_b);
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    wh_inbox(inbox_b, sizeof(inbox_b), url_b, sizeof(url_b));
    sub = wh_subscribe(key, "hotel", url, "[\"hotel.booking.canceled\"]");
    sub_id = wh_str(sub, "id");
    subb = wh_subscribe(key_b, "hotel", url_b, "[\"hotel.booking.canceled\"]");
    sub_b = wh_str(subb, "id");
    dash_open(&s, login, PW);

    r = dash_get(&s, DASH_PATH);
    {
        char label[200];
        snprintf(label, sizeof(label), "aria-label=\"Send a test event to %s\"", sub_id);
        assert_non_null(strstr(r->body, label));
    }
    e2e_free(r);

    /* Without the form token: refused, nothing queued. */
    snprintf(form, sizeof(form), "action=send_test&family=hotel&subscription_id=%s", sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 403);
    e2e_free(r);
    /* Another organization's subscription: 404, nothing queued for it. */
    snprintf(form, sizeof(form), "csrf=%s&action=send_test&family=hotel&subscription_id=%s",
             s.csrf, sub_b);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 404);
    e2e_free(r);
    /* Under the wrong family: not found either. */
    snprintf(form, sizeof(form), "csrf=%s&action=send_test&family=flight&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 404);
    e2e_free(r);
    {
        const char *p[2] = {sub_id, sub_b};
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                      "subscription_id IN ($1, $2)", 2, p), 0);
    }

    snprintf(form, sizeof(form), "csrf=%s&action=send_test&family=hotel&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 303);
    loc = e2e_header(r, "Location");
    assert_non_null(loc);
    assert_non_null(strstr(loc, "?delivery=dlv_"));
    dlv = strndup(strstr(loc, "dlv_"), strcspn(strstr(loc, "dlv_"), "&"));
    e2e_free(r);
    d = wh_wait_delivery(key, "hotel", sub_id, dlv, "DELIVERED", 1, 30000);
    assert_string_equal(json_string_value(json_object_get(json_object_get(d, "event"), "type")),
                        "hotel.webhook.test");
    json_decref(d);
    reqs = wh_inbox_requests(inbox);
    assert_int_equal(json_array_size(reqs), 1);
    assert_true(wh_request_verifies(json_array_get(reqs, 0), wh_str(sub, "signing_secret")));
    body = json_loads(json_string_value(json_object_get(json_array_get(reqs, 0), "body")), 0,
                      NULL);
    assert_non_null(body);
    assert_string_equal(json_string_value(json_object_get(body, "type")), "hotel.webhook.test");
    assert_true(json_is_true(json_object_get(json_object_get(body, "data"), "test")));
    json_decref(body);
    json_decref(reqs);
    /* The redirect's page: the delivery, saying what happened. */
    {
        char path[300];
        snprintf(path, sizeof(path), "%s?delivery=%s&done=test_sent", DASH_PATH, dlv);
        r = dash_get(&s, path);
        assert_int_equal(r->status, 200);
        assert_non_null(strstr(r->body, "data-done=\"test_sent\""));
        assert_non_null(strstr(r->body, "hotel.webhook.test"));
        e2e_free(r);
    }
    reqs = wh_inbox_requests(inbox_b);
    assert_int_equal(json_array_size(reqs), 0);
    json_decref(reqs);
    /* The test event is in the family's event log, as the API lists it
     * (its schema: docs/openapi.yaml, checked on this exchange). */
    r = e2e_get(key, "/v1/hotel/events");
    assert_int_equal(r->status, 200);
    {
        json_t *ev = json_array_get(json_object_get(r->json, "data"), 0);
        assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
        assert_string_equal(json_string_value(json_object_get(ev, "type")),
                            "hotel.webhook.test");
    }
    e2e_free(r);

    /* Paused: refused with the reason, nothing queued. */
    snprintf(form, sizeof(form), "csrf=%s&action=pause&family=hotel&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 303);
    e2e_free(r);
    snprintf(form, sizeof(form), "csrf=%s&action=send_test&family=hotel&subscription_id=%s",
             s.csrf, sub_id);
    r = dash_post(&s, form);
    assert_int_equal(r->status, 409);
    assert_non_null(strstr(r->body, "paused"));
    e2e_free(r);
    {
        const char *p[1] = {sub_id};
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                      "subscription_id = $1", 1, p), 1);
    }
    free(loc);
    free(dlv);
    json_decref(sub);
    json_decref(subb);
    free(key);
    free(key_b);
    free(org);
    free(org_b);
}

/* The hotel list's search box, and the lists of watches and of events:
 * search, status or type filter, dates, pages; only the login's
 * organization, even when another's id is searched for. */
static void test_more_lists(void **state)
{
    char login[128], path[1024], today[16], tomorrow[16], bkg[64];
    char *org = NULL, *org_b = NULL, *key, *key_b, *evt, *evt_b;
    json_t *hotel, *hotel_b, *w1, *w2, *wb;
    we_hotel wh;
    dash_session s;
    e2e_resp *r;
    time_t now = time(NULL);
    (void)state;
    strftime(today, sizeof(today), "%Y-%m-%d", gmtime(&now));
    now += 86400;
    strftime(tomorrow, sizeof(tomorrow), "%Y-%m-%d", gmtime(&now));
    key = e2e_new_org_key("owner", &org);
    key_b = e2e_new_org_key("b-user", &org_b);
    dash_login_name(login, sizeof(login), "morelists");
    dash_htpasswd(login, PW);
    dash_grant(org, login);
    hotel = he_ready(key, "SUPPLIER_A", "dash-hsearch-ref", "Quintessant");
    hotel_b = he_ready(key_b, "SUPPLIER_A", "dash-hsearch-b", "Quintessant");
    we_pick_hotel(key, 40, 42, 0, &wh);
    w1 = we_price_watch(key, &wh, 40, 42, 1000, NULL);
    w2 = we_price_watch(key, &wh, 43, 45, 1000, NULL);
    snprintf(path, sizeof(path), "%s/%s", WE_WATCHES, fe_s(w2, "id"));
    r = we_call(key, "DELETE", path, NULL);
    assert_true(r->status == 200 || r->status == 204);
    e2e_free(r);
    wb = we_price_watch(key_b, &wh, 40, 42, 1000, NULL);
    snprintf(bkg, sizeof(bkg), "bkg_evlist%ld", e2e_now_ms());
    snprintf(path, sizeof(path), "{\"booking\": {\"id\": \"%s\"}}", bkg);
    evt = wh_emit(org, "flight.booking.confirmed", path);
    evt_b = wh_emit(org_b, "flight.booking.confirmed", path);
    dash_open(&s, login, PW);

    r = dash_get(&s, DASH_PATH);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "<section id=\"watches\">"));
    assert_non_null(strstr(r->body, "<section id=\"events\">"));
    assert_non_null(strstr(r->body, "href=\"?list=watches\""));
    assert_non_null(strstr(r->body, "href=\"?list=events\""));
    assert_non_null(strstr(r->body, fe_s(w1, "id")));
    assert_non_null(strstr(r->body, evt));
    assert_null(strstr(r->body, fe_s(wb, "id")));
    assert_null(strstr(r->body, evt_b));
    /* The server's supplier calls and searches per booking (the figures
     * of /metrics): the hotel prebooks above are counted. */
    {
        char v[32];
        assert_true(dash_attr(r->body, "data-family=\"hotel\"", "data-bookings=\"", v,
                              sizeof(v)));
        assert_true(atol(v) >= 2);
        assert_true(dash_attr(r->body, "data-family=\"hotel\"", "data-searches=\"", v,
                              sizeof(v)));
        assert_true(atol(v) >= 1);
        assert_true(dash_attr(r->body, "<tr data-upstream=\"", "data-calls=\"", v,
                              sizeof(v)));
        assert_non_null(strstr(r->body, "data-chart=\"upstreams\""));
    }
    e2e_free(r);

    /* Hotel bookings: a guest's name in part, in another case; the
     * reference; another organization's id finds nothing. */
    r = dash_get(&s, DASH_PATH "?list=hotel-bookings&q=qUINTESS");
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, fe_s(hotel, "id")));
    assert_null(strstr(r->body, fe_s(hotel_b, "id")));
    assert_non_null(strstr(r->body, "data-total=\"1\""));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=hotel-bookings&q=dash-hsearch-ref");
    assert_non_null(strstr(r->body, fe_s(hotel, "id")));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=hotel-bookings&q=qUINTESS&status=CONFIRMED");
    assert_non_null(strstr(r->body, "No hotel bookings."));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=hotel-bookings&q=%s", fe_s(hotel_b, "id"));
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "No hotel bookings."));
    e2e_free(r);

    /* Watches: status, id, dates, pages; B's watch is never found. */
    r = dash_get(&s, DASH_PATH "?list=watches&status=canceled");
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, fe_s(w2, "id")));
    assert_null(strstr(r->body, fe_s(w1, "id")));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=watches&q=%s", fe_s(w1, "id"));
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, fe_s(w1, "id")));
    assert_null(strstr(r->body, fe_s(w2, "id")));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=watches&q=%s", fe_s(wb, "id"));
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, "No watches."));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=watches&from=%s", tomorrow);
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, "No watches."));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=watches&limit=1");
    assert_non_null(strstr(r->body, "1–1 of 2"));
    assert_non_null(strstr(r->body, fe_s(w2, "id")));
    assert_non_null(strstr(r->body, ">Next</a>"));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=watches&status=CONFIRMED");
    assert_int_equal(r->status, 422);
    assert_non_null(strstr(r->body, "not one a watch can have"));
    e2e_free(r);

    /* Events: by the booking they are about, by type, by date; the
     * booking links to its page. */
    snprintf(path, sizeof(path), DASH_PATH "?list=events&q=%s", bkg);
    r = dash_get(&s, path);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, evt));
    assert_null(strstr(r->body, evt_b));
    assert_non_null(strstr(r->body, "data-total=\"1\""));
    {
        char link[128];
        snprintf(link, sizeof(link), "href=\"?booking=%s\"", bkg);
        assert_non_null(strstr(r->body, link));
    }
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=events&q=%s", evt_b);
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, "No events."));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=events&q=%s&status=hotel.booking.confirmed",
             bkg);
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, "No events."));
    e2e_free(r);
    snprintf(path, sizeof(path), DASH_PATH "?list=events&status=flight.booking.confirmed"
             "&from=%s&to=%s", today, today);
    r = dash_get(&s, path);
    assert_non_null(strstr(r->body, evt));
    e2e_free(r);
    r = dash_get(&s, DASH_PATH "?list=events&status=flight.everything");
    assert_int_equal(r->status, 422);
    assert_non_null(strstr(r->body, "not one an event can have"));
    e2e_free(r);
    json_decref(hotel);
    json_decref(hotel_b);
    json_decref(w1);
    json_decref(w2);
    json_decref(wb);
    free(evt);
    free(evt_b);
    free(key);
    free(key_b);
    free(org);
    free(org_b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_login_needs_a_grant),
        cmocka_unit_test(test_travelctl_dashboard_flags),
        cmocka_unit_test(test_changes_need_the_form_token),
        cmocka_unit_test(test_key_shown_once_and_revoked_at_once),
        cmocka_unit_test(test_organization_scope),
        cmocka_unit_test(test_webhook_buttons),
        cmocka_unit_test(test_send_test_event),
        cmocka_unit_test(test_everything_shown_is_escaped),
        cmocka_unit_test(test_hotel_bookings_listed),
        cmocka_unit_test(test_changes_ask_first),
        cmocka_unit_test(test_detail_pages),
        cmocka_unit_test(test_lists_search_filter_page),
        cmocka_unit_test(test_more_lists),
        cmocka_unit_test(test_database_down_is_503),
    };
    return E2E_RUN("dashboard", tests);
}
