/* Rate limits shared by the nodes of a site: two httpd instances (copies
 * of instance b's configuration, on the same database) count in one
 * memcached (TravelRateLimitCache memcache:..., mod_socache_memcache) that
 * the test starts on a loopback port and stops by pid. A key's limit of 5
 * per 60 s is 5 for the site, whichever node each request reaches; with
 * the default shmcb each node would let 5 through. The same store holds the
 * suppliers' call budgets: flight SUPPLIER_A allows 2 calls a second
 * (max_calls_per_second=2, TravelSupplierLimitWait 0) for the site, so of
 * four offer searches in one second, alternating nodes, two reach the
 * sandbox and two answer 429. (A key revoked on one
 * node is refused on the other: test_flight_reads,
 * revocation_is_at_once_on_every_instance, on instances a and b.) */
#include "e2e.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIMIT 5
#define WINDOW 60

static char url1[256], url2[256];
static long pid1 = -1, pid2 = -1;
static pid_t memcached_pid = -1;
static int memcached_port;
static char module_path[1024];

static int listening(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(fd);
    return ok;
}

static void start_memcached(int port)
{
    char p[16];
    int i;
    snprintf(p, sizeof(p), "%d", port);
    memcached_pid = fork();
    assert_true(memcached_pid >= 0);
    if (memcached_pid == 0) {
        /* As root memcached wants a user to run as. */
        if (getuid() == 0) {
            execlp("memcached", "memcached", "-l", "127.0.0.1", "-p", p, "-U", "0", "-u",
                   "nobody", (char *)NULL);
        }
        execlp("memcached", "memcached", "-l", "127.0.0.1", "-p", p, "-U", "0", (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 50; i++) {
        if (listening(port)) {
            return;
        }
        e2e_sleep_ms(100);
    }
    fail_msg("memcached did not listen on %d", port);
}

/* The module folder, from instance b's LoadModule of mod_dbd. */
static void module_dir(char *out, size_t n)
{
    char path[2300], *conf, *p, *e;
    snprintf(path, sizeof(path), "%s/httpd-b/httpd.conf", e2e_env("TRAVEL_TEST_DIR"));
    conf = e2e_slurp(path);
    p = strstr(conf, "LoadModule dbd_module ");
    assert_non_null(p);
    p += strlen("LoadModule dbd_module ");
    e = strstr(p, "/mod_dbd.so");
    assert_non_null(e);
    snprintf(out, n, "%.*s", (int)(e - p), p);
    free(conf);
}

static void start_nodes(void **state)
{
    char extra[2048], dir[1024];
    int port = e2e_free_port();
    (void)state;
    start_memcached(port);
    memcached_port = port;
    module_dir(dir, sizeof(dir));
    snprintf(module_path, sizeof(module_path), "%s", dir);
    static const char *const edits[] = {
        "token=sandbox-key-a ", "token=sandbox-key-a max_calls_per_second=2 ", NULL, NULL};
    snprintf(extra, sizeof(extra),
             "LoadModule socache_memcache_module %s/mod_socache_memcache.so\n"
             "TravelRateLimitCache memcache:127.0.0.1:%d\nTravelRateLimit %d %ds\n"
             "TravelSupplierLimitWait 0\n", dir, port, LIMIT, WINDOW);
    pid1 = e2e_start_instance("node1", edits, extra, url1, sizeof(url1));
    pid2 = e2e_start_instance("node2", edits, extra, url2, sizeof(url2));
}

static void stop_nodes(void **state)
{
    (void)state;
    e2e_stop_pid(pid1);
    e2e_stop_pid(pid2);
    if (memcached_pid > 0) {
        kill(memcached_pid, SIGTERM);
        waitpid(memcached_pid, NULL, 0);
    }
}

static long status_on(const char *base, const char *key)
{
    char kh[512];
    const char *h[] = {kh, NULL};
    e2e_resp *r;
    long st;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(base, "GET", "/v1/flight/bookings?limit=1", h, NULL);
    st = r->status;
    e2e_free(r);
    return st;
}

static void a_limit_is_for_the_site(void **state)
{
    char *key = e2e_new_org_key("site-limit", NULL);
    int i, ok = 0, limited = 0;
    (void)state;
    /* Windows are aligned to the clock: start well inside one. */
    while (time(NULL) % WINDOW > WINDOW - 15) {
        e2e_sleep_ms(500);
    }
    for (i = 0; i < 2 * LIMIT + 2; i++) {
        long st = status_on(i % 2 ? url2 : url1, key);
        if (st == 200) {
            if (limited) {
                fail_msg("request %d was let through after a 429", i);
            }
            ok++;
        }
        else if (st == 429) {
            limited++;
        }
        else {
            fail_msg("request %d answered %ld", i, st);
        }
    }
    /* Each node alone would have let LIMIT through: 2 x LIMIT. */
    assert_int_equal(ok, LIMIT);
    assert_int_equal(limited, LIMIT + 2);
    /* Both nodes refuse it now. */
    assert_int_equal(status_on(url1, key), 429);
    assert_int_equal(status_on(url2, key), 429);
    free(key);
}

/* Flight offers of SUPPLIER_A on a node, with a request id under scope. */
static long offers_on(const char *base, const char *key, const char *rid)
{
    char kh[512], rh[300], body[512];
    const char *h[] = {kh, "Content-Type: application/json", rh, NULL};
    time_t t = time(NULL) + 40 * 86400;
    struct tm tm;
    char day[16];
    e2e_resp *r;
    long st;
    gmtime_r(&t, &tm);
    strftime(day, sizeof(day), "%Y-%m-%d", &tm);
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":"
             "\"JFK\",\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"supplier\":"
             "\"SUPPLIER_A\",\"limit\":1}", day);
    r = e2e_call(base, "POST", "/v1/flight/offers", h, body);
    st = r->status;
    if (st != 200 && st != 429) {
        fail_msg("flight offers on %s answered %ld: %s", base, st, r->body);
    }
    e2e_free(r);
    return st;
}

/* One request of four_in_one_second's: try `attempt`, request i; returns
 * its status. */
typedef long (*one_request)(void *baton, int attempt, int i);

/* Four requests inside one second of the wall clock, the limits' window
 * (a slow machine may need a retry: up to three tries). The last try's
 * 200s in *ok and 429s in *limited (anything else fails the test); 1 when
 * a try fitted in one second, 0 when none did. */
static int four_in_one_second(one_request call, void *baton, int *ok, int *limited)
{
    int attempt, i;
    for (attempt = 0; attempt < 3; attempt++) {
        long t0;
        while (e2e_wall_ms() % 1000 > 100) {
            e2e_sleep_ms(10);
        }
        t0 = e2e_wall_ms() / 1000;
        *ok = *limited = 0;
        for (i = 0; i < 4; i++) {
            long st = call(baton, attempt, i);
            if (st == 200) {
                (*ok)++;
            }
            else if (st == 429) {
                (*limited)++;
            }
            else {
                fail_msg("request %d answered %ld", i, st);
            }
        }
        if (e2e_wall_ms() / 1000 == t0) {
            return 1;
        }
    }
    return 0;
}

/* Offers alternating the nodes, under the test's scope, counting what got
 * through (over every try: the sandbox counts them all). */
typedef struct budget_run {
    const char *key, *scope;
    int sent;
} budget_run;

static long budget_offers(void *baton, int attempt, int i)
{
    budget_run *b = baton;
    char rid[200];
    long st;
    snprintf(rid, sizeof(rid), "%s-%d-%d", b->scope, attempt, i);
    st = offers_on(i % 2 ? url2 : url1, b->key, rid);
    b->sent += st == 200;
    return st;
}

static void a_supplier_budget_is_for_the_site(void **state)
{
    char *key = e2e_new_org_key("site-budget", NULL), scope[128], fault[512];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    int ok = 0, refused = 0;
    budget_run run = {key, scope, 0};
    e2e_resp *r;
    char path[300];
    json_t *f;
    (void)state;
    snprintf(scope, sizeof(scope), "site-budget-%d-%ld", (int)getpid(), e2e_now_ms());
    /* Counts the calls that reach the sandbox. */
    snprintf(fault, sizeof(fault), "{\"api\":\"supplier_a\",\"request_id_prefix\":\"%s\","
             "\"action\":\"respond\",\"headers\":{\"x-counted\":\"1\"},\"times\":null}",
             scope);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults", hdrs, fault);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    /* Four searches inside one second of the wall clock, the budget's. */
    assert_true(four_in_one_second(budget_offers, &run, &ok, &refused));
    /* Each node alone would have let 2 through: 4. */
    assert_int_equal(ok, 2);
    assert_int_equal(refused, 2);
    /* What was refused never reached the supplier. */
    snprintf(path, sizeof(path), "/sandbox/faults?request_id_prefix=%s", scope);
    r = e2e_call(e2e_sandbox_url(), "GET", path, NULL, NULL);
    assert_int_equal(r->status, 200);
    f = json_array_get(json_object_get(r->json, "data"), 0);
    assert_int_equal(json_integer_value(json_object_get(f, "hits")), run.sent);
    e2e_free(r);
    free(key);
}

static char url3[256];

/* A bookings listing on node3 (a_one_second_window_is_counted's). */
static long listing_on_node3(void *key, int attempt, int i)
{
    (void)attempt;
    (void)i;
    return status_on(url3, key);
}

/* A window of one second counted in memcached: every count is written
 * with less than a second of its window left, which mod_socache_memcache
 * refuses to store (it sends whole seconds), and memcached keeps an item
 * a whole number of seconds on its own clock; the store keeps counts two
 * seconds past their window (httpd/ratelimit.c), so four requests inside
 * one second of a node limited to 2 a second get two 429s. */
static void a_one_second_window_is_counted(void **state)
{
    char extra[2048];
    char *key = e2e_new_org_key("second-limit", NULL);
    int fitted, ok = 0, limited = 0;
    long pid3;
    (void)state;
    snprintf(extra, sizeof(extra),
             "LoadModule socache_memcache_module %s/mod_socache_memcache.so\n"
             "TravelRateLimitCache memcache:127.0.0.1:%d\nTravelRateLimit 2 1s\n",
             module_path, memcached_port);
    pid3 = e2e_start_instance("node3", NULL, extra, url3, sizeof(url3));
    fitted = four_in_one_second(listing_on_node3, key, &ok, &limited);
    e2e_stop_pid(pid3);
    assert_true(fitted);
    assert_int_equal(ok, 2);
    assert_int_equal(limited, 2);
    free(key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_nodes),
        cmocka_unit_test(a_limit_is_for_the_site),
        cmocka_unit_test(a_supplier_budget_is_for_the_site),
        cmocka_unit_test(a_one_second_window_is_counted),
        cmocka_unit_test(stop_nodes),
    };
    return E2E_RUN("shared limits", tests);
}
