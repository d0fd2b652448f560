/* travelctl supplier check NAME: one supplier line tried with one cheap
 * authenticated call, with a clear answer for each way going live fails —
 * a right line, a wrong key, a wrong URL, an endpoint that never answers,
 * one that is not there — each told apart by its words and exit status. */
#include "e2e.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Runs travelctl supplier check with args; its exit status, and out filled
 * with what it printed (both streams). */
static int check(const char *args, char *out, size_t n)
{
    char cmd[8192];
    size_t len = 0;
    FILE *f;
    int rc;
    snprintf(cmd, sizeof(cmd), "%s supplier check %s 2>&1", e2e_env("TRAVEL_TEST_TRAVELCTL"),
             args);
    f = popen(cmd, "r");
    assert_non_null(f);
    out[0] = '\0';
    while (len < n - 1 && fgets(out + len, (int)(n - len), f)) {
        len = strlen(out);
    }
    rc = pclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* A configuration file holding one line; its path. */
static const char *conf_with(const char *line)
{
    static char path[4096];
    FILE *f;
    snprintf(path, sizeof(path), "%s/supplier-check.conf", e2e_env("TRAVEL_TEST_DIR"));
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", line);
    fclose(f);
    return path;
}

static void expect(int rc, const char *out, int want_rc, const char *words)
{
    if (rc != want_rc || !strstr(out, words)) {
        fail_msg("expected exit %d and '%s', got %d: %s", want_rc, words, rc, out);
    }
}

static void the_stack_lines_pass(void **state)
{
    char out[4096], args[4096];
    int rc;
    (void)state;
    snprintf(args, sizeof(args), "SUPPLIER_A --hotel --conf %s/httpd-a/httpd.conf",
             e2e_env("TRAVEL_TEST_DIR"));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 0, "SUPPLIER_A (liteapi, hotel): ok: ");
    expect(rc, out, 0, "accepted the key (HTTP 200)");
    /* The signed hotel protocols: their own signatures. */
    snprintf(args, sizeof(args), "SUPPLIER_B --hotel --conf %s/httpd-a/httpd.conf",
             e2e_env("TRAVEL_TEST_DIR"));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 0, "SUPPLIER_B (hotelbeds, hotel): ok: ");
    snprintf(args, sizeof(args), "SUPPLIER_C --hotel --conf %s/httpd-a/httpd.conf",
             e2e_env("TRAVEL_TEST_DIR"));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 0, "SUPPLIER_C (expedia-rapid, hotel): ok: ");
    /* A flight line: one airline through its adapter. */
    snprintf(args, sizeof(args), "SUPPLIER_B --conf %s/httpd-a/httpd.conf",
             e2e_env("TRAVEL_TEST_DIR"));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 0, "SUPPLIER_B (liteapi-flights, flight): ok: ");
    snprintf(args, sizeof(args), "SUPPLIER_A --conf %s/httpd-a/httpd.conf",
             e2e_env("TRAVEL_TEST_DIR"));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 0, "SUPPLIER_A (duffel, flight): ok: ");
}

static void a_wrong_key_is_named(void **state)
{
    char out[4096], line[2048], args[4096];
    const char *s = e2e_sandbox_url();
    int rc;
    (void)state;
    snprintf(line, sizeof(line), "TravelHotelSupplier LITEAPI liteapi %s/hotels/a/v3.0 "
             "api_key=not-the-key book_url=%s/hotels/a/book/v3.0", s, s);
    snprintf(args, sizeof(args), "LITEAPI --conf %s", conf_with(line));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 1, "the key was refused (HTTP 401)");
    /* LiteAPI Flights: its X-API-Key refused. */
    snprintf(line, sizeof(line), "TravelSupplier LITEFLIGHTS liteapi-flights %s/suppliers/b/v3.0 "
             "api_key=not-the-key", s);
    snprintf(args, sizeof(args), "LITEFLIGHTS --conf %s", conf_with(line));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 1, "the key was refused (HTTP 401)");
    /* A signed protocol with the right key and a wrong secret. */
    snprintf(line, sizeof(line), "TravelHotelSupplier PARTNER_B travel-hotel-b %s/hotels/b "
             "api_key=sandbox-key-hotel-b api_secret=not-the-secret", s);
    snprintf(args, sizeof(args), "PARTNER_B --conf %s", conf_with(line));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 1, "the key was refused (HTTP 401)");
}

