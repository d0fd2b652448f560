/* LiteAPI's own Node client (npm liteapi-node-sdk, installed under
 * tests/e2e/liteapi-client by make test) runs hotels -> rates -> prebook
 * (payment SDK) -> book -> read -> list -> cancel against the sandbox's
 * hotel SUPPLIER_A, its service URLs pointed at the bases GET
 * /sandbox/suppliers lists. A request the sandbox refuses, an answer the
 * client cannot read or one out of LiteAPI's documented shape fails the
 * flow (tests/e2e/liteapi-client/flow.mjs), and so this test. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void the_official_client_books_and_cancels(void **state)
{
    char root[2048], dir[4096], cmd[8192], line[4096];
    const char *ctl = e2e_env("TRAVEL_TEST_TRAVELCTL");
    FILE *f;
    int rc, ok = 0;
    (void)state;
    /* The repository root is two levels above bin/travelctl. */
    snprintf(root, sizeof(root), "%s", ctl);
    *strrchr(root, '/') = '\0';
    *strrchr(root, '/') = '\0';
    snprintf(dir, sizeof(dir), "%s/tests/e2e/liteapi-client", root);
    snprintf(cmd, sizeof(cmd), "command -v node >/dev/null && test -d %s/node_modules/"
             "liteapi-node-sdk", dir);
    if (system(cmd) != 0) {
        print_message("      node or the liteapi-node-sdk package is missing "
                      "(make test installs it): skipped\n");
        skip();
    }
    snprintf(cmd, sizeof(cmd), "timeout 120 node %s/flow.mjs %s 2>&1", dir, e2e_sandbox_url());
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        print_message("      liteapi-node-sdk: %s", line);
        ok |= strncmp(line, "ok: ", 4) == 0;
    }
    rc = pclose(f);
    assert_int_equal(rc, 0);
    assert_true(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_official_client_books_and_cancels),
    };
    return E2E_RUN("test_liteapi_client", tests);
}
