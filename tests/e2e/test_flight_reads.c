/* Reads are reads: GET of a booking and of the list write nothing (no
 * UPDATE, no job, no rendering: the render job queued by each change
 * stores those); a cold read (nothing stored) answers what the stored
 * rendering says, byte for byte; what time decides (expiry) shows at once
 * all the same; a warm read is the stored rendering of the booking's
 * current revision, never an older one; and a cached API key stops working
 * on every instance as soon as the revocation's notification arrives. */
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

static long docs_of(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_long("SELECT count(*) FROM flight_booking_docs WHERE booking_id = $1", 1, p);
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
    /* Read once while it can still be booked. */
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "reading");
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    e2e_free(r);
    /* Its time runs out; the expiry job is not due yet (it is due at the
     * original expires_at), so only reading can tell. */
    e2e_sql_exec("UPDATE flight_bookings SET expires_at = now() - interval '1 minute' "
                 "WHERE id = $1", 1, p);
    /* The change's render job keeps nothing for a booking time has
     * changed; once it is gone, nothing but a read could write. */
    fe_wait_rendered(id, 30000);
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

static char *stored_doc(const char *id, const char *col)
{
    const char *p[1] = {id};
    char sql[300];
    snprintf(sql, sizeof(sql), "SELECT d.%s FROM flight_booking_docs d JOIN flight_bookings b "
             "ON b.id = d.booking_id AND b.revision = d.revision WHERE d.booking_id = $1",
             col);
    return e2e_sql_text(sql, 1, p);
}

/* A booking with nothing stored (its renderings deleted once its render
 * job had run, so nothing else will write them): GET and the list answer
 * exactly what was stored, and write nothing at all. Before reads were
 * reads, the first GET stored the renderings again. */
static void cold_read_writes_nothing(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Cold", NULL);
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *doc, *list_doc, *before, *after;
    long jobs;
    int i;
    e2e_resp *r;
    (void)state;
    fe_wait_rendered(id, 30000);
    doc = stored_doc(id, "doc");
    list_doc = stored_doc(id, "list_doc");
    assert_non_null(doc);
    assert_non_null(list_doc);
    e2e_sql_exec("DELETE FROM flight_booking_docs WHERE booking_id = $1", 1, p);
    before = row_state(id);
    jobs = jobs_of(id);
    for (i = 0; i < 3; i++) {
        r = fe_get(key, id, NULL);
        fe_expect(r, 200, "a cold read");
        assert_non_null(strstr(r->body, doc));
        e2e_free(r);
        r = e2e_get(key, "/v1/flight/bookings?limit=100");
        fe_expect(r, 200, "a cold list");
        assert_non_null(strstr(r->body, list_doc));
        e2e_free(r);
    }
    after = row_state(id);
    assert_string_equal(before, after);
    assert_int_equal(jobs_of(id), jobs);
    assert_int_equal(docs_of(id), 0);
    free(doc);
    free(list_doc);
    free(before);
    free(after);
    json_decref(b);
}

static void warm_read_is_the_current_revision(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_B", "Warm", NULL);
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *stored;
    long rev;
    e2e_resp *r;
    (void)state;
    /* The prebook's render job stores the renderings of its revision. */
    fe_wait_rendered(id, 30000);
    stored = stored_doc(id, "doc");
    assert_non_null(stored);
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "warm read");
    /* It is the stored text. */
    assert_non_null(strstr(r->body, stored));
    e2e_free(r);
    free(stored);
    /* Any change raises the revision: the next read is never the old text,
     * whether its render job has run yet or not ... */
    rev = fe_docs_revision(id);
    e2e_sql_exec("UPDATE flight_bookings SET airline_pnr = 'WARM42' WHERE id = $1", 1, p);
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "read after a change");
    assert_string_equal(fe_s(fe_data(r), "airline_pnr"), "WARM42");
    e2e_free(r);
    /* ... and the change's render job stores the new revision. */
    fe_wait_rendered(id, 30000);
    assert_true(fe_docs_revision(id) > rev);
    stored = stored_doc(id, "doc");
    assert_non_null(stored);
    assert_non_null(strstr(stored, "WARM42"));
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "warm read after the change");
    assert_non_null(strstr(r->body, stored));
    e2e_free(r);
    free(stored);
    json_decref(b);
}

