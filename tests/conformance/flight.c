/* The conformance kit's flight checks (conformance.c says how it runs):
 * search, bags, the airline, an unknown order; then price, book, read
 * (and find the order by the booking, where the adapter can), quote and
 * cancel (and cancel again, as after a lost answer), each on what the step
 * before it made. */
#include "kit.h"
#include "core/json.h"
#include "flight/supplier.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

static struct {
    json_t *offer, *priced, *pax, *order, *booking;
    const char *carrier;
} fl;

static trv_flight_ctx fctx(void)
{
    trv_flight_ctx c = {.env = &kit_env, .pool = kit_pool, .request_id = kit_rid,
                        .up = &kit_up};
    return c;
}

static const trv_flight_supplier *fsup(void)
{
    return kit_row->adapter;
}

static void flight_search(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    const char *route = kit_env_or("CONFORMANCE_ROUTE", "LHR-JFK"), *dash = strchr(route, '-');
    const char *from = dash ? apr_pstrndup(kit_root, route, (apr_size_t)(dash - route)) : "LHR";
    const char *to = dash ? dash + 1 : "JFK";
    json_t *q = trv_json_bind(kit_pool, json_pack(
        "{s:[{s:s,s:s,s:s}],s:{s:i,s:i,s:i},s:s,s:i}", "journeys", "origin", from,
        "destination", to, "date", kit_date_ahead(kit_days), "passengers", "adults", 1,
        "children", 0, "infants", 0, "cabin_class", "ECONOMY", "limit", 20));
    apr_array_header_t *found = NULL;
    json_t *offers;
    const json_t *o;
    size_t i, k;
    int truncated = 0;
    (void)state;
    kit_want(fsup()->search(&c, q, &found, &truncated, &err), TRV_UP_OK, "search", &err.code,
             &err.message);
    offers = trv_json_bind(kit_pool, trv_foffer_text_tree(kit_pool, found));
    if (!json_is_array(offers) || json_array_size(offers) == 0) {
        fail_msg("search %s-%s on %s: no offers", from, to, kit_date_ahead(kit_days));
    }
    json_array_foreach(offers, i, o) {
        const json_t *journeys = json_object_get(o, "journeys"), *j, *seg;
        if (trv_flight_supplier_of_offer(kit_str(o, "offer_reference")) != fsup()) {
            fail_msg("offer %zu: offer_reference %s is not the adapter's", i,
                     kit_str(o, "offer_reference"));
        }
        assert_true(kit_money_minor(json_object_get(o, "total_amount"), "total_amount") > 0);
        kit_future_instant(kit_str(o, "expires_at"), "expires_at");
        assert_int_equal(json_array_size(journeys), 1);
        j = json_array_get(journeys, 0);
        assert_string_equal(kit_str(j, "origin"), from);
        assert_string_equal(kit_str(j, "destination"), to);
        assert_true(json_array_size(json_object_get(j, "segments")) >= 1);
        json_array_foreach(json_object_get(j, "segments"), k, seg) {
            assert_non_null(kit_str(seg, "marketing_carrier_code"));
            assert_non_null(kit_str(seg, "marketing_flight"));
            assert_int_equal(strlen(kit_str(seg, "departure_time")), 19); /* local time */
            assert_int_equal(strlen(kit_str(seg, "arrival_time")), 19);
        }
    }
    o = json_array_get(offers, 0);
    fl.offer = json_deep_copy(o);
    fl.carrier = apr_pstrdup(kit_root, kit_str(json_array_get(json_object_get(json_array_get(
        json_object_get(o, "journeys"), 0), "segments"), 0), "marketing_carrier_code"));
    printf("    %zu offers; the first %s, %s\n", json_array_size(offers),
           kit_str(o, "offer_reference"), kit_money_text(json_object_get(o, "total_amount")));
}

static void flight_bags(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *bags = NULL;
    const json_t *b;
    size_t i;
    (void)state;
    if (!fl.offer) {
        skip();
    }
    kit_want(fsup()->bags(&c, kit_str(fl.offer, "offer_reference"), &bags, &err), TRV_UP_OK, "bags",
             &err.code, &err.message);
    assert_true(json_is_array(bags));
    json_array_foreach(bags, i, b) {
        assert_int_equal(strncmp(kit_str(b, "id"), "bag_", 4), 0);
        assert_true(kit_money_minor(json_object_get(b, "unit_amount"), "unit_amount") > 0);
    }
    printf("    %zu bags for sale\n", json_array_size(bags));
}

