/* Hotel prebook over real HTTP against the sandbox suppliers: an offer
 * bound to the contact and each room's guests becomes a READY_FOR_COMPLETE
 * booking (room_ and guest_ ids, no payments, the offer's expiry); the
 * x-idempotency-key makes a repeat answer the same booking (200) and a
 * different body under it a 409; bad input is a 422 naming the field and
 * stores nothing; a price the supplier changed since the offer binds and
 * is shown; a supplier that does not answer is a 5xx that frees the key. */
#include "hotel_e2e.h"

static char *key;
static char *org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-prebook", &org);
    return 0;
}

static long bookings_of_org(void)
{
    const char *p[] = {org};
    return e2e_sql_long("SELECT count(*) FROM hotel_bookings WHERE org_id = $1", 1, p);
}

static void prebook_binds_the_offer(const char *supplier)
{
    json_t *offer = he_offer(key, supplier, 0);
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), "trip-42", "Lovelace");
    char *idem = fe_new_key("hp");
    e2e_resp *r = he_prebook(key, idem, body), *again;
    const json_t *b, *rooms, *r0, *r1, *g;
    fe_expect(r, 201, "a prebook");
    b = fe_data(r);
    assert_true(strncmp(fe_s(b, "id"), "bkg_", 4) == 0);
    assert_string_equal(fe_s(b, "status"), "READY_FOR_COMPLETE");
    assert_string_equal(fe_s(b, "reference_id"), "trip-42");
    assert_string_equal(fe_s(b, "supplier"), supplier);
    assert_string_equal(fe_s(json_object_get(b, "hotel"), "id"), fe_s(offer, "hotel_id"));
    assert_non_null(fe_s(json_object_get(b, "hotel"), "name"));
    assert_string_equal(fe_s(b, "check_in"), fe_date(40));
    assert_string_equal(fe_s(b, "check_out"), fe_date(42));
    /* No price factor is set: the offer's price binds. */
    assert_int_equal(he_minor(json_object_get(b, "total")),
                     he_minor(json_object_get(offer, "total")));
    assert_null(json_object_get(json_object_get(r->json, "meta"), "price_change"));
    assert_int_equal(json_array_size(json_object_get(b, "payments")), 0);
    assert_non_null(fe_s(b, "offer_expires_at"));
    assert_true(json_is_null(json_object_get(b, "confirmed_at")));
    assert_string_equal(fe_s(json_object_get(b, "contact"), "email"), "ada@example.com");
    rooms = json_object_get(b, "rooms");
    assert_int_equal(json_array_size(rooms), 2);
    r0 = json_array_get(rooms, 0);
    r1 = json_array_get(rooms, 1);
    assert_true(strncmp(fe_s(r0, "id"), "room_", 5) == 0);
    assert_int_equal(json_integer_value(json_object_get(r0, "position")), 0);
    assert_int_equal(json_integer_value(json_object_get(r1, "position")), 1);
    assert_int_equal(json_integer_value(json_object_get(r1, "adults")), 1);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(r1, "children"), 0)), 5);
    assert_true(json_is_object(json_object_get(r0, "total")));
    assert_true(json_is_object(json_object_get(r0, "cancellation_policy")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r0, "cancellation_policy"),
                                                        "version")), 1);
    assert_true(json_array_size(json_object_get(json_object_get(r0, "cancellation_policy"),
                                                "penalties")) >= 1);
    assert_string_equal(fe_s(json_array_get(json_object_get(json_object_get(
                            r0, "cancellation_policy"), "penalties"), 0), "type"), "AMOUNT");
    assert_int_equal(json_array_size(json_object_get(r0, "guests")), 2);
    g = json_array_get(json_object_get(r0, "guests"), 0);
    assert_true(strncmp(fe_s(g, "id"), "guest_", 6) == 0);
    assert_true(json_is_true(json_object_get(g, "is_lead")));
    assert_string_equal(fe_s(json_array_get(json_object_get(r1, "guests"), 1), "type"), "CHILD");
    /* The room totals make up the booking's. */
    assert_int_equal(he_minor(json_object_get(r0, "total")) + he_minor(json_object_get(r1, "total")),
                     he_minor(json_object_get(b, "total")));

    /* The same key and body: the same booking, 200. */
    again = he_prebook(key, idem, body);
    fe_expect(again, 200, "a repeated prebook");
    assert_string_equal(fe_s(fe_data(again), "id"), fe_s(b, "id"));
    assert_true(json_equal(json_object_get(fe_data(again), "rooms"), rooms));
    e2e_free(again);
    /* The same key, another body: 409. */
    free(body);
    body = he_prebook_body(fe_s(offer, "offer_reference"), "trip-43", "Lovelace");
    again = he_prebook(key, idem, body);
    e2e_assert_error(again, 409, "idempotency_key_reused");
    e2e_free(again);
    e2e_free(r);
    free(body);
    free(idem);
    json_decref(offer);
}

