/* x-idempotency-key on the requests that create or change something:
 * a retried webhook create whose reply was lost gets the first answer again,
 * signing secret included (kept sealed, never in plain text), not 409
 * url_already_subscribed; another body with the key is 409
 * idempotency_key_reused; a key whose first request still runs is 409
 * idempotency_key_in_use; a validation failure does not use the key up.
 * On a user's own resource (a flight booking) the key is that user's:
 * another user of the organization neither replays nor spoils it, and a
 * 404 is never kept. */
#include "test_webhook_common.h"
#include "flight_e2e.h"

#include <openssl/sha.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static char *key;
static char *org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("idem", &org);
    return 0;
}

static void unique_url(char *url, size_t n)
{
    char name[64];
    wh_inbox(name, sizeof(name), url, n);
}

static e2e_resp *post_with(const char *path, const char *idem, const char *body)
{
    char kh[512], ih[512];
    const char *hdrs[] = {kh, "Content-Type: application/json", ih, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(ih, sizeof(ih), "x-idempotency-key: %s", idem);
    return e2e_call(e2e_url(), "POST", path, hdrs, body);
}

static const char *data_str(const e2e_resp *r, const char *k)
{
    return wh_str(json_object_get(r->json, "data"), k);
}

static void retried_create_replays_its_answer_with_the_secret(void **state)
{
    char url[256], body[512], idem[64], *replayed;
    e2e_resp *first, *again, *other, *plain;
    const char *params[2];
    char *answer;
    (void)state;
    unique_url(url, sizeof(url));
    snprintf(idem, sizeof(idem), "create-%ld", e2e_now_ms());
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.confirmed\"]}", url);
    first = post_with("/v1/flight/webhook-subscriptions", idem, body);
    assert_int_equal(first->status, 201);
    assert_true(strncmp(data_str(first, "signing_secret"), "whsec_", 6) == 0);
    /* The reply was lost: the client sends the same request again. */
    again = post_with("/v1/flight/webhook-subscriptions", idem, body);
    assert_int_equal(again->status, 201);
    assert_string_equal(data_str(again, "id"), data_str(first, "id"));
    assert_string_equal(data_str(again, "signing_secret"), data_str(first, "signing_secret"));
    replayed = e2e_header(again, "idempotent-replayed");
    assert_non_null(replayed);
    assert_string_equal(replayed, "true");
    free(replayed);
    params[0] = org;
    params[1] = idem;
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions "
                                  "WHERE org_id = $1 AND deleted_at IS NULL", 1, params), 1);
    /* Kept sealed: the secret is nowhere in the stored answer. */
    answer = e2e_sql_text("SELECT answer FROM idempotent_requests "
                          "WHERE org_id = $1 AND idem_key = $2", 2, params);
    assert_non_null(answer);
    assert_true(strncmp(answer, "v1:", 3) == 0);
    assert_null(strstr(answer, data_str(first, "signing_secret")));
    assert_null(strstr(answer, url));
    free(answer);
    /* The same key for another request is refused, and changes nothing. */
    snprintf(body, sizeof(body), "{\"url\": \"%s-other\", \"event_types\": "
             "[\"flight.booking.confirmed\"]}", url);
    other = post_with("/v1/flight/webhook-subscriptions", idem, body);
    e2e_assert_error(other, 409, "idempotency_key_reused");
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions "
                                  "WHERE org_id = $1 AND deleted_at IS NULL", 1, params), 1);
    /* Without a key the repeat is a new request: the URL is taken. */
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.confirmed\"]}", url);
    plain = wh_call(key, "POST", "/v1/flight/webhook-subscriptions", body);
    e2e_assert_error(plain, 409, "url_already_subscribed");
    e2e_free(first);
    e2e_free(again);
    e2e_free(other);
    e2e_free(plain);
}

/* The fingerprint the service keeps for a request (gateway/idempotency.c):
 * SHA-256 of method, path, query and the body's JSON with sorted keys. */
static void fingerprint(const char *method, const char *path, const char *body,
                        char hex[65])
{
    json_t *j = json_loads(body, 0, NULL);
    char *canon = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT), *text;
    unsigned char md[SHA256_DIGEST_LENGTH];
    int i;
    assert_int_not_equal(asprintf(&text, "%s\n%s\n\n%s", method, path, canon), -1);
    SHA256((const unsigned char *)text, strlen(text), md);
    for (i = 0; i < SHA256_DIGEST_LENGTH; i++) {
        sprintf(hex + 2 * i, "%02x", md[i]);
    }
    free(text);
    free(canon);
    json_decref(j);
}