static void flight_airline(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *airline = NULL;
    (void)state;
    if (!fl.carrier) {
        skip();
    }
    kit_want(fsup()->airline(&c, fl.carrier, &airline, &err), TRV_UP_OK, "airline", &err.code,
             &err.message);
    assert_string_equal(kit_str(airline, "iata_code"), fl.carrier);
    assert_non_null(kit_str(airline, "name"));
    printf("    airline %s: %s\n", fl.carrier, kit_str(airline, "name"));
}

static void flight_unknown_order(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *order = NULL;
    (void)state;
    kit_want(fsup()->read_order(&c, "ord_0000conformance0000000000", &order, &err),
             TRV_UP_NOT_FOUND, "reading an unknown order", &err.code, &err.message);
}

static json_t *contact(void)
{
    return trv_json_bind(kit_pool, json_pack("{s:s,s:s,s:s,s:s,s:s}", "first_name", "Ada",
                                         "last_name", "Conformance", "email",
                                         "ada@example.com", "phone_number", "2079460000",
                                         "phone_country_code", "44"));
}

static void flight_prebook(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *priced = NULL;
    (void)state;
    if (!fl.offer || !kit_booking) {
        skip();
    }
    fl.pax = json_pack("[{s:s,s:s,s:s,s:s,s:s,s:s,s:[]}]", "first_name", "Ada", "last_name",
                       "Conformance", "birthday", "1985-04-12", "type", "ADULT", "gender", "F",
                       "nationality", "GB", "loyalty_accounts");
    kit_want(fsup()->prebook(&c, kit_str(fl.offer, "offer_reference"), fl.pax, contact(),
                         trv_json_bind(kit_pool, json_array()), &priced, &err),
             TRV_UP_OK, "prebook", &err.code, &err.message);
    assert_true(kit_money_minor(json_object_get(priced, "total_amount"), "total_amount") > 0);
    assert_string_equal(kit_str(json_object_get(priced, "total_amount"), "currency"),
                        kit_str(json_object_get(fl.offer, "total_amount"), "currency"));
    assert_true(json_is_object(json_object_get(priced, "supplier_data")));
    assert_true(json_array_size(json_object_get(priced, "journeys")) >= 1);
    assert_true(json_is_object(json_object_get(priced, "hold")));
    fl.priced = json_deep_copy(priced);
}

static void flight_book(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *order = NULL, *bk, *payment = NULL;
    const char *status;
    (void)state;
    if (!fl.priced) {
        skip();
    }
    bk = trv_json_bind(kit_pool, json_pack("{s:s,s:O,s:O,s:O,s:o,s:[]}", "id",
                                       apr_psprintf(kit_pool, "bkg_conformance-%s", kit_rid),
                                       "supplier_data", json_object_get(fl.priced, "supplier_data"),
                                       "total_amount", json_object_get(fl.priced, "total_amount"),
                                       "passengers", fl.pax, "contact", contact(), "services"));
    /* A supplier that charges the traveller takes no payment from us. */
    if (!trv_supplier_can(kit_row, TRV_SUP_COLLECTS_PAYMENT)) {
        payment = trv_json_bind(kit_pool, json_pack("{s:s}", "authorization_id",
                                                "auth_conformance"));
    }
    kit_want(fsup()->book(&c, bk, payment, apr_pstrcat(kit_pool, kit_rid, ":book", NULL),
                          &order, &err),
             TRV_UP_OK, "book", &err.code, &err.message);
    status = kit_str(order, "status");
    if (!status || (strcmp(status, "TICKETED") != 0 && strcmp(status, "PENDING") != 0)) {
        fail_msg("book: status %s (%s)", status ? status : "(absent)",
                 json_object_get(order, "failure")
                     ? trv_json_dump(kit_pool, json_object_get(order, "failure"))
                     : "no failure given");
    }
    assert_non_null(kit_str(order, "order_id"));
    fl.order = json_deep_copy(order);
    fl.booking = json_deep_copy(bk);
    printf("    order %s %s\n", kit_str(order, "order_id"), status);
}

