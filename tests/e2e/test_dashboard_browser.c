/* The dashboard in a real browser: headless Chromium (Debian's chromium
 * package) driven by puppeteer-core (tests/e2e/dashboard-browser/drive.mjs)
 * signs in, creates a key and uses it (200), revokes it after its question
 * (401 at once; Cancel changes nothing), replays a delivery (a new attempt
 * appears), pauses (asked), resumes and rotates (asked) a subscription,
 * and checks the page at 375 px (no sideways scroll, headings in order,
 * every control labelled), sends a test event to the subscription, opens
 * a booking's page with its supplier calls, searches the events list from
 * the keyboard, reads the watches list and the charts, at 375 px too, and
 * finds nothing of another organization on any of them, taking a
 * screenshot of each
 * step; they are kept under the run's artifacts (path printed). Skipped,
 * saying so, only when Chromium is not installed. */
#include "dashboard_e2e.h"
#include "test_webhook_common.h"
#include "watch_e2e.h"

#include <limits.h>
#include <sys/stat.h>

#define PW "browser-password-1"

static const char *chromium(void)
{
    const char *env = getenv("TRAVEL_TEST_CHROMIUM");
    static const char *const paths[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", NULL};
    int i;
    if (env && *env) {
        return access(env, X_OK) == 0 ? env : NULL;
    }
    for (i = 0; paths[i]; i++) {
        if (access(paths[i], X_OK) == 0) {
            return paths[i];
        }
    }
    return NULL;
}

/* The checkout: bin/travelctl's folder's parent. */
static void repo_root(char *out, size_t n)
{
    const char *ctl = e2e_env("TRAVEL_TEST_TRAVELCTL");
    const char *end = strstr(ctl, "/bin/travelctl");
    assert_non_null(end);
    snprintf(out, n, "%.*s", (int)(end - ctl), ctl);
}

static void test_dashboard_in_a_browser(void **state)
{
    const char *browser = chromium();
    char root[1024], module[1200], shots[1200], login[128], inbox[128];
    char url[512], cmd[16384], *org = NULL, *key, *evt, *dlv, *out;
    char *org_b = NULL, *key_b, *evt_b, others[2048];
    const char *sub_id;
    json_t *sub, *booking, *booking_b, *watch, *watch_b, *sub_b;
    we_hotel wh;
    e2e_resp *r;
    int rc;
    (void)state;
    if (!browser) {
        print_message("SKIPPED: Chromium is not installed (apt-get install chromium; "
                      "scripts/install-deps.sh does), so the dashboard was not tried in "
                      "a browser\n");
        skip();
    }
    repo_root(root, sizeof(root));
    snprintf(module, sizeof(module),
             "%s/tests/e2e/dashboard-browser/node_modules/puppeteer-core/package.json", root);
    if (access(module, R_OK) != 0) {
        fail_msg("puppeteer-core is not installed in tests/e2e/dashboard-browser "
                 "(make test runs npm ci there)");
    }

    /* An organization with a granted login and a delivered webhook. */
    key = e2e_new_org_key("owner", &org);
    dash_login_name(login, sizeof(login), "browser");
    dash_htpasswd(login, PW);
    dash_grant(org, login);
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    sub = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    sub_id = wh_str(sub, "id");
    evt = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_browser\"}}");
    dlv = wh_delivery_of(sub_id, evt);
    assert_non_null(dlv);
    json_decref(wh_wait_delivery(key, "flight", sub_id, dlv, "DELIVERED", 1, 30000));
    /* A confirmed flight booking (its supplier calls) with an event, and a
     * watch; the same in organization B, whose ids must never show. */
    booking = fe_ready(key, "SUPPLIER_A", "Browserson", NULL);
    r = fe_book(key, fe_s(booking, "id"), "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "flight book");
    e2e_free(r);
    snprintf(cmd, sizeof(cmd), "{\"booking\": {\"id\": \"%s\"}}", fe_s(booking, "id"));
    free(wh_emit(org, "flight.booking.confirmed", cmd));
    we_pick_hotel(key, 40, 42, 0, &wh);
    watch = we_price_watch(key, &wh, 40, 42, 1000, NULL);
    key_b = e2e_new_org_key("other", &org_b);
    booking_b = fe_ready(key_b, "SUPPLIER_A", "Browserson", NULL);
    snprintf(cmd, sizeof(cmd), "{\"booking\": {\"id\": \"%s\"}}", fe_s(booking_b, "id"));
    evt_b = wh_emit(org_b, "flight.booking.confirmed", cmd);
    watch_b = we_price_watch(key_b, &wh, 40, 42, 1000, NULL);
    {
        char inbox_b[128], url_b[512];
        wh_inbox(inbox_b, sizeof(inbox_b), url_b, sizeof(url_b));
        sub_b = wh_subscribe(key_b, "flight", url_b, "[\"flight.booking.confirmed\"]");
    }
    snprintf(others, sizeof(others), "%s,%s,%s,%s,%s", org_b, fe_s(booking_b, "id"), evt_b,
             fe_s(watch_b, "id"), wh_str(sub_b, "id"));

    snprintf(shots, sizeof(shots), "%s/artifacts/dashboard-browser", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(cmd, sizeof(cmd),
             "cd '%s/tests/e2e/dashboard-browser' && DASH_URL='%s" DASH_PATH "' API_URL='%s' "
             "SHOTS='%s' DELIVERY_ID='%s' SUBSCRIPTION_ID='%s' LOGIN='%s' PASSWORD='%s' "
             "CHROMIUM='%s' BOOKING_ID='%s' WATCH_ID='%s' OTHER_IDS='%s' "
             "HOME='%s' timeout 300 node drive.mjs 2>'%s/browser.log'",
             root, e2e_url(), e2e_url(), shots, dlv, sub_id, login, PW, browser,
             fe_s(booking, "id"), fe_s(watch, "id"), others,
             e2e_env("TRAVEL_TEST_DIR"), e2e_env("TRAVEL_TEST_DIR"));
    {
        FILE *f = popen(cmd, "r");
        char line[16384];
        assert_non_null(f);
        out = NULL;
        while (fgets(line, sizeof(line), f)) {
            free(out);
            out = strdup(line);
        }
        rc = pclose(f);
    }
    print_message("dashboard screenshots: %s\n", shots);
    if (rc != 0 || !out || !strstr(out, "\"ok\":true")) {
        fail_msg("the browser run failed (exit %d): %s (Chromium's log: %s/browser.log)",
                 rc, out ? out : "(no output)", e2e_env("TRAVEL_TEST_DIR"));
    }
    {
        /* Every step's screenshot exists. */
        static const char *const names[] = {"01-dashboard.png", "02-key-created.png",
                                            "03a-revoke-asked.png", "03-key-revoked.png",
                                            "04-delivery-replayed.png",
                                            "05-subscription-paused.png",
                                            "06-secret-rotated.png", "07-phone.png",
                                            "08-phone-question.png",
                                            "09-delivery-detail.png",
                                            "10-phone-delivery.png", "11-phone-list.png",
                                            "12-test-event.png", "13-booking-timeline.png",
                                            "14-charts.png", "15-phone-events.png",
                                            "16-phone-watches.png", "17-phone-booking.png",
                                            "18-phone-deliveries.png",
                                            NULL};
        int i;
        for (i = 0; names[i]; i++) {
            char path[1300];
            struct stat st;
            snprintf(path, sizeof(path), "%s/%s", shots, names[i]);
            assert_int_equal(stat(path, &st), 0);
            assert_true(st.st_size > 1000);
        }
    }
    free(out);
    json_decref(booking);
    json_decref(booking_b);
    json_decref(watch);
    json_decref(watch_b);
    json_decref(sub_b);
    free(evt_b);
    free(key_b);
    free(org_b);
    json_decref(sub);
    free(evt);
    free(dlv);
    free(key);
    free(org);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dashboard_in_a_browser),
    };
    return E2E_RUN("dashboard_browser", tests);
}
