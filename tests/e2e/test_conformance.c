/* The conformance kit (tests/conformance/conformance.c, scripts/
 * conformance.sh) proven in `make test`: `make conformance`'s own path (a
 * throwaway sandbox of its own, every protocol the gateway registers:
 * search, price, book, read, cancel) passes; against the test stack's
 * sandbox, a line given as an operator gives it (SUPPLIER_URL, key and
 * secret in files) passes, a read-only run (CONFORMANCE_BOOK=0) books
 * nothing, and a wrong key fails with the reason. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char build[2048], root[2048], dir[2048];

static int setup(void **state)
{
    char self[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    (void)state;
    if (n <= 0) {
        return -1;
    }
    self[n] = '\0';
    /* BUILD/tests/e2e/test_conformance */
    *strrchr(self, '/') = '\0';
    *strrchr(self, '/') = '\0';
    *strrchr(self, '/') = '\0';
    snprintf(build, sizeof(build), "%s", self);
    /* The checkout is two levels above bin/travelctl. */
    snprintf(root, sizeof(root), "%s", e2e_env("TRAVEL_TEST_TRAVELCTL"));
    *strrchr(root, '/') = '\0';
    *strrchr(root, '/') = '\0';
    snprintf(dir, sizeof(dir), "%s/conformance", e2e_env("TRAVEL_TEST_DIR"));
    mkdir(dir, 0755);
    return 0;
}

/* Runs `env` + command with its output in DIR/name.log; returns the exit
 * status and *out the output (malloc'd). */