static void a_key_in_flight_is_409(void **state)
{
    char url[256], body[512], idem[64], fp[65];
    const char *params[3];
    e2e_resp *r;
    (void)state;
    unique_url(url, sizeof(url));
    snprintf(idem, sizeof(idem), "inflight-%ld", e2e_now_ms());
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.canceled\"]}", url);
    /* A first request with this key that is still running. */
    fingerprint("POST", "/v1/flight/webhook-subscriptions", body, fp);
    params[0] = org;
    params[1] = idem;
    params[2] = fp;
    e2e_sql_exec("INSERT INTO idempotent_requests (org_id, idem_key, fingerprint) "
                 "VALUES ($1, $2, $3)", 3, params);
    r = post_with("/v1/flight/webhook-subscriptions", idem, body);
    e2e_assert_error(r, 409, "idempotency_key_in_use");
    e2e_free(r);
    /* Once it finishes (here: it died and was released), the key runs. */
    e2e_sql_exec("DELETE FROM idempotent_requests WHERE org_id = $1 AND idem_key = $2", 2,
                 params);
    r = post_with("/v1/flight/webhook-subscriptions", idem, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
}

/* "host/boot id/pid namespace:pid", as mod_travel names a process. */
static void owner_of(long pid, char *out, size_t n)
{
    char host[256] = "localhost", boot[64] = "-";
    struct stat st;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof(boot), f)) {
            strcpy(boot, "-");
        }
        boot[strcspn(boot, "\n")] = '\0';
        fclose(f);
    }
    gethostname(host, sizeof(host) - 1);
    snprintf(out, n, "%s/%s/%lu:%ld", host, boot,
             stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0UL, pid);
}

/* The first request of a key ran in an httpd child that was killed (kill
 * -9, a crash): nobody will finish it, so its next request takes the key
 * over at once instead of answering 409 idempotency_key_in_use for 10
 * minutes (the chaos soak's clients gave up on such keys). A key whose
 * process is alive stays in use. */
static void a_key_whose_process_is_gone_is_taken_over(void **state)
{
    char url[256], body[512], idem[64], fp[65], owner[512];
    const char *params[4];
    char *key0 = key, *org0 = org;
    pid_t child;
    e2e_resp *r;
    (void)state;
    /* An organization of its own: the others' subscriptions are limited. */
    key = e2e_new_org_key("idem-orphan", &org);
    unique_url(url, sizeof(url));
    snprintf(idem, sizeof(idem), "orphan-%ld", e2e_now_ms());
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.canceled\"]}", url);
    fingerprint("POST", "/v1/flight/webhook-subscriptions", body, fp);
    params[0] = org;
    params[1] = idem;
    params[2] = fp;
    params[3] = owner;
    /* Running in this (live) process: in use. */
    owner_of((long)getpid(), owner, sizeof(owner));
    e2e_sql_exec("INSERT INTO idempotent_requests (org_id, idem_key, fingerprint, owner) "
                 "VALUES ($1, $2, $3, $4)", 4, params);
    r = post_with("/v1/flight/webhook-subscriptions", idem, body);
    e2e_assert_error(r, 409, "idempotency_key_in_use");
    e2e_free(r);
    /* Running in a process that is gone: taken over and run. */
    child = fork();
    if (child == 0) {
        _exit(0);
    }
    waitpid(child, NULL, 0);
    owner_of((long)child, owner, sizeof(owner));
    e2e_sql_exec("UPDATE idempotent_requests SET owner = $4 WHERE org_id = $1 "
                 "AND idem_key = $2 AND fingerprint = $3", 4, params);
    r = post_with("/v1/flight/webhook-subscriptions", idem, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    /* Its answer is kept for the key as any other. */
    r = post_with("/v1/flight/webhook-subscriptions", idem, body);
    assert_int_equal(r->status, 201);
    {
        char *replayed = e2e_header(r, "idempotent-replayed");
        assert_non_null(replayed);
        free(replayed);
    }
    e2e_free(r);
    free(key);
    free(org);
    key = key0;
    org = org0;
}

static void a_validation_failure_does_not_use_the_key(void **state)
{
    char url[256], body[512], idem[64];
    e2e_resp *r;
    (void)state;
    unique_url(url, sizeof(url));
    snprintf(idem, sizeof(idem), "invalid-%ld", e2e_now_ms());
    r = post_with("/v1/flight/webhook-subscriptions", idem,
                  "{\"url\": \"ftp://nowhere\", \"event_types\": []}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    /* The corrected request with the same key runs. */
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.failed\"]}", url);
    r = post_with("/v1/flight/webhook-subscriptions", idem, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    /* A key that is not 1..256 printable characters is refused. */
    {
        char longkey[300];
        memset(longkey, 'k', sizeof(longkey) - 1);
        longkey[sizeof(longkey) - 1] = '\0';
        r = post_with("/v1/flight/webhook-subscriptions", longkey, body);
    }
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "x-idempotency-key"));
    e2e_free(r);
}

