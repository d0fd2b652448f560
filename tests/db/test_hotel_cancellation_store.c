/* Hotel cancellation store (hotel/cancellation_store.c) against a real PostgreSQL: a
 * cancel starts once per CONFIRMED booking with one IN_PROGRESS attempt; a
 * stale run changes nothing; a failed attempt is resumed (same id) by the
 * next start; success cancels the booking and every room and records fee,
 * refund and refund_to; attempts are part of the booking as read (and
 * raise its revision); refunds go PENDING -> FAILED -> PENDING (restart)
 * -> SUBMITTED; restrictions are stored; another organization starts
 * nothing. */
#include "dbtest.h"
#include "hotel/booking_store.h"
#include "hotel/cancellation_store.h"
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
    const char *o = apr_psprintf(dbt_pool, "org_dbt_hc_%d_%d", (int)getpid(), ++n);
    plain(apr_psprintf(dbt_pool, "INSERT INTO organizations (id, name) VALUES ('%s', 'hc')", o));
    plain(apr_psprintf(dbt_pool, "INSERT INTO users (id, org_id, name) VALUES ('usr_%s', '%s', "
                       "'hc')", o, o));
    return o;
}

/* A CONFIRMED two-room booking (120.5 + 80 EUR) with a captured payment. */
static trv_hbooking *confirmed(const char *o, const char *id)
{
    trv_hprebook_row r;
    trv_hpriced pr;
    trv_hpayment pay;
    trv_hconfirmed cf;
    trv_hbooking *b = NULL;
    int ins = 0;
    memset(&r, 0, sizeof(r));
    r.id = id;
    r.org_id = o;
    r.user_id = apr_psprintf(dbt_pool, "usr_%s", o);
    r.supplier = "SUPPLIER_B";
    r.reference_id = "ref-1";
    r.idempotency_key = id;
    r.request_hash = "h1";
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
    r.rooms = apr_psprintf(dbt_pool,
        "[{\"id\": \"room_%s_0\", \"position\": 0, \"adults\": 2, \"currency\": \"EUR\", "
        "\"total_amount\": \"120.5\", \"guests\": [{\"id\": \"guest_%s_0\", \"position\": 0, "
        "\"first_name\": \"Ada\", \"last_name\": \"L\", \"type\": \"ADULT\", \"is_lead\": true}]},"
        "{\"id\": \"room_%s_1\", \"position\": 1, \"adults\": 1, \"currency\": \"EUR\", "
        "\"total_amount\": \"80\", \"guests\": [{\"id\": \"guest_%s_1\", \"position\": 0, "
        "\"first_name\": \"Cy\", \"last_name\": \"D\", \"type\": \"ADULT\", \"is_lead\": true}]}]",
        id, id, id, id);
    assert_int_equal(trv_hbooking_insert_prebook(dbt_conn, dbt_pool, &r, &ins), APR_SUCCESS);
    assert_int_equal(ins, 1);
    memset(&pr, 0, sizeof(pr));
    pr.currency = "EUR";
    pr.total_amount = "200.5";
    pr.offer_expires_at = "2099-01-01T00:00:00.000Z";
    pr.supplier_prebook_id = "pb-1";
    assert_int_equal(trv_hbooking_prebook_done(dbt_conn, dbt_pool, id, &pr, &b), APR_SUCCESS);
    assert_int_equal(trv_hbooking_book_start(dbt_conn, dbt_pool, o, id,
                                             TRV_HB_PHASE_AUTHORIZING, "me", apr_time_from_sec(30),
                                             "pi_test_visa", &b),
                     APR_SUCCESS);
    memset(&pay, 0, sizeof(pay));
    pay.id = apr_psprintf(dbt_pool, "pay_%s", id);
    pay.booking_id = id;
    pay.status = TRV_PAY_AUTHORIZED;
    pay.currency = "EUR";
    pay.amount = "200.5";
    pay.collected_by = TRV_COLLECTOR_SERVICE;
    pay.provider_ref = apr_psprintf(dbt_pool, "auth_%s", id);
    assert_int_equal(trv_payments_insert(&trv_hbooking_payments, dbt_conn, dbt_pool, &pay, &ins), APR_SUCCESS);
    assert_int_equal(trv_payments_captured(&trv_hbooking_payments, dbt_conn, dbt_pool, pay.id, NULL),
                     APR_SUCCESS);
    memset(&cf, 0, sizeof(cf));
    cf.supplier_booking_id = apr_psprintf(dbt_pool, "1-%s", id);
    assert_int_equal(trv_hbooking_confirm(dbt_conn, dbt_pool, id, &cf, &b), APR_SUCCESS);
    assert_non_null(b);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, b->status), "CONFIRMED");
    return b;
}

