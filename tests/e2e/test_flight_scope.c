/* Flight bookings belong to their organization and user: another user of
 * the same organization, and another organization, get a 404 on every
 * booking route (read, book, cancel, quote) and see nothing in the list,
 * and nothing changes. */
#include "flight_e2e.h"

static char *key, *org, *same_org_other_user, *other_org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("owner", &org);
    same_org_other_user = e2e_new_key(org, "colleague");
    other_org = e2e_new_org_key("owner", NULL);
    return 0;
}

static void every_route_is_404(const char *who, const char *id)
{
    char path[256];
    e2e_resp *r;
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s", id);
    r = e2e_get(who, path);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/book", id);
    r = e2e_post(who, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/cancel", id);
    r = e2e_post(who, path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/cancellation-quote", id);
    r = e2e_get(who, path);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = e2e_get(who, "/v1/flight/bookings");
    fe_expect(r, 200, "list");
    assert_null(strstr(r->body, id));
    e2e_free(r);
}

static void ready_booking_is_private(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    const char *id = fe_s(b, "id");
    e2e_resp *r;
    (void)state;
    every_route_is_404(same_org_other_user, id);
    every_route_is_404(other_org, id);
    /* Nothing changed: still bookable by its owner. */
    r = fe_get(key, id, NULL);
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    e2e_free(r);
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "the owner books");
    e2e_free(r);
    /* Confirmed, it is still private. */
    every_route_is_404(same_org_other_user, id);
    every_route_is_404(other_org, id);
    r = fe_get(key, id, NULL);
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    e2e_free(r);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(ready_booking_is_private, setup),
    };
    return E2E_RUN("flight booking scope", tests);
}
