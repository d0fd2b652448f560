/* Reads are reads: GET of a booking and of the list write nothing (no
 * UPDATE, no job); what time decides (expiry) shows at once all the same;
 * a warm read is the stored rendering of the booking's current revision,
 * never an older one; and a cached API key stops working on every instance
 * as soon as the revocation's notification arrives. */
#include "flight_e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    if (!key) {
        key = e2e_new_org_key("reader", &org);
    }
    return 0;
}

static long jobs_of(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_long("SELECT count(*) FROM jobs WHERE payload->>'id' = $1", 1, p);
}

static char *row_state(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_text("SELECT status || ' ' || revision || ' ' || updated_at "
                        "FROM flight_bookings WHERE id = $1", 1, p);
}

static int listed(const char *query, const char *id)
{
    char path[256];
    e2e_resp *r;
    size_t i;
    int found = 0;
    snprintf(path, sizeof(path), "/v1/flight/bookings?limit=100%s", query);
    r = e2e_get(key, path);
    fe_expect(r, 200, "listing");
    for (i = 0; i < json_array_size(fe_data(r)); i++) {
        found |= strcmp(fe_s(json_array_get(fe_data(r), i), "id"), id) == 0;
    }
    e2e_free(r);
    return found;
}

static void expiry_shows_at_once_and_reads_store_nothing(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_B", "Reader", NULL);
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *before, *after;
    long jobs;
    int i;
    e2e_resp *r;
    (void)state;
    /* Read once while it can still be booked: renderings are kept. */
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "reading");
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    e2e_free(r);
    /* Its time runs out; the expiry job is not due yet (it is due at the
     * original expires_at), so only reading can tell. */
    e2e_sql_exec("UPDATE flight_bookings SET expires_at = now() - interval '1 minute' "
                 "WHERE id = $1", 1, p);
    before = row_state(id);
    jobs = jobs_of(id);
    for (i = 0; i < 3; i++) {
        r = fe_get(key, id, NULL);
        fe_expect(r, 200, "reading the expired booking");
        assert_string_equal(fe_s(fe_data(r), "status"), "EXPIRED");
        assert_null(json_object_get(fe_data(r), "expires_at"));
        e2e_free(r);
    }
    assert_true(listed("&status=EXPIRED", id));
    assert_false(listed("&status=READY_FOR_COMPLETE", id));
    assert_true(listed("", id));
    after = row_state(id);
    /* Nothing was written: same stored status, revision and updated_at. */
    assert_string_equal(before, after);
    assert_int_equal(jobs_of(id), jobs);
    assert_int_equal(strncmp(after, "READY_FOR_COMPLETE ", 19), 0);
    free(before);
    free(after);
    json_decref(b);
}

static void warm_read_is_the_current_revision(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_B", "Warm", NULL);
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *cold, *stored;
    e2e_resp *r;
    (void)state;
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "first read");
    cold = strdup(r->body);
    e2e_free(r);
    stored = e2e_sql_text("SELECT d.doc FROM flight_booking_docs d JOIN flight_bookings b "
                          "ON b.id = d.booking_id AND b.revision = d.revision "
                          "WHERE d.booking_id = $1", 1, p);
    assert_non_null(stored);
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "warm read");
    /* The same answer, byte for byte, and it is the stored text. */
    assert_string_equal(r->body, cold);
    assert_non_null(strstr(r->body, stored));
    e2e_free(r);
    /* Any change raises the revision: the next read is never the old text. */
    e2e_sql_exec("UPDATE flight_bookings SET airline_pnr = 'WARM42' WHERE id = $1", 1, p);
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "read after a change");
    assert_string_equal(fe_s(fe_data(r), "airline_pnr"), "WARM42");
    e2e_free(r);
    free(cold);
    free(stored);
    json_decref(b);
}

static long get_on(const char *base, const char *k)
{
    char hdr[300];
    const char *hdrs[2] = {hdr, NULL};
    e2e_resp *r;
    long st;
    snprintf(hdr, sizeof(hdr), "x-api-key: %s", k);
    r = e2e_call(base, "GET", "/v1/flight/bookings?limit=1", hdrs, NULL);
    st = r->status;
    e2e_free(r);
    return st;
}

static void revocation_is_at_once_on_every_instance(void **state)
{
    const char *bases[2] = {e2e_url(), e2e_env("TRAVEL_TEST_URL_B")};
    char *k = e2e_new_key(org, "soon-revoked"), *key_id, *out;
    const char *p[1] = {org};
    long start;
    int i, j;
    (void)state;
    /* Enough requests that every child of both instances has seen (and
     * cached) the key. */
    for (j = 0; j < 2; j++) {
        for (i = 0; i < 12; i++) {
            assert_int_equal(get_on(bases[j], k), 200);
        }
    }
    key_id = e2e_sql_text("SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id "
                          "WHERE k.org_id = $1 AND u.name = 'soon-revoked'", 1, p);
    assert_non_null(key_id);
    out = e2e_travelctl("key revoke %s", key_id);
    assert_non_null(out);
    /* The revocation reaches each child as a notification from the
     * database, delivered at commit: milliseconds, unless the scheduler of
     * a loaded machine holds the notifying process back. Bounded: within
     * 2 s every child of both instances refuses the key, for good. */
    start = e2e_now_ms();
    for (j = 0; j < 2; j++) {
        while (get_on(bases[j], k) != 401) {
            if (e2e_now_ms() - start > 2000) {
                fail_msg("instance %d still took the revoked key after 2 s", j);
            }
            e2e_sleep_ms(10);
        }
    }
    for (j = 0; j < 2; j++) {
        for (i = 0; i < 12; i++) {
            assert_int_equal(get_on(bases[j], k), 401);
        }
    }
    /* Other keys are still answered (from the database, then cached). */
    for (j = 0; j < 2; j++) {
        assert_int_equal(get_on(bases[j], key), 200);
    }
    free(out);
    free(key_id);
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(expiry_shows_at_once_and_reads_store_nothing, setup),
        cmocka_unit_test_setup(warm_read_is_the_current_revision, setup),
        cmocka_unit_test_setup(revocation_is_at_once_on_every_instance, setup),
    };
    return E2E_RUN("flight reads", tests);
}
