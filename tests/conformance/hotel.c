/* The conformance kit's hotel checks (conformance.c says how it runs):
 * the protocol's check call, search, offers, an unknown booking; then
 * prebook, book, read (by id and by client reference), preview and
 * cancel, each on what the step before it made. */
#include "kit.h"
#include "hotel/supplier.h"

#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    trv_hotel_stay stay;
    const char *sid, *ref;
    int have_offer;
    trv_hotel_prebooked pb;
    int prebooked;
    const char *booking_id, *client_reference;
} ho;

static trv_hotel_ctx hctx(void)
{
    trv_hotel_ctx c;
    memset(&c, 0, sizeof(c));
    c.env = &kit_env;
    c.pool = kit_pool;
    c.request_id = kit_rid;
    c.up = &kit_up;
    /* The contact the kit books with, as the gateway passes a booking's
     * (Expedia Rapid finds an itinerary by reference only with it). */
    c.contact_email = "ada@example.com";
    return c;
}

static const trv_hotel_supplier *hsup(void)
{
    return kit_row->adapter;
}

static void hotel_check(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_up_result res;
    (void)state;
    if (!hsup()->check) {
        skip();
    }
    kit_want(hsup()->check(&c, &res), TRV_UP_OK, "check (one authenticated call)", &res.code,
             &res.message);
}

static void hotel_search(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    const char *city = kit_env_or("CONFORMANCE_CITY", "London,GB"), *comma = strchr(city, ',');
    const char *proto = getenv("PROTOCOL");
    /* Duffel Stays searches around a point only (its adapter finds a city's
     * point in the gateway's place catalogue, a database the kit has not)
     * and prices in the property's currency: London's point, in GBP. */
    int stays = proto && strcmp(proto, "duffel-stays") == 0 && !getenv("CONFORMANCE_CITY");
    trv_hotel_area area = {comma ? apr_pstrndup(kit_root, city, (apr_size_t)(comma - city)) : city,
                           comma ? comma + 1 : "GB", 0, 0, 0, 0};
    apr_array_header_t *found = NULL;
    int i, priced = 0;
    (void)state;
    if (stays) {
        area.by_point = 1;
        area.latitude = 51.5072;
        area.longitude = -0.1276;
        area.radius_m = 20000;
    }
    memset(&ho.stay, 0, sizeof(ho.stay));
    ho.stay.check_in = kit_date_ahead(kit_days);
    ho.stay.check_out = kit_date_ahead(kit_days + 2);
    ho.stay.nights = 2;
    ho.stay.n_rooms = 1;
    ho.stay.rooms[0].adults = 2;
    apr_cpystrn(ho.stay.currency, kit_env_or("CONFORMANCE_CURRENCY", stays ? "GBP" : "EUR"), 4);
    ho.stay.nationality = "GB";
    ho.stay.residence = "GB";
    kit_want(hsup()->search(&c, &area, &ho.stay, &found, &err), TRV_UP_OK, "search", &err.code,
             &err.message);
    for (i = 0; found && i < found->nelts; i++) {
        const trv_hotel_found *f = &APR_ARRAY_IDX(found, i, trv_hotel_found);
        assert_non_null(f->sid);
        assert_non_null(f->name);
        if (f->priced) {
            assert_true(f->total_minor > 0);
            if (!priced++) {
                ho.sid = apr_pstrdup(kit_root, f->sid);
            }
        }
    }
    if (!priced) {
        fail_msg("search %s, %s: no hotel priced for %s..%s", area.city, area.country_code,
                 ho.stay.check_in, ho.stay.check_out);
    }
    printf("    %d hotels, %d priced\n", found->nelts, priced);
}

static void hotel_offers(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    apr_array_header_t *offers = NULL;
    int i;
    (void)state;
    if (!ho.sid) {
        skip();
    }
    kit_want(hsup()->offers(&c, &ho.stay, &ho.sid, 1, 3, &offers, &err), TRV_UP_OK, "offers",
             &err.code, &err.message);
    if (!offers || !offers->nelts) {
        fail_msg("offers of hotel %s: none", ho.sid);
    }
    for (i = 0; i < offers->nelts; i++) {
        const trv_hotel_offer *o = &APR_ARRAY_IDX(offers, i, trv_hotel_offer);
        assert_string_equal(o->sid, ho.sid);
        assert_non_null(o->ref);
        assert_true(o->total_minor > 0);
        assert_true(o->expires_at > apr_time_now());
        assert_int_equal(json_array_size(json_object_get(o->doc, "rooms")), 1);
        assert_true(json_is_object(json_object_get(o->doc, "cancellation_policy")));
    }
    ho.ref = apr_pstrdup(kit_root, APR_ARRAY_IDX(offers, 0, trv_hotel_offer).ref);
    ho.have_offer = 1;
    printf("    %d offers of hotel %s\n", offers->nelts, ho.sid);
}

static void hotel_unknown_booking(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_booked out;
    (void)state;
    memset(&out, 0, sizeof(out));
    kit_want(hsup()->retrieve(&c, "conformance-unknown-booking", NULL, &out, &err),
             TRV_UP_NOT_FOUND, "reading an unknown booking", &err.code, &err.message);
}