/* ---- the usual page, kept whole (sql/047) ---- */

static char *head_key, *head_org;

static long head_current(void)
{
    const char *p[1] = {head_org};
    return e2e_sql_long("SELECT count(*) FROM flight_list_heads WHERE org_id = $1 "
                        "AND page_gen = gen", 1, p);
}

/* Bounded: the render jobs of the owner's last change have run and one of
 * them has kept the page of the current gen. */
static void wait_head(void)
{
    long start = e2e_now_ms();
    while (!head_current()) {
        if (e2e_now_ms() - start > 30000) {
            fail_msg("the list page of %s was not kept in 30 s", head_org);
        }
        e2e_sleep_ms(50);
    }
}

static e2e_resp *usual_page(void)
{
    e2e_resp *r = e2e_get(head_key, "/v1/flight/bookings");
    fe_expect(r, 200, "the usual list page");
    return r;
}

/* The same bookings through the statement that joins each page (a
 * created_from filter is never kept whole). */
static e2e_resp *joined_page(void)
{
    e2e_resp *r = e2e_get(head_key, "/v1/flight/bookings?created_from=2000-01-01T00:00:00Z");
    fe_expect(r, 200, "the list page with a filter");
    return r;
}

/* Marks the kept page, so an answer shows whether it was served. */
static void mark_head(void)
{
    const char *p[1] = {head_org};
    e2e_sql_exec("UPDATE flight_list_heads SET page = replace(page, 'Headcase', 'Keptcase') "
                 "WHERE org_id = $1", 1, p);
}

static void usual_page_is_kept_whole_and_current(void **state)
{
    json_t *a, *b;
    const char *p[1];
    e2e_resp *r, *j;
    char *same;
    (void)state;
    head_key = e2e_new_org_key("header", &head_org);
    p[0] = head_org;
    a = fe_ready(head_key, "SUPPLIER_A", "Headcase", NULL);
    b = fe_ready(head_key, "SUPPLIER_B", "Headcase", NULL);
    fe_wait_rendered(fe_s(a, "id"), 30000);
    fe_wait_rendered(fe_s(b, "id"), 30000);
    wait_head();
    /* What the kept page answers is what the joined page answers. */
    r = usual_page();
    j = joined_page();
    assert_true(json_equal(r->json, j->json));
    assert_int_equal(json_array_size(fe_data(r)), 2);
    e2e_free(r);
    e2e_free(j);
    /* Kept with the first time a booking on it reads as EXPIRED. */
    same = e2e_sql_text("SELECT (h.valid_until = (SELECT min(b.expires_at) FROM flight_bookings b "
                        "WHERE b.org_id = h.org_id AND b.status = 'READY_FOR_COMPLETE'))::text "
                        "FROM flight_list_heads h WHERE h.org_id = $1", 1, p);
    assert_string_equal(same, "true");
    free(same);
    /* It is what the list serves ... */
    mark_head();
    r = usual_page();
    assert_non_null(strstr(r->body, "Keptcase"));
    e2e_free(r);
    /* ... until a booking of the owner changes: from that commit on, not
     * once its render job has run. */
    p[0] = fe_s(a, "id");
    e2e_sql_exec("UPDATE flight_bookings SET airline_pnr = 'HEAD42' WHERE id = $1", 1, p);
    r = usual_page();
    assert_null(strstr(r->body, "Keptcase"));
    assert_non_null(strstr(r->body, "HEAD42"));
    e2e_free(r);
    /* The change's render job keeps the page again, with the change. */
    fe_wait_rendered(fe_s(a, "id"), 30000);
    wait_head();
    p[0] = head_org;
    same = e2e_sql_text("SELECT (position('HEAD42' in page) > 0)::text FROM flight_list_heads "
                        "WHERE org_id = $1", 1, p);
    assert_string_equal(same, "true");
    free(same);
    r = usual_page();
    j = joined_page();
    assert_true(json_equal(r->json, j->json));
    e2e_free(r);
    e2e_free(j);
    json_decref(a);
    json_decref(b);
}