static void a_rate_limit_is_named(void **state)
{
    char out[4096], args[4096];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r;
    int rc;
    (void)state;
    /* travelctl's calls carry the request id travelctl-supplier-check. */
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults", hdrs,
                 "{\"api\":\"hotel_a\",\"request_id_prefix\":\"travelctl-supplier-check\","
                 "\"status\":429,\"code\":\"rate_limited\",\"retry_after\":\"40\",\"times\":1}");
    assert_int_equal(r->status, 201);
    e2e_free(r);
    snprintf(args, sizeof(args), "SUPPLIER_A --hotel --conf %s/httpd-a/httpd.conf",
             e2e_env("TRAVEL_TEST_DIR"));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 1, "over its rate limit (HTTP 429) for 40 s more");
    /* Once: the next check finds the key good again. */
    rc = check(args, out, sizeof(out));
    expect(rc, out, 0, "accepted the key (HTTP 200)");
}

static void a_wrong_url_is_named(void **state)
{
    char out[4096], line[2048], args[4096];
    const char *s = e2e_sandbox_url();
    int rc;
    (void)state;
    /* The right key on a path where no LiteAPI answers: an old version. */
    snprintf(line, sizeof(line), "TravelHotelSupplier LITEAPI liteapi %s/hotels/a/v2.0 "
             "api_key=sandbox-key-hotel-a book_url=%s/hotels/a/book/v3.0", s, s);
    snprintf(args, sizeof(args), "LITEAPI --conf %s", conf_with(line));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 1, "check the base URL");
}

static void silence_and_absence_are_named(void **state)
{
    char out[4096], line[2048], args[4096];
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port, rc;
    (void)state;
    /* A listener that never answers: connections wait in its backlog. */
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 8), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    snprintf(line, sizeof(line), "TravelHotelSupplier LITEAPI liteapi http://127.0.0.1:%d/v3.0 "
             "api_key=k book_url=http://127.0.0.1:%d/v3.0", ntohs(a.sin_port),
             ntohs(a.sin_port));
    snprintf(args, sizeof(args), "LITEAPI --timeout 1 --conf %s", conf_with(line));
    rc = check(args, out, sizeof(out));
    close(fd);
    expect(rc, out, 1, "within 1 s");
    /* Nothing listening at all. */
    port = e2e_free_port();
    snprintf(line, sizeof(line), "TravelHotelSupplier LITEAPI liteapi http://127.0.0.1:%d/v3.0 "
             "api_key=k book_url=http://127.0.0.1:%d/v3.0", port, port);
    snprintf(args, sizeof(args), "LITEAPI --timeout 2 --conf %s", conf_with(line));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 1, "cannot reach http://127.0.0.1:");
}

static void mistakes_in_the_command_are_refused(void **state)
{
    char out[4096], args[4096];
    int rc;
    (void)state;
    snprintf(args, sizeof(args), "NOPE --conf %s/httpd-a/httpd.conf", e2e_env("TRAVEL_TEST_DIR"));
    rc = check(args, out, sizeof(out));
    expect(rc, out, 1, "NOPE has no TravelSupplier or TravelHotelSupplier line");
    rc = check("SUPPLIER_A --colour red", out, sizeof(out));
    expect(rc, out, 2, "unknown flag --colour");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_stack_lines_pass),
        cmocka_unit_test(a_wrong_key_is_named),
        cmocka_unit_test(a_rate_limit_is_named),
        cmocka_unit_test(a_wrong_url_is_named),
        cmocka_unit_test(silence_and_absence_are_named),
        cmocka_unit_test(mistakes_in_the_command_are_refused),
    };
    return E2E_RUN("test_supplier_check", tests);
}
