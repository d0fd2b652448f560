/* Duffel's own client library against the sandbox's SUPPLIER_A (Duffel Air
 * API v2): tests/e2e/duffel-client/check.sh runs the npm package
 * @duffel/api through offer request -> offer with available services ->
 * loyalty account -> instant order -> order read -> airline-initiated
 * changes -> cancellation quote -> confirm, a hold order paid later, the
 * airlines and an error, and the Stays flow (search -> all rates -> quote
 * -> booking -> read -> cancel), then tsc --strict over every recorded answer
 * typed as the package's own types. A call the client makes that the
 * sandbox refuses, an answer it cannot read, or an answer that does not
 * type-check fails this test. Skipped only when node or the packages are
 * missing (make test installs them). */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void the_official_client_runs_the_whole_flow(void **state)
{
    char root[1024], dir[1100], cmd[4096], line[512];
    const char *ctl = e2e_env("TRAVEL_TEST_TRAVELCTL");
    FILE *f;
    int rc;
    (void)state;
    snprintf(root, sizeof(root), "%s", ctl);
    *strrchr(root, '/') = '\0';
    *strrchr(root, '/') = '\0';
    snprintf(dir, sizeof(dir), "%s/tests/e2e/duffel-client", root);
    snprintf(cmd, sizeof(cmd), "command -v node >/dev/null && test -d %s/node_modules/@duffel/api"
             " && test -x %s/node_modules/.bin/tsc", dir, dir);
    if (system(cmd) != 0) {
        print_message("      node or @duffel/api and typescript are missing (make test installs "
                      "them): the Duffel client check is skipped\n");
        return;
    }
    /* The client resolves "air/..." against basePath: it ends with '/'. */
    snprintf(cmd, sizeof(cmd), "%s/check.sh %s/suppliers/a/ sandbox-key-a 2>&1", dir,
             e2e_sandbox_url());
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        print_message("      %s", line);
    }
    rc = pclose(f);
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_official_client_runs_the_whole_flow),
    };
    return E2E_RUN("duffel_client", tests);
}