static int run(const char *name, const char *env, const char *command, char **out)
{
    char cmd[8192], log[2300];
    int rc;
    snprintf(log, sizeof(log), "%s/%s.log", dir, name);
    snprintf(cmd, sizeof(cmd), "env %s %s >'%s' 2>&1", env, command, log);
    rc = system(cmd);
    *out = e2e_slurp(log);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* A file holding s (for the *_FILE variables); returns its path. */
static const char *file_of(const char *name, const char *s)
{
    static char path[4][2300];
    static int n;
    char *p = path[n++ % 4];
    FILE *f;
    snprintf(p, 2300, "%s/%s", dir, name);
    f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", s);
    fclose(f);
    return p;
}

static void make_conformance_passes_for_every_protocol(void **state)
{
    char cmd[4400], *out;
    static const char *const protocols[] = {"duffel", "liteapi-flights", "liteapi", "hotelbeds",
                                            "expedia-rapid", "duffel-stays", NULL};
    int i;
    (void)state;
    snprintf(cmd, sizeof(cmd), "'%s/scripts/conformance.sh' '%s'", root, build);
    /* PROTOCOL and SUPPLIER_URL unset: make conformance's defaults. */
    if (run("all", "-u PROTOCOL -u SUPPLIER_URL", cmd, &out) != 0) {
        fail_msg("make conformance failed:\n%s", out);
    }
    for (i = 0; protocols[i]; i++) {
        char line[200];
        snprintf(line, sizeof(line), "conformance: %s at ", protocols[i]);
        if (!strstr(out, line)) {
            fail_msg("protocol %s was not checked:\n%s", protocols[i], out);
        }
    }
    /* Every step ran: every protocol's checks, none skipped. */
    assert_null(strstr(out, "SKIPPED"));
    assert_non_null(strstr(out, "every protocol passed against the sandbox"));
    {
        const char *s = out;
        int passed = 0;
        while ((s = strstr(s, "[  PASSED  ] 8 test(s)."))) {
            passed++;
            s++;
        }
        for (i = 0; protocols[i]; i++) {
        }
        assert_int_equal(passed, i);
    }
    free(out);
}

static void an_operators_line_with_key_files_passes(void **state)
{
    char env[4096], kit[2200], *out;
    (void)state;
    snprintf(kit, sizeof(kit), "'%s/tests/conformance/conformance'", build);
    /* As an operator gives a partner's travel-hotel-b endpoint: the URL, the
     * key and the secret in files. */
    snprintf(env, sizeof(env), "-u SANDBOX_URL PROTOCOL=travel-hotel-b SUPPLIER_URL=%s/hotels/b "
             "SUPPLIER_KEY_FILE=%s SUPPLIER_SECRET_FILE=%s CONFORMANCE_DAYS=255",
             e2e_sandbox_url(), file_of("hb.key", "sandbox-key-hotel-b"),
             file_of("hb.secret", "sandbox-secret-hotel-b"));
    if (run("line", env, kit, &out) != 0) {
        fail_msg("the kit failed on a good line:\n%s", out);
    }
    assert_non_null(strstr(out, "[  PASSED  ] 8 test(s)."));
    free(out);
}

/* A line written with a protocol's former name (travel-air, now LiteAPI
 * Flights) is checked against the sandbox that lists it under the
 * protocol's own name. */
static void an_alias_is_checked_as_its_protocol(void **state)
{
    char env[4096], kit[2200], *out;
    (void)state;
    snprintf(kit, sizeof(kit), "'%s/tests/conformance/conformance'", build);
    snprintf(env, sizeof(env), "-u SUPPLIER_URL SANDBOX_URL=%s PROTOCOL=travel-air "
             "CONFORMANCE_DAYS=258", e2e_sandbox_url());
    if (run("alias", env, kit, &out) != 0) {
        fail_msg("the alias travel-air failed:\n%s", out);
    }
    assert_non_null(strstr(out, "conformance: travel-air at "));
    assert_non_null(strstr(out, "/suppliers/b/v3.0"));
    assert_non_null(strstr(out, "[  PASSED  ] 8 test(s)."));
    free(out);
}

static void a_read_only_run_books_nothing(void **state)
{
    char env[4096], kit[2200], *out;
    (void)state;
    snprintf(kit, sizeof(kit), "'%s/tests/conformance/conformance'", build);
    snprintf(env, sizeof(env), "SANDBOX_URL=%s PROTOCOL=liteapi CONFORMANCE_BOOK=0 "
             "CONFORMANCE_DAYS=256", e2e_sandbox_url());
    if (run("readonly", env, kit, &out) != 0) {
        fail_msg("the read-only run failed:\n%s", out);
    }
    assert_non_null(strstr(out, "calls that change nothing"));
    /* check, search, offers, unknown booking passed; the four booking steps skipped. */
    assert_non_null(strstr(out, "[  PASSED  ] 4 test(s)."));
    assert_non_null(strstr(out, "[  SKIPPED ] 4 test(s)"));
    assert_null(strstr(out, "booking "));
    free(out);
}

static void a_wrong_key_fails_with_the_reason(void **state)
{
    char env[4096], kit[2200], *out;
    (void)state;
    snprintf(kit, sizeof(kit), "'%s/tests/conformance/conformance'", build);
    snprintf(env, sizeof(env), "-u SANDBOX_URL PROTOCOL=duffel SUPPLIER_URL=%s/suppliers/a "
             "SUPPLIER_KEY=not-the-key CONFORMANCE_DAYS=257", e2e_sandbox_url());
    assert_int_not_equal(run("wrongkey", env, kit, &out), 0);
    /* The first step says why; the steps after it have nothing to work on. */
    assert_non_null(strstr(out, "search: rejected (wanted ok): unauthorized: "));
    assert_non_null(strstr(out, "[  FAILED  ]"));
    free(out);
    /* No key at all: refused before any call, naming what is missing. */
    snprintf(env, sizeof(env), "-u SANDBOX_URL -u SUPPLIER_KEY PROTOCOL=liteapi "
             "SUPPLIER_URL=%s/hotels/a/v3.0", e2e_sandbox_url());
    assert_int_equal(run("nokey", env, kit, &out), 2);
    assert_non_null(strstr(out, "liteapi needs SUPPLIER_KEY and SUPPLIER_SECOND_URL"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(make_conformance_passes_for_every_protocol),
        cmocka_unit_test(an_operators_line_with_key_files_passes),
        cmocka_unit_test(an_alias_is_checked_as_its_protocol),
        cmocka_unit_test(a_read_only_run_books_nothing),
        cmocka_unit_test(a_wrong_key_fails_with_the_reason),
    };
    if (setup(NULL) != 0) {
        return 1;
    }
    return E2E_RUN("conformance", tests);
}