static trv_hbooking *get(const char *id)
{
    trv_hbooking *b = NULL;
    assert_int_equal(trv_hbooking_get_any(dbt_conn, dbt_pool, id, &b), APR_SUCCESS);
    assert_non_null(b);
    return b;
}

static void start_once_fail_resume_succeed(void **state)
{
    const char *o = org(), *id = "bkg_hc_flow", *can_id = NULL;
    trv_hbooking *b = confirmed(o, id);
    trv_hcancel *x = NULL, *y = NULL;
    const trv_hcancel *a;
    const char *rev0 = b->revision, *rev1;
    int moved = 0, i;
    (void)state;
    assert_int_equal(b->cancellations->nelts, 0);
    /* Another organization starts nothing. */
    assert_int_equal(trv_hcancellation_start(dbt_conn, dbt_pool, org(), id, "can_hc_other", &x),
                     APR_SUCCESS);
    assert_null(x);
    assert_int_equal(trv_hcancellation_start(dbt_conn, dbt_pool, o, id, "can_hc_1", &x), APR_SUCCESS);
    assert_non_null(x);
    assert_string_equal(x->id, "can_hc_1");
    assert_string_equal(trv_transit_text(&trv_hcancel_status_table, x->status), "IN_PROGRESS");
    assert_int_equal(x->attempt, 1);
    /* Started once: a racing start finds no CONFIRMED booking. */
    assert_int_equal(trv_hcancellation_start(dbt_conn, dbt_pool, o, id, "can_hc_2", &y), APR_SUCCESS);
    assert_null(y);
    b = get(id);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, b->status), "CANCEL_IN_PROGRESS");
    assert_int_equal(b->cancel_attempt, 1);
    assert_int_equal(b->cancellations->nelts, 1);
    rev1 = b->revision;
    assert_true(apr_atoi64(rev1) > apr_atoi64(rev0));

    /* A stale run (attempt 0) changes nothing; the current one fails. */
    assert_int_equal(trv_hcancellation_failed(dbt_conn, dbt_pool, id, 0, "cancellation_failed", "no",
                                              &moved), APR_SUCCESS);
    assert_false(moved);
    assert_int_equal(trv_hcancellation_failed(dbt_conn, dbt_pool, id, 1, "cancellation_failed",
                                              "the hotel said no", &moved), APR_SUCCESS);
    assert_true(moved);
    b = get(id);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, b->status), "CONFIRMED");
    a = &APR_ARRAY_IDX(b->cancellations, 0, trv_hcancel);
    assert_string_equal(trv_transit_text(&trv_hcancel_status_table, a->status), "FAILED");
    assert_string_equal(a->error_code, "cancellation_failed");
    assert_true(apr_atoi64(b->revision) > apr_atoi64(rev1));

    /* The next start resumes that attempt: same id, attempt 2. */
    assert_int_equal(trv_hcancellation_start(dbt_conn, dbt_pool, o, id, "can_hc_3", &x), APR_SUCCESS);
    assert_non_null(x);
    assert_string_equal(x->id, "can_hc_1");
    assert_int_equal(x->attempt, 2);
    assert_null(x->error_code);
    b = get(id);
    assert_int_equal(b->cancellations->nelts, 1);

    /* Success of a stale run: nothing; of the current one: CANCELED. */
    assert_int_equal(trv_hcancellation_succeeded(dbt_conn, dbt_pool, id, 1, "0", "200.5",
                                                 "[]", &can_id), APR_SUCCESS);
    assert_null(can_id);
    assert_int_equal(trv_hcancellation_succeeded(dbt_conn, dbt_pool, id, 2, "20", "180.5",
                                                 "[{\"payment_id\": \"pay_bkg_hc_flow\"}]", &can_id),
                     APR_SUCCESS);
    assert_string_equal(can_id, "can_hc_1");
    b = get(id);
    assert_string_equal(trv_transit_text(&trv_hb_status_table, b->status), "CANCELED");
    assert_non_null(b->canceled_at);
    for (i = 0; i < b->rooms->nelts; i++) {
        assert_non_null(APR_ARRAY_IDX(b->rooms, i, trv_hroom).canceled_at);
    }
    a = &APR_ARRAY_IDX(b->cancellations, 0, trv_hcancel);
    assert_string_equal(trv_transit_text(&trv_hcancel_status_table, a->status), "SUCCEEDED");
    assert_string_equal(a->fee_amount, "20");
    assert_string_equal(a->refund_amount, "180.5");
    assert_non_null(a->canceled_at);
    {
        const char *sum = NULL;
        assert_int_equal(trv_hcancellation_refunded(dbt_conn, dbt_pool, id, &sum), APR_SUCCESS);
        assert_string_equal(sum, "180.5");
    }
    /* As the API shows it. */
    {
        json_t *j = trv_json_bind(dbt_pool, trv_hcancellation_render(b->cancellations));
        const json_t *e = json_array_get(j, 0);
        assert_int_equal(json_array_size(j), 1);
        assert_string_equal(json_string_value(json_object_get(e, "id")), "can_hc_1");
        assert_true(json_real_value(json_object_get(json_object_get(e, "refund"), "amount"))
                    == 180.5);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "fee"),
                                                            "amount")), 20);
        assert_string_equal(json_string_value(json_object_get(json_array_get(
            json_object_get(e, "refund_to"), 0), "payment_id")), "pay_bkg_hc_flow");
        assert_true(json_is_null(json_object_get(e, "error_code")));
    }
    /* A CANCELED booking starts nothing. */
    assert_int_equal(trv_hcancellation_start(dbt_conn, dbt_pool, o, id, "can_hc_4", &x), APR_SUCCESS);
    assert_null(x);
}