static void flight_read(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *order = NULL;
    (void)state;
    if (!fl.order) {
        skip();
    }
    kit_want(fsup()->read_order(&c, kit_str(fl.order, "order_id"), &order, &err), TRV_UP_OK,
             "reading the order", &err.code, &err.message);
    assert_string_equal(kit_str(order, "order_id"), kit_str(fl.order, "order_id"));
    assert_true(strcmp(kit_str(order, "status"), "TICKETED") == 0
                || strcmp(kit_str(order, "status"), "PENDING") == 0);
    assert_true(json_is_array(json_object_get(order, "airline_initiated_changes")));
    /* An adapter that finds the order of a lost book answer (Duffel: the
     * order list, by the booking id in the order's metadata) finds this
     * one. */
    if (fsup()->find_order) {
        order = NULL;
        kit_want(fsup()->find_order(&c, fl.booking, &order, &err), TRV_UP_OK,
                 "finding the order by the booking", &err.code, &err.message);
        assert_string_equal(kit_str(order, "order_id"), kit_str(fl.order, "order_id"));
        printf("    found by the booking: %s\n", kit_str(order, "order_id"));
    }
}

static void flight_quote_and_cancel(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *quote = NULL, *result = NULL, *order = NULL;
    trv_up_status st;
    (void)state;
    if (!fl.order) {
        skip();
    }
    st = fsup()->cancellation_quote(&c, kit_str(fl.order, "order_id"), &quote, &err);
    if (st == TRV_UP_OK) {
        kit_money_minor(json_object_get(quote, "fee"), "quote fee");
        kit_money_minor(json_object_get(quote, "refundable_amount"), "quote refundable_amount");
        printf("    quote: refundable %s\n",
               kit_money_text(json_object_get(quote, "refundable_amount")));
    }
    else if (st != TRV_UP_NOT_FOUND && st != TRV_UP_REJECTED) {
        kit_want(st, TRV_UP_OK, "cancellation quote", &err.code, &err.message);
    }
    else {
        printf("    no quote (%s): the gateway estimates from the fare terms\n", err.code);
    }
    memset(&err, 0, sizeof(err));
    kit_want(fsup()->cancel(&c, kit_str(fl.order, "order_id"),
                            apr_pstrcat(kit_pool, kit_rid, ":cancel", NULL), &result, &err),
             TRV_UP_OK, "cancel", &err.code, &err.message);
    assert_true(kit_money_minor(json_object_get(result, "fee"), "fee") >= 0);
    assert_true(kit_money_minor(json_object_get(result, "refund_amount"), "refund_amount") >= 0);
    kit_want(fsup()->read_order(&c, kit_str(fl.order, "order_id"), &order, &err), TRV_UP_OK,
             "reading the canceled order", &err.code, &err.message);
    assert_string_equal(kit_str(order, "status"), "CANCELED");
    /* Cancel again, as the next run does when the answer was lost: the
     * same result, from the cancellation that was made. */
    {
        json_t *again = NULL;
        kit_want(fsup()->cancel(&c, kit_str(fl.order, "order_id"),
                                apr_pstrcat(kit_pool, kit_rid, ":cancel-again", NULL), &again,
                                &err),
                 TRV_UP_OK, "cancelling again", &err.code, &err.message);
        assert_int_equal(kit_money_minor(json_object_get(again, "refund_amount"), "refund_amount"),
                         kit_money_minor(json_object_get(result, "refund_amount"),
                                         "refund_amount"));
    }
}

const struct CMUnitTest kit_flight_checks[] = {
    cmocka_unit_test_setup_teardown(flight_search, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(flight_bags, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(flight_airline, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(flight_unknown_order, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(flight_prebook, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(flight_book, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(flight_read, kit_per_check, kit_after_check),
    cmocka_unit_test_setup_teardown(flight_quote_and_cancel, kit_per_check, kit_after_check),
};
const size_t kit_flight_n = sizeof(kit_flight_checks) / sizeof(kit_flight_checks[0]);
