/* The guides as a newcomer pastes them: every shell block of
 * docs/getting-started.md and then docs/hotels.md, in order, in one bash,
 * against this stack (tests/guides/run-guides.sh). The blocks read the key
 * from var/demo.key and the ports from TRAVEL_PORT / TRAVEL_SANDBOX_PORT,
 * as after `make start`; the test gives them a new organization's key and
 * this stack's ports. Any answer that is not 2xx fails the test unless
 * the guide's text announces that status (the declined card's 422), and
 * so does a block whose last command fails. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *port_of(const char *url)
{
    const char *colon = strrchr(url, ':');
    assert_non_null(colon);
    return colon + 1;
}

static void test_guides_run_as_written(void **state)
{
    const char *ctl = e2e_env("TRAVEL_TEST_TRAVELCTL"), *end = strstr(ctl, "/bin/travelctl");
    char root[1024], work[1024], cmd[8192], line[1024], *org = NULL, *key;
    FILE *f;
    int rc;
    (void)state;
    assert_non_null(end);
    snprintf(root, sizeof(root), "%.*s", (int)(end - ctl), ctl);
    snprintf(work, sizeof(work), "%s/guides", e2e_env("TRAVEL_TEST_DIR"));
    key = e2e_new_org_key("demo", &org);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/var' && printf '%%s\\n' '%s' "
             ">'%s/var/demo.key'", work, work, key, work);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd),
             "TRAVEL_PORT=%s TRAVEL_SANDBOX_PORT=%s timeout 600 '%s/tests/guides/run-guides.sh' "
             "'%s' '%s/docs/getting-started.md' '%s/docs/hotels.md' 2>&1",
             port_of(e2e_url()), port_of(e2e_sandbox_url()), root, work, root, root);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        print_message("%s", line);
    }
    rc = pclose(f);
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
        fail_msg("the guides did not run as written (above; each block and its output: "
                 "%s/guides.log)", work);
    }
    free(key);
    free(org);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guides_run_as_written),
    };
    return E2E_RUN("guides", tests);
}