/* A kept page whose first READY_FOR_COMPLETE booking has run out of time
 * is not served (that booking reads as EXPIRED with nothing changed);
 * other pages than the usual one never come from it. */
static void usual_page_past_its_time_is_not_served(void **state)
{
    const char *p[1];
    e2e_resp *r;
    (void)state;
    assert_non_null(head_org);
    p[0] = head_org;
    wait_head();
    mark_head();
    r = e2e_get(head_key, "/v1/flight/bookings?limit=19");
    fe_expect(r, 200, "a page of another size");
    assert_null(strstr(r->body, "Keptcase"));
    e2e_free(r);
    r = e2e_get(head_key, "/v1/flight/bookings?limit=20&sort_by=created_at&sort_order=desc");
    fe_expect(r, 200, "the usual page, spelled out");
    assert_non_null(strstr(r->body, "Keptcase"));
    e2e_free(r);
    e2e_sql_exec("UPDATE flight_list_heads SET valid_until = now() - interval '1 second' "
                 "WHERE org_id = $1", 1, p);
    r = usual_page();
    assert_null(strstr(r->body, "Keptcase"));
    assert_non_null(strstr(r->body, "Headcase"));
    e2e_free(r);
}

/* The page is written only from renderings of each booking's current
 * revision, and only at the gen it was built from. */
static void usual_page_is_kept_only_when_current(void **state)
{
    const char *p[1], *q[1];
    char *first;
    long page_gen;
    (void)state;
    assert_non_null(head_org);
    p[0] = head_org;
    wait_head();
    first = e2e_sql_text("SELECT b.id FROM flight_bookings b WHERE b.org_id = $1 "
                         "ORDER BY b.created_at DESC, b.id DESC LIMIT 1", 1, p);
    /* A rendering behind its booking, and a change the trigger counted
     * (without queueing a render job that would repair it). */
    q[0] = first;
    e2e_sql_exec("UPDATE flight_booking_docs SET revision = revision - 1 WHERE booking_id = $1",
                 1, q);
    e2e_sql_exec("UPDATE flight_list_heads SET gen = gen + 1 WHERE org_id = $1", 1, p);
    page_gen = e2e_sql_long("SELECT page_gen FROM flight_list_heads WHERE org_id = $1", 1, p);
    e2e_sql_exec("SELECT flight_list_head_keep(org_id, user_id) FROM flight_list_heads "
                 "WHERE org_id = $1", 1, p);
    assert_int_equal(head_current(), 0);
    assert_int_equal(e2e_sql_long("SELECT page_gen FROM flight_list_heads WHERE org_id = $1",
                                  1, p), page_gen);
    /* With the rendering current again it is kept. */
    e2e_sql_exec("UPDATE flight_booking_docs SET revision = revision + 1 WHERE booking_id = $1",
                 1, q);
    e2e_sql_exec("SELECT flight_list_head_keep(org_id, user_id) FROM flight_list_heads "
                 "WHERE org_id = $1", 1, p);
    assert_int_equal(head_current(), 1);
    free(first);
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

/* get_on for e2e_until_steady: on = {base, key}. */
static long status_on(void *on)
{
    const char *const *b = on;
    return get_on(b[0], b[1]);
}

static void revocation_is_at_once_on_every_instance(void **state)
{
    const char *bases[2] = {e2e_url(), e2e_env("TRAVEL_TEST_URL_B")};
    char *k = e2e_new_key(org, "soon-revoked"), *key_id, *out;
    const char *p[1] = {org};
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
    for (j = 0; j < 2; j++) {
        const char *on[2] = {bases[j], k};
        if (!e2e_until_steady(status_on, on, 401, 2000)) {
            fail_msg("instance %d still took the revoked key after 2 s", j);
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
        cmocka_unit_test_setup(cold_read_writes_nothing, setup),
        cmocka_unit_test_setup(warm_read_is_the_current_revision, setup),
        cmocka_unit_test_setup(revocation_is_at_once_on_every_instance, setup),
        cmocka_unit_test(usual_page_is_kept_whole_and_current),
        cmocka_unit_test(usual_page_past_its_time_is_not_served),
        cmocka_unit_test(usual_page_is_kept_only_when_current),
    };
    return E2E_RUN("flight reads", tests);
}
