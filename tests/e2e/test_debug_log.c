/* `LogLevel travel:debug` on one httpd (a copy of instance b's
 * configuration on its own port and logs): each request gets a TRV205 line
 * (route, key id, answer, per-step timings) from its call site, each
 * supplier call a TRV206 line, each background job a TRV104 (claimed) and
 * a TRV105 (finished) line; no key or supplier credential is ever written;
 * and an instance at LogLevel warn writes none of them. */
#include "flight_e2e.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

static char inst[2048];   /* the debug instance's folder */
static char url[128];
static long pid = -1;

static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t n = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &n), 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;
    if (!f) {
        return strdup("");
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    n = (long)fread(buf, 1, (size_t)n, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* s with every `from` replaced by `to` (malloc'd). */
static char *replace_all(const char *s, const char *from, const char *to)
{
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    const char *p;
    char *out, *o;
    for (p = s; (p = strstr(p, from)); p += fl) {
        n++;
    }
    out = o = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1);
    for (p = s; *p;) {
        if (strncmp(p, from, fl) == 0) {
            memcpy(o, to, tl);
            o += tl;
            p += fl;
        }
        else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* The first line of the debug instance's error log holding every needle
 * (NULL-terminated), waiting up to 10 s for it (malloc'd, or NULL). */
static char *log_line(const char *const *needles)
{
    char path[4200];
    int tries;
    snprintf(path, sizeof(path), "%s/error.log", inst);
    for (tries = 0; tries < 100; tries++) {
        char *all = slurp(path), *line = all;
        while (line && *line) {
            char *end = strchr(line, '\n');
            int i, ok = 1;
            if (end) {
                *end = '\0';
            }
            for (i = 0; needles[i] && ok; i++) {
                ok = strstr(line, needles[i]) != NULL;
            }
            if (ok) {
                char *found = strdup(line);
                free(all);
                return found;
            }
            line = end ? end + 1 : NULL;
        }
        free(all);
        e2e_sleep_ms(100);
    }
    return NULL;
}

/* The first "test": starts the debug instance (the last one stops it). */
static void start_debug_instance(void **state)
{
    char b_conf[4200], b_dir[2048], port_b[64], port_new[64], conf[4300], cmd[8800];
    const char *url_b = e2e_env("TRAVEL_TEST_URL_B");
    char *text, *t1, *t2;
    FILE *f;
    int i, port = free_port();
    (void)state;
    snprintf(b_dir, sizeof(b_dir), "%s/httpd-b", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(b_conf, sizeof(b_conf), "%s/httpd.conf", b_dir);
    snprintf(inst, sizeof(inst), "%s/httpd-debug", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(port_b, sizeof(port_b), "%s", strstr(url_b, "127.0.0.1:"));
    snprintf(port_new, sizeof(port_new), "127.0.0.1:%d", port);
    snprintf(url, sizeof(url), "http://%s", port_new);
    text = slurp(b_conf);
    t1 = replace_all(text, b_dir, inst);
    t2 = replace_all(t1, port_b, port_new);
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/runtime' && { [ \"$(id -u)\" != 0 ] || "
             "chown www-data: '%s/runtime'; }", inst, inst);
    assert_int_equal(system(cmd), 0);
    snprintf(conf, sizeof(conf), "%s/httpd.conf", inst);
    f = fopen(conf, "w");
    assert_non_null(f);
    fprintf(f, "%s\nLogLevel warn travel:debug\n", t2);
    fclose(f);
    free(text);
    free(t1);
    free(t2);
    snprintf(cmd, sizeof(cmd), "/usr/sbin/apache2 -f '%s' -k start", conf);
    assert_int_equal(system(cmd), 0);
    for (i = 0; i < 100; i++) {
        char pidfile[4200], *s;
        e2e_resp *r;
        snprintf(pidfile, sizeof(pidfile), "%s/httpd.pid", inst);
        s = slurp(pidfile);
        if (*s) {
            pid = atol(s);
        }
        free(s);
        r = e2e_call(url, "GET", "/v1/health", NULL, NULL);
        if (pid > 0 && r->status == 200) {
            e2e_free(r);
            return;
        }
        e2e_free(r);
        e2e_sleep_ms(100);
    }
    fail_msg("the debug instance did not start: %s/error.log", inst);
}

static void stop_debug_instance(void **state)
{
    int i;
    (void)state;
    if (pid > 0) {
        kill((pid_t)pid, SIGTERM);
        for (i = 0; i < 200 && kill((pid_t)pid, 0) == 0; i++) {
            e2e_sleep_ms(100);
        }
    }
}

static void a_request_logs_its_route_key_and_steps(void **state)
{
    char *org, *key, *key_id, *line, path[4200], *all;
    const char *params[1];
    char kh[256];
    const char *hdrs[] = {kh, "x-request-id: req_debug-line-test", NULL};
    e2e_resp *r;
    (void)state;
    key = e2e_new_org_key("debug", &org);
    params[0] = org;
    key_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1", 1, params);
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(url, "GET", "/v1/flight/bookings", hdrs, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    {
        const char *needles[] = {"TRV205: ", "req_debug-line-test", NULL};
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
    all = slurp(path);
    assert_null(strstr(all, key));
    free(all);
    free(key_id);
    free(key);
    free(org);
}

static void supplier_calls_are_logged_without_credentials(void **state)
{
    char *key, *line, path[4200], *all, body[512];
    char kh[256];
    const char *hdrs[] = {kh, "Content-Type: application/json",
                          "x-request-id: req_debug-upstream-test", NULL};
    e2e_resp *r;
    (void)state;
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
        const char *needles[] = {"TRV206: ", "req_debug-upstream-test", "SUPPLIER_A", NULL};
        line = log_line(needles);
    }
    if (!line) {
        fail_msg("no TRV206 line for the supplier call in %s/error.log", inst);
    }
    assert_non_null(strstr(line, "/suppliers/a"));
    free(line);
    snprintf(path, sizeof(path), "%s/error.log", inst);
    all = slurp(path);
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
    all = slurp(path);
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
