/* Hotel booking store (hotel/booking_store.c) against a real PostgreSQL: a
 * prebook goes in whole (booking, rooms, guests) or not at all, one key of
 * an organization makes one booking, state moves are guarded, a booking is
 * charged once, every visible change raises the revision (so a stored
 * rendering is never served stale), and the list's exact total follows the
 * status a reader sees. */
#include "dbtest.h"
#include "hotel/booking_store.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>
#include <unistd.h>

static int n;

static void plain(const char *sql)
{
    int rows;
    if (apr_dbd_query(dbt_conn->driver, dbt_conn->handle, &rows, sql) != 0) {
        fail_msg("%s: %s", sql, apr_dbd_error(dbt_conn->driver, dbt_conn->handle, 1));
    }
}

static const char *org(void)
{
    const char *o = apr_psprintf(dbt_pool, "org_dbt_hb_%d_%d", (int)getpid(), ++n);
    plain(apr_psprintf(dbt_pool, "INSERT INTO organizations (id, name) VALUES ('%s', 'hb')", o));
    plain(apr_psprintf(dbt_pool, "INSERT INTO users (id, org_id, name) VALUES ('usr_%s', '%s', "
                       "'hb')", o, o));
    return o;
}

static const char *ROOMS =
    "[{\"id\": \"room_%s_0\", \"position\": 0, \"name\": \"Double\", \"board\": \"ROOM_ONLY\", "
    "\"board_name\": \"Room only\", \"adults\": 2, \"children\": [], \"currency\": \"EUR\", "
    "\"total_amount\": \"120.5\", \"due_at_property\": null, "
    "\"guests\": [{\"id\": \"guest_%s_0\", \"position\": 0, \"first_name\": \"Ada\", "
    "\"last_name\": \"Lovelace\", \"type\": \"ADULT\", \"is_lead\": true}, "
    "{\"id\": \"guest_%s_1\", \"position\": 1, \"first_name\": \"Bo\", "
    "\"last_name\": \"Lovelace\", \"type\": \"ADULT\", \"is_lead\": false}]}, "
    "{\"id\": \"room_%s_1\", \"position\": 1, \"name\": \"Single\", \"board\": \"ROOM_ONLY\", "
    "\"adults\": 1, \"children\": [5], \"currency\": \"EUR\", \"total_amount\": \"80\", "
    "\"guests\": [{\"id\": \"guest_%s_2\", \"position\": 0, \"first_name\": \"Cy\", "
    "\"last_name\": \"Doe\", \"type\": \"ADULT\", \"is_lead\": true}]}]";

static trv_hprebook_row row(const char *o, const char *id, const char *key, const char *rooms)
{
    trv_hprebook_row r;
    memset(&r, 0, sizeof(r));
    r.id = id;
    r.org_id = o;
    r.user_id = apr_psprintf(dbt_pool, "usr_%s", o);
    r.supplier = "SUPPLIER_B";
    r.reference_id = "ref-1";
    r.idempotency_key = key;
    r.request_hash = "h1";
    r.hotel_id = "htl_x";
    r.supplier_hotel_id = "927897";
    r.offer_reference = "rate-key";
    r.check_in = "2027-03-12";
    r.check_out = "2027-03-14";
    r.currency = "EUR";
    r.total_amount = "200.5";
    r.offer_expires_at = "2099-01-01T00:00:00.000Z";
    r.hotel = "{\"id\": \"htl_x\", \"name\": \"H\", \"address\": null}";
    r.contact = "{\"first_name\": \"Ada\", \"last_name\": \"Lovelace\", \"email\": \"a@b.c\", "
                "\"phone\": \"+44\"}";
    r.rooms = rooms ? rooms : apr_psprintf(dbt_pool, ROOMS, id, id, id, id, id);
    return r;
}

