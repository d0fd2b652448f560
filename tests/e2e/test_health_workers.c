/* GET /v1/health counts a background worker as alive only while it comes
 * back to its loop: a private httpd of one child with one worker, on a
 * database of its own (so no other instance takes its work), and a job
 * that keeps that worker busy for longer than the job lease, turn the
 * health to 503 while the job runs and back to 200 after. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Polls health until it answers `status` (up to 40 s); returns the body. */
static char *wait_health(const char *url, long status)
{
    int i;
    for (i = 0; i < 400; i++) {
        e2e_resp *r = e2e_call(url, "GET", "/v1/health", NULL, NULL);
        if (r->status == status) {
            char *body = strdup(r->body);
            e2e_free(r);
            return body;
        }
        e2e_free(r);
        e2e_sleep_ms(100);
    }
    fail_msg("GET /v1/health never answered %ld", status);
    return NULL;
}

static void a_stuck_worker_makes_the_server_unhealthy(void **state)
{
    char db[1024], url[128], *body;
    /* One child (health is one process's view), one worker, a 2 s lease. */
    const char *edits[] = {"dbname=travel ", "dbname=travel_health ",
                           "TravelWorkerThreads 2", "TravelWorkerThreads 1",
                           "TravelJobLease 3s", "TravelJobLease 2s",
                           "StartServers 2", "StartServers 1", "ServerLimit 4", "ServerLimit 1",
                           "MaxRequestWorkers 128", "MaxRequestWorkers 64", NULL};
    long pid;
    (void)state;
    e2e_own_database("travel_health", db, sizeof(db));

    pid = e2e_start_instance("health", edits, NULL, url, sizeof(url));
    body = wait_health(url, 200);
    assert_non_null(strstr(body, "\"configured\":1,\"running\":1"));
    free(body);

    /* One job that sleeps 20 s: far past the 2 s lease and the 5 s of
     * slack the health check gives a worker between two loops. */
    e2e_sql_admin("travel_health", "INSERT INTO jobs (kind, payload, max_attempts) VALUES "
                 "('system.probe', '{\"label\": \"stuck\", \"sleep_ms\": 20000}', 1)");
    body = wait_health(url, 503);
    assert_non_null(strstr(body, "\"code\":\"unavailable\""));
    assert_non_null(strstr(body, "0 of 1 background workers"));
    free(body);
    /* Done with it, the worker is back: healthy again. */
    body = wait_health(url, 200);
    free(body);
    e2e_stop_pid(pid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_stuck_worker_makes_the_server_unhealthy),
    };
    return E2E_RUN("health and workers", tests);
}