static void answers_expire_after_a_day(void **state)
{
    char url[256], body[512], idem[64], gone[64];
    const char *params[3];
    e2e_resp *r;
    (void)state;
    unique_url(url, sizeof(url));
    snprintf(idem, sizeof(idem), "old-%ld", e2e_now_ms());
    snprintf(gone, sizeof(gone), "older-%ld", e2e_now_ms());
    params[0] = org;
    params[1] = idem;
    params[2] = gone;
    /* Two answers kept 25 hours ago, for other requests. */
    e2e_sql_exec("INSERT INTO idempotent_requests (org_id, idem_key, fingerprint, status, "
                 "answer, created_at, completed_at) SELECT $1, k, 'another request', 201, "
                 "'{}', now() - interval '25 hours', now() - interval '25 hours' "
                 "FROM unnest(ARRAY[$2, $3]) AS k", 3, params);
    /* The key is free again: not idempotency_key_reused. */
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.canceled\"]}", url);
    r = post_with("/v1/flight/webhook-subscriptions", idem, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    /* And the other expired answer was dropped on the way. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM idempotent_requests "
                                  "WHERE org_id = $1 AND idem_key = $2", 2,
                                  (const char *[]){org, gone}), 0);
}

static void rotation_is_not_repeated(void **state)
{
    char url[256], path[256], idem[64];
    json_t *s;
    e2e_resp *a, *b;
    (void)state;
    unique_url(url, sizeof(url));
    s = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s/rotate-secret",
             wh_str(s, "id"));
    snprintf(idem, sizeof(idem), "rotate-%ld", e2e_now_ms());
    a = post_with(path, idem, "{}");
    assert_int_equal(a->status, 200);
    b = post_with(path, idem, "{}");
    assert_int_equal(b->status, 200);
    /* The same new secret: the repeat did not rotate again. */
    assert_string_equal(data_str(b, "signing_secret"), data_str(a, "signing_secret"));
    e2e_free(a);
    e2e_free(b);
    json_decref(s);
}

static e2e_resp *post_as(const char *who, const char *path, const char *idem,
                         const char *body)
{
    char kh[512], ih[512];
    const char *hdrs[] = {kh, "Content-Type: application/json", ih, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", who);
    snprintf(ih, sizeof(ih), "x-idempotency-key: %s", idem);
    return e2e_call(e2e_url(), "POST", path, hdrs, body);
}

static int replayed(const e2e_resp *r)
{
    char *h = e2e_header(r, "idempotent-replayed");
    int yes = h && strcmp(h, "true") == 0;
    free(h);
    return yes;
}

/* A flight booking is its user's: so is a key sent to it. Another user of
 * the organization sending the owner's key, path and body gets their own
 * answer (404: not theirs), never the owner's booking replayed; and their
 * 404 is not kept, so it never answers the owner's own request (which
 * replayed 404 while the booking stayed READY_FOR_COMPLETE). */
static void a_users_booking_keys_are_that_users(void **state)
{
    char *mallory = e2e_new_key(org, "idem-mallory");
    json_t *b = fe_ready(key, "SUPPLIER_A", "Keyscope", NULL);
    const char *id = fe_s(b, "id");
    const char *body = "{\"payment_instrument_id\":\"pi_test_visa\"}";
    char path[256], cpath[256], *idem = fe_new_key("scope"), *cidem = fe_new_key("scope-c");
    const char *params[2] = {org, idem};
    e2e_resp *r;
    (void)state;
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/book", id);
    snprintf(cpath, sizeof(cpath), "/v1/flight/bookings/%s/cancel", id);
    /* The other user first: 404, and nothing kept for the key. */
    r = post_as(mallory, path, idem, body);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM idempotent_requests "
                                  "WHERE org_id = $1 AND idem_key = $2", 2, params), 0);
    /* The owner's identical request books. */
    r = post_as(key, path, idem, body);
    if (r->status != 200) {
        fail_msg("the owner's book answered %ld %s", r->status, r->body);
    }
    assert_false(replayed(r));
    assert_string_equal(fe_s(fe_data(r), "id"), id);
    e2e_free(r);
    /* The owner's retry replays it... */
    r = post_as(key, path, idem, body);
    assert_int_equal(r->status, 200);
    assert_true(replayed(r));
    e2e_free(r);
    /* ...the other user's does not: 404, as their GET of the booking. */
    r = post_as(mallory, path, idem, body);
    e2e_assert_error(r, 404, "not_found");
    assert_false(replayed(r));
    assert_null(strstr(r->body, "Keyscope"));
    e2e_free(r);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM idempotent_requests "
                                  "WHERE org_id = $1 AND idem_key = $2 AND status = 404",
                                  2, params), 0);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM idempotent_requests "
                                  "WHERE org_id = $1 AND idem_key = $2 AND status = 200 "
                                  "AND user_scope LIKE 'usr\\_%'", 2, params), 1);
    /* /cancel the same way: the other user's 404 is not the owner's. */
    r = post_as(mallory, cpath, cidem, "{}");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = post_as(key, cpath, cidem, "{}");
    assert_int_not_equal(r->status, 404);
    assert_true(r->status < 500);
    e2e_free(r);
    free(idem);
    free(cidem);
    free(mallory);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(retried_create_replays_its_answer_with_the_secret, setup),
        cmocka_unit_test(a_key_in_flight_is_409),
        cmocka_unit_test(a_key_whose_process_is_gone_is_taken_over),
        cmocka_unit_test(a_validation_failure_does_not_use_the_key),
        cmocka_unit_test(answers_expire_after_a_day),
        cmocka_unit_test(rotation_is_not_repeated),
        cmocka_unit_test(a_users_booking_keys_are_that_users),
    };
    return E2E_RUN("idempotency", tests);
}