static trv_hbooking *ready(const char *o, const char *id)
{
    trv_hprebook_row r = row(o, id, id, NULL);
    trv_hpriced pr;
    trv_hbooking *b = NULL;
    int ins = 0;
    assert_int_equal(trv_hbooking_insert_prebook(dbt_conn, dbt_pool, &r, &ins), APR_SUCCESS);
    assert_int_equal(ins, 1);
    memset(&pr, 0, sizeof(pr));
    pr.currency = "EUR";
    pr.total_amount = "200.5";
    pr.offer_expires_at = "2099-01-01T00:00:00.000Z";
    pr.supplier_prebook_id = "pb-1";
    pr.rooms = "[{\"position\": 1, \"total_amount\": 80, \"cancellation_policy\": "
               "{\"refundable\": true, \"penalties\": []}}]";
    assert_int_equal(trv_hbooking_prebook_done(dbt_conn, dbt_pool, id, &pr, &b), APR_SUCCESS);
    assert_non_null(b);
    return b;
}

static void prebook_inserts_whole_and_once(void **state)
{
    const char *o = org();
    trv_hprebook_row r = row(o, "bkg_hb_whole", "k1", NULL);
    trv_hbooking *b = NULL;
    trv_hroom *m;
    int ins = 0;
    (void)state;
    assert_int_equal(trv_hbooking_insert_prebook(dbt_conn, dbt_pool, &r, &ins), APR_SUCCESS);
    assert_int_equal(ins, 1);
    /* The same key again: no second booking, no rooms for it. */
    r.id = "bkg_hb_whole_2";
    r.rooms = apr_psprintf(dbt_pool, ROOMS, r.id, r.id, r.id, r.id, r.id);
    assert_int_equal(trv_hbooking_insert_prebook(dbt_conn, dbt_pool, &r, &ins), APR_SUCCESS);
    assert_int_equal(ins, 0);
    assert_int_equal(trv_hbooking_get_any(dbt_conn, dbt_pool, "bkg_hb_whole_2", &b),
                     APR_SUCCESS);
    assert_null(b);

    assert_int_equal(trv_hbooking_by_key(dbt_conn, dbt_pool, o, "k1", &b), APR_SUCCESS);
    assert_non_null(b);
    assert_string_equal(b->id, "bkg_hb_whole");
    assert_string_equal(trv_transit_text(&trv_hb_status_table, b->status), "PREBOOK_IN_PROGRESS");
    assert_int_equal(b->rooms->nelts, 2);
    m = &APR_ARRAY_IDX(b->rooms, 0, trv_hroom);
    assert_int_equal(m->position, 0);
    assert_int_equal(m->guests->nelts, 2);
    assert_true(APR_ARRAY_IDX(m->guests, 0, trv_hguest).is_lead);
    assert_string_equal(APR_ARRAY_IDX(m->guests, 1, trv_hguest).first_name, "Bo");
    m = &APR_ARRAY_IDX(b->rooms, 1, trv_hroom);
    assert_int_equal(m->guests->nelts, 1);
    assert_int_equal(json_integer_value(json_array_get(m->children, 0)), 5);
    assert_string_equal(b->payments->nelts == 0 ? "none" : "some", "none");

    /* Another organization does not see it. */
    assert_int_equal(trv_hbooking_get(dbt_conn, dbt_pool, org(), "bkg_hb_whole", &b),
                     APR_SUCCESS);
    assert_null(b);
}

static void prebook_with_a_bad_room_inserts_nothing(void **state)
{
    const char *o = org();
    /* Two leads in one room break the room's one-lead rule: the statement
     * fails and the booking is not left behind without its guests. */
    const char *bad = "[{\"id\": \"room_bad\", \"position\": 0, \"adults\": 2, \"guests\": ["
                      "{\"id\": \"guest_bad1\", \"position\": 0, \"first_name\": \"A\", "
                      "\"last_name\": \"B\", \"type\": \"ADULT\", \"is_lead\": true}, "
                      "{\"id\": \"guest_bad2\", \"position\": 1, \"first_name\": \"C\", "
                      "\"last_name\": \"D\", \"type\": \"ADULT\", \"is_lead\": true}]}]";
    trv_hprebook_row r = row(o, "bkg_hb_bad", "kbad", bad);
    trv_hbooking *b = NULL;
    int ins = 0;
    (void)state;
    assert_int_not_equal(trv_hbooking_insert_prebook(dbt_conn, dbt_pool, &r, &ins),
                         APR_SUCCESS);
    assert_int_equal(trv_hbooking_get_any(dbt_conn, dbt_pool, "bkg_hb_bad", &b), APR_SUCCESS);
    assert_null(b);
}