static void hotel_prebook(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    (void)state;
    if (!ho.have_offer || !kit_booking || !hsup()->prebook) {
        skip();
    }
    kit_want(hsup()->prebook(&c, &ho.stay, ho.sid, ho.ref, &ho.pb, &err), TRV_UP_OK, "prebook",
             &err.code, &err.message);
    assert_non_null(ho.pb.prebook_id);
    assert_true(ho.pb.total_minor > 0);
    assert_true(ho.pb.expires_at > apr_time_now());
    ho.pb.prebook_id = apr_pstrdup(kit_root, ho.pb.prebook_id);
    ho.prebooked = 1;
}

static void hotel_book(void **state)
{
    static trv_hotel_guest guests[2] = {{"Ada", "Conformance", 1, 0},
                                        {"Bo", "Conformance", 0, 0}};
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_party party;
    trv_hotel_book_req rq;
    trv_hotel_booked out;
    (void)state;
    if (!ho.prebooked) {
        skip();
    }
    memset(&party, 0, sizeof(party));
    party.first_name = "Ada";
    party.last_name = "Conformance";
    party.email = "ada@example.com";
    party.phone = "+442079460000";
    party.n_rooms = 1;
    party.n_guests[0] = 2;
    party.guests[0] = guests;
    memset(&rq, 0, sizeof(rq));
    rq.stay = &ho.stay;
    rq.sid = ho.sid;
    rq.prebook_id = ho.pb.prebook_id;
    rq.total_minor = ho.pb.total_minor;
    ho.client_reference = apr_psprintf(kit_root, "conf-%d-%ld", (int)getpid(), (long)time(NULL));
    rq.client_reference = ho.client_reference;
    rq.party = &party;
    /* A supplier that charges the traveller gets the card from the payment
     * provider's vault, never from us. */
    if (trv_supplier_can(kit_row, TRV_SUP_COLLECTS_PAYMENT)) {
        if (!kit_cfg.payment) {
            fail_msg("%s charges the traveller: set PAYMENT_URL and PAYMENT_KEY",
                     kit_up.protocol);
        }
        rq.payment_instrument_id = kit_instrument;
    }
    rq.idempotency_key = apr_pstrcat(kit_pool, kit_rid, ":book", NULL);
    memset(&out, 0, sizeof(out));
    kit_want(hsup()->book(&c, &rq, &out, &err), TRV_UP_OK, "book", &err.code, &err.message);
    assert_non_null(out.booking_id);
    if (!out.status || (strcmp(out.status, "CONFIRMED") != 0
                        && strcmp(out.status, "PENDING") != 0)) {
        fail_msg("book: status %s", out.status ? out.status : "(absent)");
    }
    ho.booking_id = apr_pstrdup(kit_root, out.booking_id);
    printf("    booking %s %s\n", out.booking_id, out.status);
}

static void hotel_read(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_booked out;
    (void)state;
    if (!ho.booking_id) {
        skip();
    }
    memset(&out, 0, sizeof(out));
    kit_want(hsup()->retrieve(&c, ho.booking_id, NULL, &out, &err), TRV_UP_OK,
             "reading the booking by its id", &err.code, &err.message);
    assert_string_equal(out.booking_id, ho.booking_id);
    /* How a booking whose answer was lost is found again. */
    memset(&out, 0, sizeof(out));
    kit_want(hsup()->retrieve(&c, NULL, ho.client_reference, &out, &err), TRV_UP_OK,
             "reading the booking by the client reference", &err.code, &err.message);
    assert_string_equal(out.booking_id, ho.booking_id);
}

static void hotel_cancel(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_canceled out;
    trv_hotel_booked after;
    (void)state;
    if (!ho.booking_id) {
        skip();
    }
    if (hsup()->cancel_preview) {
        trv_hotel_preview pv;
        memset(&pv, 0, sizeof(pv));
        kit_want(hsup()->cancel_preview(&c, ho.booking_id, &pv, &err), TRV_UP_OK,
                 "cancellation preview", &err.code, &err.message);
        assert_non_null(pv.currency);
        assert_true(pv.fee_minor >= 0 && pv.refund_minor >= 0);
    }
    memset(&out, 0, sizeof(out));
    kit_want(hsup()->cancel(&c, ho.booking_id, &out, &err), TRV_UP_OK, "cancel", &err.code,
             &err.message);
    assert_non_null(out.currency);
    assert_true(out.fee_minor >= 0 && out.refund_minor >= 0);
    memset(&after, 0, sizeof(after));
    kit_want(hsup()->retrieve(&c, ho.booking_id, NULL, &after, &err), TRV_UP_OK,
             "reading the canceled booking", &err.code, &err.message);
    assert_string_equal(after.status, "CANCELED");
}

const struct CMUnitTest kit_hotel_checks[] = {
    cmocka_unit_test_setup_teardown(hotel_check, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(hotel_search, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(hotel_offers, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(hotel_unknown_booking, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(hotel_prebook, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(hotel_book, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(hotel_read, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(hotel_cancel, kit_per_check, kit_after_check),
};
const size_t kit_hotel_n = sizeof(kit_hotel_checks) / sizeof(kit_hotel_checks[0]);
