/* Airline-initiated changes: when the airline changes a booked flight (the
 * sandbox records a schedule change on the order), the scheduled read of
 * the confirmed order brings the change in beside journeys, with the event
 * flight.booking.airline_initiated_change. Nobody reads the booking while
 * waiting: the change is found without readers. */
#include "flight_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("traveller", NULL);
    return 0;
}

static void schedule_change_shows_on_the_booking(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *changes = NULL;
    const char *id = fe_s(b, "id");
    char path[512];
    long start;
    e2e_resp *r;
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    (void)state;
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "airline_initiated_changes")), 0);
    snprintf(path, sizeof(path), "/sandbox/orders/%s/airline-initiated-changes",
             fe_s(fe_data(r), "supplier_reference"));
    e2e_free(r);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, "{\"delay_minutes\":95}");
    if (r->status != 200 && r->status != 201) {
        fail_msg("recording a change: %ld %s", r->status, r->body);
    }
    e2e_free(r);
    start = e2e_now_ms();
    while (fe_events(id, "flight.booking.airline_initiated_change") == 0) {
        if (e2e_now_ms() - start > 30000) {
            fail_msg("the change was never found for %s", id);
        }
        e2e_sleep_ms(250);
    }
    r = fe_get(key, id, NULL);
    fe_expect(r, 200, "reading the changed booking");
    changes = json_incref(json_object_get(fe_data(r), "airline_initiated_changes"));
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    e2e_free(r);
    assert_int_equal(json_array_size(changes), 1);
    assert_int_equal(fe_events(id, "flight.booking.airline_initiated_change"), 1);
    json_decref(changes);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(schedule_change_shows_on_the_booking, setup),
    };
    return E2E_RUN("flight airline-initiated changes", tests);
}