static void book_moves_are_guarded_and_charge_once(void **state)
{
    const char *o = org();
    trv_hbooking *b = ready(o, "bkg_hb_book"), *again = NULL, *done = NULL;
    trv_hpayment pay;
    trv_hconfirmed cf;
    int ins = 0;
    (void)state;
    assert_string_equal(trv_transit_text(&trv_hb_status_table, b->status), "READY_FOR_COMPLETE");
    assert_string_equal(APR_ARRAY_IDX(b->rooms, 1, trv_hroom).total_amount, "80");
    assert_non_null(APR_ARRAY_IDX(b->rooms, 1, trv_hroom).cancellation_policy);

    assert_int_equal(trv_hbooking_book_start(dbt_conn, dbt_pool, o, b->id,
                                             TRV_HB_PHASE_AUTHORIZING, "me", apr_time_from_sec(30),
                                             "pi_test_visa", &again),
                     APR_SUCCESS);
    assert_non_null(again);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, again->status), "COMPLETE_IN_PROGRESS");
    assert_int_equal(again->book_attempt, 1);
    /* A racing start finds nothing to start. */
    assert_int_equal(trv_hbooking_book_start(dbt_conn, dbt_pool, o, b->id, TRV_HB_PHASE_AUTHORIZING,
                                             "other", apr_time_from_sec(30), "pi_test_visa",
                                             &done), APR_SUCCESS);
    assert_null(done);
    /* Another owner cannot move the phase. */
    assert_int_equal(trv_hbooking_phase(dbt_conn, dbt_pool, NULL, NULL, b->id,
                                        TRV_HB_PHASE_AUTHORIZING, "other", TRV_HB_PHASE_ORDERING,
                                        "other", apr_time_from_sec(30), NULL, &done),
                     APR_SUCCESS);
    assert_null(done);

    memset(&pay, 0, sizeof(pay));
    pay.id = "pay_hb_1";
    pay.booking_id = b->id;
    pay.status = TRV_PAY_AUTHORIZED;
    pay.currency = "EUR";
    pay.amount = "200.5";
    pay.collected_by = TRV_COLLECTOR_SERVICE;
    pay.provider_ref = "auth_1";
    assert_int_equal(trv_payments_insert(&trv_hbooking_payments, dbt_conn, dbt_pool, &pay, &ins), APR_SUCCESS);
    assert_int_equal(ins, 1);
    pay.id = "pay_hb_2";
    assert_int_equal(trv_payments_insert(&trv_hbooking_payments, dbt_conn, dbt_pool, &pay, &ins), APR_SUCCESS);
    assert_int_equal(ins, 0);

    assert_int_equal(trv_hbooking_phase(dbt_conn, dbt_pool, NULL, NULL, b->id,
                                        TRV_HB_PHASE_AUTHORIZING, "me", TRV_HB_PHASE_ORDERING,
                                        "me", apr_time_from_sec(30), NULL, &done),
                     APR_SUCCESS);
    assert_non_null(done);
    assert_string_equal(trv_transit_column_text(&trv_hb_phase_table, done->book_phase), "ordering");
    assert_int_equal(trv_payments_captured(&trv_hbooking_payments, dbt_conn, dbt_pool, "pay_hb_1",
                                                   "{\"brand\": \"visa\", \"last4\": \"4242\"}"),
                     APR_SUCCESS);
    memset(&cf, 0, sizeof(cf));
    cf.supplier_booking_id = "1-1234567";
    cf.hotel_confirmation_code = "HC1";
    cf.rooms = "[{\"position\": 0, \"supplier_reference_number\": \"R0\"}]";
    assert_int_equal(trv_hbooking_confirm(dbt_conn, dbt_pool, b->id, &cf, &done), APR_SUCCESS);
    assert_non_null(done);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, done->status), "CONFIRMED");
    assert_non_null(done->confirmed_at);
    assert_null(trv_transit_column_text(&trv_hb_phase_table, done->book_phase));
    assert_string_equal(done->supplier_booking_id, "1-1234567");
    assert_string_equal(APR_ARRAY_IDX(done->rooms, 0, trv_hroom).supplier_reference_number,
                        "R0");
    assert_int_equal(done->payments->nelts, 1);
    assert_string_equal(
        trv_transit_text(&trv_pay_status_table, APR_ARRAY_IDX(done->payments, 0, trv_hpayment).status), "CAPTURED");
    assert_string_equal(APR_ARRAY_IDX(done->payments, 0, trv_hpayment).amount, "200.5");
    /* Confirmed once: a second confirm and a failure find nothing. */
    assert_int_equal(trv_hbooking_confirm(dbt_conn, dbt_pool, b->id, &cf, &again), APR_SUCCESS);
    assert_null(again);
    assert_int_equal(trv_hbooking_book_failed(dbt_conn, dbt_pool, b->id,
                                              "{\"code\": \"book_failed\"}", &again),
                     APR_SUCCESS);
    assert_null(again);
}