static void refunds_fail_restart_and_submit(void **state)
{
    const char *o = org(), *id = "bkg_hc_refund", *can_id = NULL;
    trv_hcancel *x = NULL;
    const trv_refunds_kind *k = &trv_hcancellation_refunds;
    trv_refunds_item rf;
    apr_array_header_t *pending;
    int restarted = 0;
    (void)state;
    confirmed(o, id);
    assert_int_equal(trv_hcancellation_start(dbt_conn, dbt_pool, o, id, "can_hc_r", &x), APR_SUCCESS);
    assert_int_equal(trv_hcancellation_succeeded(dbt_conn, dbt_pool, id, 1, "0", "200.5", "[]",
                                                 &can_id), APR_SUCCESS);
    memset(&rf, 0, sizeof(rf));
    rf.id = "rfd_hc_1";
    rf.booking_id = id;
    rf.cancellation_id = can_id;
    rf.payment_id = "pay_bkg_hc_refund";
    rf.currency = "EUR";
    rf.amount = "200.5";
    assert_int_equal(trv_refunds_insert(k, dbt_conn, dbt_pool, &rf), APR_SUCCESS);
    /* One refund per attempt and payment. */
    rf.id = "rfd_hc_2";
    assert_int_equal(trv_refunds_insert(k, dbt_conn, dbt_pool, &rf), APR_SUCCESS);
    assert_int_equal(trv_refunds_pending(k, dbt_conn, dbt_pool, id, &pending), APR_SUCCESS);
    assert_int_equal(pending->nelts, 1);
    assert_string_equal(APR_ARRAY_IDX(pending, 0, trv_refunds_item).id, "rfd_hc_1");
    assert_string_equal(APR_ARRAY_IDX(pending, 0, trv_refunds_item).provider_ref,
                        "auth_bkg_hc_refund");
    assert_int_equal(trv_refunds_result(k, dbt_conn, dbt_pool, NULL, NULL, "rfd_hc_1",
                                        TRV_REFUND_FAILED, NULL, "declined"),
                     APR_SUCCESS);
    assert_int_equal(trv_refunds_pending(k, dbt_conn, dbt_pool, id, &pending), APR_SUCCESS);
    assert_int_equal(pending->nelts, 0);
    assert_int_equal(trv_refunds_restart(k, dbt_conn, dbt_pool, id, &restarted), APR_SUCCESS);
    assert_int_equal(restarted, 1);
    assert_int_equal(trv_refunds_result(k, dbt_conn, dbt_pool, NULL, NULL, "rfd_hc_1",
                                        TRV_REFUND_SUBMITTED, "re_1", NULL),
                     APR_SUCCESS);
    assert_int_equal(trv_refunds_restart(k, dbt_conn, dbt_pool, id, &restarted), APR_SUCCESS);
    assert_int_equal(restarted, 0);
}

static void restrictions_are_stored(void **state)
{
    const char *o = org(), *id = "bkg_hc_restricted";
    int r = -1;
    (void)state;
    confirmed(o, id);
    assert_int_equal(trv_hcancellation_restricted(dbt_conn, dbt_pool, id, &r), APR_SUCCESS);
    assert_false(r);
    assert_int_equal(trv_hcancellation_restrict(dbt_conn, dbt_pool, id, "cancellation_restricted",
                                                "ask the property"), APR_SUCCESS);
    assert_int_equal(trv_hcancellation_restrict(dbt_conn, dbt_pool, id, "cancellation_restricted",
                                                "again"), APR_SUCCESS);
    assert_int_equal(trv_hcancellation_restricted(dbt_conn, dbt_pool, id, &r), APR_SUCCESS);
    assert_true(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_once_fail_resume_succeed),
        cmocka_unit_test(refunds_fail_restart_and_submit),
        cmocka_unit_test(restrictions_are_stored),
    };
    return cmocka_run_group_tests(tests, dbt_setup, dbt_teardown);
}