static void a_prebook(void **state)
{
    (void)state;
    prebook_binds_the_offer("SUPPLIER_A");
}

static void b_prebook(void **state)
{
    (void)state;
    prebook_binds_the_offer("SUPPLIER_B");
}

static void c_prebook(void **state)
{
    (void)state;
    prebook_binds_the_offer("SUPPLIER_C");
}

/* A body with one substitution: at the first `from`, `to` instead. */
static char *edit(const char *body, const char *from, const char *to)
{
    const char *at = strstr(body, from);
    char *out;
    assert_non_null(at);
    out = malloc(strlen(body) + strlen(to) + 1);
    memcpy(out, body, (size_t)(at - body));
    strcpy(out + (at - body), to);
    strcat(out, at + strlen(from));
    return out;
}

static void expect_422(const char *idem, const char *body, const char *field)
{
    e2e_resp *r = he_prebook(key, idem, body);
    const json_t *d;
    size_t i;
    int seen = 0;
    e2e_assert_error(r, 422, "validation_failed");
    json_array_foreach(json_object_get(json_object_get(r->json, "error"), "details"), i, d) {
        if (strcmp(fe_s(d, "field"), field) == 0) {
            assert_non_null(fe_s(d, "reason"));
            seen = 1;
        }
    }
    if (!seen) {
        fail_msg("no detail for %s in %s", field, r->body);
    }
    e2e_free(r);
}

static void bad_input_changes_nothing(void **state)
{
    json_t *offer = he_offer(key, "SUPPLIER_B", 1);
    const char *ref = fe_s(offer, "offer_reference");
    char *good = he_prebook_body(ref, "trip-bad", "Lovelace"), *bad, *other_key;
    char long_key[202];
    long before = bookings_of_org();
    e2e_resp *r;
    (void)state;
    expect_422(NULL, good, "x-idempotency-key");
    memset(long_key, 'k', 201);
    long_key[201] = '\0';
    expect_422(long_key, good, "x-idempotency-key");
    /* Two leads in a room; a child lead; no lead. */
    bad = edit(good, "\"is_lead\":false}]}", "\"is_lead\":true}]}");
    expect_422("bad-1", bad, "rooms[0].guests");
    free(bad);
    bad = edit(good, "\"type\":\"CHILD\",\"is_lead\":false", "\"type\":\"CHILD\",\"is_lead\":true");
    expect_422("bad-2", bad, "rooms[1].guests[1].is_lead");
    free(bad);
    /* Three adults in a room priced for two. */
    bad = edit(good, "\"is_lead\":false}]}", "\"is_lead\":false},{\"first_name\":\"Ed\","
               "\"last_name\":\"X\",\"type\":\"ADULT\",\"is_lead\":false}]}");
    expect_422("bad-3", bad, "rooms[0].guests");
    free(bad);
    /* One room for a two-room offer. */
    {
        const char *second = strstr(good, ",{\"guests\":[{\"first_name\":\"Cy\"");
        assert_non_null(second);
        bad = malloc(strlen(good) + 1);
        memcpy(bad, good, (size_t)(second - good));
        strcpy(bad + (second - good), "]}");
        expect_422("bad-9", bad, "rooms");
        free(bad);
    }
    bad = edit(good, "\"email\":\"ada@example.com\"", "\"email\":\"not-an-address\"");
    expect_422("bad-4", bad, "contact.email");
    free(bad);
    bad = edit(good, "\"reference_id\":\"trip-bad\",", "");
    expect_422("bad-5", bad, "reference_id");
    free(bad);
    bad = edit(good, "\"rooms\":", "\"rooms_x\":[],\"rooms\":");
    expect_422("bad-6", bad, "rooms_x");
    free(bad);
    /* An edited reference, and another organization's. */
    {
        char *edited = strdup(ref);
        edited[strlen(edited) / 2] = edited[strlen(edited) / 2] == 'A' ? 'B' : 'A';
        bad = edit(good, ref, edited);
        expect_422("bad-7", bad, "offer_reference");
        free(bad);
        free(edited);
    }
    other_key = e2e_new_org_key("hotel-prebook-other", NULL);
    r = he_prebook(other_key, "bad-8", good);
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    assert_int_equal(bookings_of_org(), before);
    free(good);
    free(other_key);
    json_decref(offer);
}