static void revert_drops_the_uncaptured_payment(void **state)
{
    const char *o = org();
    trv_hbooking *b = ready(o, "bkg_hb_revert"), *x = NULL;
    trv_hpayment pay;
    int ins = 0;
    (void)state;
    assert_int_equal(trv_hbooking_book_start(dbt_conn, dbt_pool, o, b->id,
                                             TRV_HB_PHASE_AUTHORIZING, "me", apr_time_from_sec(30),
                                             "pi_test_visa", &x),
                     APR_SUCCESS);
    memset(&pay, 0, sizeof(pay));
    pay.id = "pay_hb_rv";
    pay.booking_id = b->id;
    pay.status = TRV_PAY_AUTHORIZED;
    pay.currency = "EUR";
    pay.amount = "200.5";
    pay.collected_by = TRV_COLLECTOR_SERVICE;
    assert_int_equal(trv_payments_insert(&trv_hbooking_payments, dbt_conn, dbt_pool, &pay, &ins), APR_SUCCESS);
    /* Not the owner: nothing moves, nothing is dropped. */
    assert_int_equal(trv_hbooking_book_revert(dbt_conn, dbt_pool, b->id, "other", &x),
                     APR_SUCCESS);
    assert_null(x);
    assert_int_equal(trv_hbooking_get_any(dbt_conn, dbt_pool, b->id, &x), APR_SUCCESS);
    assert_int_equal(x->payments->nelts, 1);
    assert_int_equal(trv_hbooking_book_revert(dbt_conn, dbt_pool, b->id, "me", &x),
                     APR_SUCCESS);
    assert_non_null(x);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, x->status), "READY_FOR_COMPLETE");
    assert_int_equal(x->payments->nelts, 0);
}

