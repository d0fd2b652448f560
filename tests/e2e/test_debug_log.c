/* `LogLevel travel:debug` on one httpd (a copy of instance b's
 * configuration on its own port and logs): each request gets a TRV205 line
 * (route, key id, answer, per-step timings) from its call site, each
 * supplier call a TRV206 line, each background job a TRV104 (claimed) and
 * a TRV105 (finished) line; no key or supplier credential is ever written;
 * and an instance at LogLevel warn writes none of them. */
#include "flight_e2e.h"

static char inst[2048];   /* the debug instance's folder */
static char url[128];
static long pid = -1;

/* The first line of the debug instance's error log holding every needle
 * (NULL-terminated), waiting up to 10 s for it (malloc'd, or NULL). */
static char *log_line(const char *const *needles)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/error.log", inst);
    return e2e_log_line(path, needles);
}

/* The first "test": starts the debug instance (the last one stops it). */
static void start_debug_instance(void **state)
{
    (void)state;
    snprintf(inst, sizeof(inst), "%s/httpd-debug", e2e_env("TRAVEL_TEST_DIR"));
    pid = e2e_start_instance("debug", NULL, "LogLevel warn travel:debug", url, sizeof(url));
}

static void stop_debug_instance(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
}

static void a_request_logs_its_route_key_and_steps(void **state)
{
    char *org, *key, *key_id, *line, path[4200], *all;
    const char *params[1];
    char kh[256], rh[128], rid[96];
    const char *hdrs[] = {kh, rh, NULL};
    e2e_resp *r;
    (void)state;
    snprintf(rid, sizeof(rid), "req_debug-line-%d-%ld", (int)getpid(), e2e_now_ms());
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    key = e2e_new_org_key("debug", &org);
    params[0] = org;
    key_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1", 1, params);
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(url, "GET", "/v1/flight/bookings", hdrs, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    {
        const char *needles[] = {"TRV205: ", rid, NULL};
        line = log_line(needles);
    }
    if (!line) {
        fail_msg("no TRV205 line for the request in %s/error.log", inst);
    }
    /* At debug level, from its call site, with the route and the key's id. */
    assert_non_null(strstr(line, "[travel:debug]"));
    assert_non_null(strstr(line, "dispatch.c("));
    assert_non_null(strstr(line, "route GET /v1/flight/bookings"));
    assert_non_null(strstr(line, key_id));
    assert_non_null(strstr(line, "answered 200"));
    assert_non_null(strstr(line, "auth "));
    assert_non_null(strstr(line, "handler "));
    free(line);
    /* The key itself is never written. */
    snprintf(path, sizeof(path), "%s/error.log", inst);
    all = e2e_slurp(path);
    assert_null(strstr(all, key));
    free(all);
    free(key_id);
    free(key);
    free(org);
}

static void supplier_calls_are_logged_without_credentials(void **state)
{
    char *key, *line, path[4200], *all, body[512];
    char kh[256], rh[128], rid[96];
    const char *hdrs[] = {kh, "Content-Type: application/json", rh, NULL};
    e2e_resp *r;
    (void)state;
    snprintf(rid, sizeof(rid), "req_debug-upstream-%d-%ld", (int)getpid(), e2e_now_ms());
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    key = e2e_new_org_key("debug", NULL);
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(body, sizeof(body),
             "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"%s\"}],"
             "\"passengers\":{\"adults\":1},\"supplier\":\"SUPPLIER_A\",\"limit\":1}",
             fe_date(40));
    r = e2e_call(url, "POST", "/v1/flight/offers", hdrs, body);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    {
        const char *needles[] = {"TRV206: ", rid, "SUPPLIER_A", NULL};
        line = log_line(needles);
    }
    if (!line) {
        fail_msg("no TRV206 line for the supplier call in %s/error.log", inst);
    }
    assert_non_null(strstr(line, "/suppliers/a"));
    free(line);
    snprintf(path, sizeof(path), "%s/error.log", inst);
    all = e2e_slurp(path);
    assert_null(strstr(all, "sandbox-key-a")); /* the supplier's API key */
    assert_null(strstr(all, key));
    free(all);
    free(key);
}

static void background_jobs_log_claimed_and_finished(void **state)
{
    const char *claimed[] = {"TRV104: ", "claimed by", NULL};
    const char *finished[] = {"TRV105: ", " done after ", NULL};
    char *c = NULL, *f = NULL, *out;
    int round;
    (void)state;
    /* Probe jobs go to whichever instance's worker claims them first; a
     * few rounds give this one its share. */
    for (round = 0; round < 20 && !c; round++) {
        out = e2e_travelctl("worker probe --count 20 --timeout 30");
        assert_non_null(out);
        free(out);
        c = log_line(claimed);
    }
    if (!c) {
        fail_msg("the debug instance logged no TRV104 line");
    }
    f = log_line(finished);
    assert_non_null(f);
    assert_non_null(strstr(c, "[travel:debug]"));
    free(c);
    free(f);
}

static void warn_level_writes_no_debug_line(void **state)
{
    char path[4200], *all;
    (void)state;
    snprintf(path, sizeof(path), "%s/httpd-a/error.log", e2e_env("TRAVEL_TEST_DIR"));
    all = e2e_slurp(path);
    assert_null(strstr(all, "TRV205: "));
    assert_null(strstr(all, "TRV104: "));
    free(all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_debug_instance),
        cmocka_unit_test(a_request_logs_its_route_key_and_steps),
        cmocka_unit_test(supplier_calls_are_logged_without_credentials),
        cmocka_unit_test(background_jobs_log_claimed_and_finished),
        cmocka_unit_test(warn_level_writes_no_debug_line),
        cmocka_unit_test(stop_debug_instance),
    };
    return E2E_RUN("debug log", tests);
}