static void a_changed_price_binds_and_shows(void **state)
{
    json_t *offer = he_offer(key, "SUPPLIER_B", 2);
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), "trip-price", "Lovelace");
    char ctl[256];
    e2e_resp *r;
    const json_t *pc;
    (void)state;
    snprintf(ctl, sizeof(ctl), "{\"supplier\":\"SUPPLIER_B\",\"supplier_hotel_id\":\"%s\","
             "\"factor\":1.5}", fe_s(offer, "supplier_hotel_id"));
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices",
                 (const char *[]){"Content-Type: application/json", NULL}, ctl);
    fe_expect(r, 200, "a sandbox price factor");
    e2e_free(r);
    r = he_prebook(key, "price-1", body);
    e2e_free(e2e_call(e2e_sandbox_url(), "DELETE", "/sandbox/hotel-prices", NULL, NULL));
    fe_expect(r, 201, "a prebook at a changed price");
    pc = json_object_get(json_object_get(r->json, "meta"), "price_change");
    assert_non_null(pc);
    assert_int_equal(he_minor(json_object_get(pc, "offer_total")),
                     he_minor(json_object_get(offer, "total")));
    assert_int_equal(he_minor(json_object_get(pc, "total")),
                     he_minor(json_object_get(fe_data(r), "total")));
    assert_true(he_minor(json_object_get(fe_data(r), "total"))
                > he_minor(json_object_get(offer, "total")));
    e2e_free(r);
    free(body);
    json_decref(offer);
}

/* The supplier does not answer: 5xx, nothing kept, the key free again. */
static void supplier_failure_frees_the_key(void **state)
{
    json_t *offer = he_offer(key, "SUPPLIER_A", 1);
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), "trip-fault", "Lovelace");
    char *rid = fe_rid("hpf", "prebook"), hdr[300], kh[300];
    long before = bookings_of_org();
    e2e_resp *r;
    (void)state;
    fe_fault("hotel_a", rid, "\"method\":\"POST\",\"path\":\"/book/v3.0/rates/prebook\","
             "\"status\":503,\"times\":null");
    snprintf(hdr, sizeof(hdr), "x-request-id: %s", rid);
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(e2e_url(), "POST", "/v1/hotel/prebook",
                 (const char *[]){kh, "Content-Type: application/json", hdr,
                                  "x-idempotency-key: fault-1", NULL}, body);
    e2e_assert_error(r, 502, "supplier_error");
    e2e_free(r);
    assert_int_equal(bookings_of_org(), before);
    fe_fault_clear(rid);
    r = he_prebook(key, "fault-1", body);
    fe_expect(r, 201, "the prebook again under the freed key");
    e2e_free(r);
    free(body);
    free(rid);
    json_decref(offer);
}

/* A prebook whose request died holds its key PREBOOK_IN_PROGRESS: a repeat
 * waits for it as long as its calls could take, then takes the key over
 * (a new booking, 201) instead of answering 409 for ever. */
static void a_dead_prebook_frees_its_key(void **state)
{
    json_t *offer = he_offer(key, "SUPPLIER_C", 2);
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), "trip-dead", "Lovelace");
    const char *p[1];
    char *first;
    e2e_resp *r;
    (void)state;
    r = he_prebook(key, "dead-1", body);
    fe_expect(r, 201, "a prebook");
    first = strdup(fe_s(fe_data(r), "id"));
    e2e_free(r);
    /* As if its request had died mid-way an hour ago. */
    p[0] = first;
    e2e_sql_exec("UPDATE hotel_bookings SET status = 'PREBOOK_IN_PROGRESS', "
                 "created_at = now() - interval '1 hour' WHERE id = $1", 1, p);
    r = he_prebook(key, "dead-1", body);
    fe_expect(r, 201, "the key taken over");
    assert_string_not_equal(fe_s(fe_data(r), "id"), first);
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_bookings WHERE id = $1", 1, p), 0);
    e2e_free(r);
    free(first);
    free(body);
    json_decref(offer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_prebook),
        cmocka_unit_test(b_prebook),
        cmocka_unit_test(c_prebook),
        cmocka_unit_test(bad_input_changes_nothing),
        cmocka_unit_test(a_changed_price_binds_and_shows),
        cmocka_unit_test(supplier_failure_frees_the_key),
        cmocka_unit_test(a_dead_prebook_frees_its_key),
    };
    (void)setup;
    if (setup(NULL) != 0) {
        return 1;
    }
    return E2E_RUN("hotel_prebook", tests);
}