static void revision_guards_the_stored_rendering(void **state)
{
    const char *o = org(), *doc = NULL;
    trv_hbooking *b = ready(o, "bkg_hb_doc"), *x = NULL;
    json_t *docs;
    (void)state;
    docs = json_pack("[{s:s,s:I,s:s,s:s}]", "booking_id", b->id, "revision",
                     (json_int_t)apr_atoi64(b->revision), "doc", "{\"v\": 1}", "list_doc",
                     "{\"l\": 1}");
    assert_int_equal(trv_hbooking_keep_docs(dbt_conn, dbt_pool, docs), APR_SUCCESS);
    json_decref(docs);
    assert_int_equal(trv_hbooking_get_doc(dbt_conn, dbt_pool, o, b->id, &doc), APR_SUCCESS);
    assert_non_null(doc);
    assert_string_equal(doc, "{\"v\": 1}");
    /* Another organization: nothing. */
    assert_int_equal(trv_hbooking_get_doc(dbt_conn, dbt_pool, org(), b->id, &doc), APR_SUCCESS);
    assert_null(doc);
    /* A read at the supplier alone keeps the rendering current... */
    assert_int_equal(trv_hbooking_synced(dbt_conn, dbt_pool, b->id), APR_SUCCESS);
    assert_int_equal(trv_hbooking_get_doc(dbt_conn, dbt_pool, o, b->id, &doc), APR_SUCCESS);
    assert_non_null(doc);
    /* ...a guest's change (a part of the booking) does not. */
    plain(apr_psprintf(dbt_pool, "UPDATE hotel_booking_guests SET last_name = 'X' "
                       "WHERE booking_id = '%s' AND position = 1", b->id));
    assert_int_equal(trv_hbooking_get_doc(dbt_conn, dbt_pool, o, b->id, &doc), APR_SUCCESS);
    assert_null(doc);
    /* Past the offer's expiry the booking reads EXPIRED: no stored doc. */
    assert_int_equal(trv_hbooking_get_any(dbt_conn, dbt_pool, b->id, &x), APR_SUCCESS);
    docs = json_pack("[{s:s,s:I,s:s,s:s}]", "booking_id", b->id, "revision",
                     (json_int_t)apr_atoi64(x->revision), "doc", "{\"v\": 2}", "list_doc", "{}");
    assert_int_equal(trv_hbooking_keep_docs(dbt_conn, dbt_pool, docs), APR_SUCCESS);
    json_decref(docs);
    assert_int_equal(trv_hbooking_get_doc(dbt_conn, dbt_pool, o, b->id, &doc), APR_SUCCESS);
    assert_string_equal(doc, "{\"v\": 2}");
    plain(apr_psprintf(dbt_pool, "UPDATE hotel_bookings SET offer_expires_at = now() - "
                       "interval '1 second' WHERE id = '%s'", b->id));
    assert_int_equal(trv_hbooking_get_any(dbt_conn, dbt_pool, b->id, &x), APR_SUCCESS);
    docs = json_pack("[{s:s,s:I,s:s,s:s}]", "booking_id", b->id, "revision",
                     (json_int_t)apr_atoi64(x->revision), "doc", "{\"v\": 3}", "list_doc", "{}");
    assert_int_equal(trv_hbooking_keep_docs(dbt_conn, dbt_pool, docs), APR_SUCCESS);
    json_decref(docs);
    assert_int_equal(trv_hbooking_get_doc(dbt_conn, dbt_pool, o, b->id, &doc), APR_SUCCESS);
    assert_null(doc);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, trv_hbooking_status(x)), "EXPIRED");
}

static long total(const char *o, const char *status)
{
    trv_stmt st = {"dbt_hb_total", "SELECT hotel_bookings_total(%s, %s, NULL, NULL, NULL) AS n"};
    trv_rows *r;
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &st, &r, TRV_DB_ARGS(o, status)),
                     APR_SUCCESS);
    return atol(trv_rows_get(r, 0, "n"));
}

static void totals_follow_status(void **state)
{
    const char *o = org();
    trv_hbooking *x = NULL;
    (void)state;
    ready(o, "bkg_hb_t1");
    ready(o, "bkg_hb_t2");
    assert_int_equal(total(o, NULL), 2);
    assert_int_equal(total(o, "READY_FOR_COMPLETE"), 2);
    plain("UPDATE hotel_bookings SET offer_expires_at = now() - interval '1 second' "
          "WHERE id = 'bkg_hb_t2'");
    assert_int_equal(total(o, "READY_FOR_COMPLETE"), 1);
    assert_int_equal(total(o, "EXPIRED"), 1);
    assert_int_equal(trv_hbooking_expire_one(dbt_conn, dbt_pool, "bkg_hb_t2", &x), APR_SUCCESS);
    assert_non_null(x);
    assert_int_equal(total(o, "EXPIRED"), 1);
    assert_int_equal(total(o, NULL), 2);
    assert_int_equal(total(org(), NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prebook_inserts_whole_and_once),
        cmocka_unit_test(prebook_with_a_bad_room_inserts_nothing),
        cmocka_unit_test(book_moves_are_guarded_and_charge_once),
        cmocka_unit_test(revert_drops_the_uncaptured_payment),
        cmocka_unit_test(revision_guards_the_stored_rendering),
        cmocka_unit_test(totals_follow_status),
    };
    return cmocka_run_group_tests(tests, dbt_setup, dbt_teardown);
}
