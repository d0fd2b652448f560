/* Authorization intents (flight/intents.c) against a real PostgreSQL: the
 * guarded moves that decide whether a book attempt takes up an unresolved
 * authorization (same key: the customer is authorized once) or the release
 * job voids it — never both, never neither. */
#include "dbtest.h"
#include "flight/intents.h"

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

/* A booking in its authorizing step held by "me" (a new id each call). */
static const char *booking(void)
{
    const char *id = apr_psprintf(dbt_pool, "bkg_intents_%d_%d", (int)getpid(), ++n);
    plain("INSERT INTO organizations (id, name) VALUES ('org_dbt_intents', 'intents') "
          "ON CONFLICT DO NOTHING");
    plain("INSERT INTO users (id, org_id, name) VALUES ('usr_dbt_intents', 'org_dbt_intents', "
          "'intents') ON CONFLICT DO NOTHING");
    plain(apr_psprintf(dbt_pool, "INSERT INTO flight_bookings (id, org_id, user_id, supplier, "
                       "status, currency, total_amount, book_phase, phase_owner, book_attempt, "
                       "expires_at) VALUES ('%s', 'org_dbt_intents', 'usr_dbt_intents', "
                       "'SUPPLIER_A', 'COMPLETE_IN_PROGRESS', 'GBP', 412.5, 'authorizing', "
                       "'me', 1, now() + interval '1 hour')", id));
    return id;
}

static trv_fintent *fresh(const char *bkg, int attempt, const char *instrument)
{
    trv_fintent *in = NULL;
    assert_int_equal(trv_fintent_insert(dbt_conn, dbt_pool, bkg, attempt, instrument, "GBP",
                                        "412.50", &in), APR_SUCCESS);
    assert_non_null(in);
    assert_string_equal(trv_transit_text(&trv_pintent_status_table, in->status), "PENDING");
    return in;
}

static trv_fintent *reuse(const char *bkg, int attempt, const char *instrument,
                          const char *amount)
{
    trv_fintent *in = NULL;
    assert_int_equal(trv_fintent_reuse(dbt_conn, dbt_pool, bkg, attempt, instrument, "GBP",
                                       amount, &in), APR_SUCCESS);
    return in;
}

static trv_frelease unresolved(const char *id, const char *auth, apr_interval_time_t after)
{
    trv_frelease rel;
    assert_int_equal(trv_fintent_unresolved(dbt_conn, dbt_pool, id, auth, after, &rel),
                     APR_SUCCESS);
    return rel;
}

static int claim(const char *id)
{
    int claimed = -1;
    assert_int_equal(trv_fintent_claim(dbt_conn, dbt_pool, id, &claimed), APR_SUCCESS);
    return claimed;
}

static const char *status_of(const char *id)
{
    trv_fintent *in = NULL;
    assert_int_equal(trv_fintent_get(dbt_conn, dbt_pool, id, &in), APR_SUCCESS);
    assert_non_null(in);
    return trv_transit_text(&trv_pintent_status_table, in->status);
}

static void the_next_attempt_takes_the_unanswered_key(void **state)
{
    const char *bkg = booking();
    trv_fintent *first = fresh(bkg, 1, "pi_test_visa"), *own = NULL, *again;
    trv_frelease rel;
    (void)state;
    assert_string_equal(first->key, apr_psprintf(dbt_pool, "%s:authorize:1", bkg));
    /* A takeover of attempt 1 finds it. */
    assert_int_equal(trv_fintent_own(dbt_conn, dbt_pool, bkg, 1, &own), APR_SUCCESS);
    assert_non_null(own);
    assert_string_equal(own->id, first->id);
    /* Unanswered: kept for an hour, the job may not have it yet. */
    rel = unresolved(first->id, NULL, apr_time_from_sec(3600));
    assert_string_equal(rel.id, first->id);
    assert_int_equal(rel.gen, 1);
    assert_true(rel.delay == apr_time_from_sec(3600));
    assert_int_equal(claim(first->id), 0);
    /* Attempt 2 with the same instrument and amount: the same key. */
    again = reuse(bkg, 2, "pi_test_visa", "412.5");
    assert_non_null(again);
    assert_string_equal(again->id, first->id);
    assert_string_equal(again->key, first->key);
    assert_string_equal(trv_transit_text(&trv_pintent_status_table, again->status), "PENDING");
    assert_int_equal(again->book_attempt, 2);
    /* Held by the attempt: the job cannot take it, nor can another take. */
    assert_int_equal(claim(first->id), 0);
    assert_null(reuse(bkg, 2, "pi_test_visa", "412.5"));
    /* The answer comes: the booking's payment. */
    {
        int updated = -1;
        assert_int_equal(trv_fintent_authorized(dbt_conn, dbt_pool, first->id, "auth_1",
                                                &updated), APR_SUCCESS);
        assert_int_equal(updated, 1);
        assert_int_equal(trv_fintent_authorized(dbt_conn, dbt_pool, first->id, "auth_1",
                                                &updated), APR_SUCCESS);
        assert_int_equal(updated, 0);
    }
    assert_string_equal(status_of(first->id), "AUTHORIZED");
}

static void the_job_takes_it_once_due_and_then_it_is_gone(void **state)
{
    const char *bkg = booking();
    trv_fintent *first = fresh(bkg, 1, "pi_test_visa"), *next;
    (void)state;
    unresolved(first->id, NULL, 0);
    assert_int_equal(claim(first->id), 1);
    assert_string_equal(status_of(first->id), "RELEASING");
    assert_int_equal(claim(first->id), 0);
    /* Being voided: the next attempt authorizes afresh. */
    assert_null(reuse(bkg, 2, "pi_test_visa", "412.50"));
    next = fresh(bkg, 2, "pi_test_visa");
    assert_string_not_equal(next->key, first->key);
    assert_int_equal(trv_fintent_resolved(dbt_conn, dbt_pool, first->id,
                                           TRV_PINTENT_OUTCOME_VOIDED, "auth_9"),
                     APR_SUCCESS);
    assert_string_equal(status_of(first->id), "RESOLVED");
    /* Settled is settled: nothing makes it unresolved again. */
    assert_null(unresolved(first->id, NULL, 0).id);
}

static void another_instrument_or_amount_releases_it_now(void **state)
{
    const char *bkg = booking();
    trv_fintent *visa = fresh(bkg, 1, "pi_test_visa"), *mc;
    apr_array_header_t *rels;
    trv_frelease *rel;
    (void)state;
    unresolved(visa->id, NULL, apr_time_from_sec(3600));
    assert_null(reuse(bkg, 2, "pi_test_mastercard", "412.50"));
    assert_null(reuse(bkg, 2, "pi_test_visa", "400.00"));
    mc = fresh(bkg, 2, "pi_test_mastercard");
    assert_int_equal(trv_fintent_release_others(dbt_conn, dbt_pool, bkg, mc->id, &rels),
                     APR_SUCCESS);
    assert_int_equal(rels->nelts, 1);
    rel = &APR_ARRAY_IDX(rels, 0, trv_frelease);
    assert_string_equal(rel->id, visa->id);
    assert_int_equal(rel->gen, 2); /* a new job, whatever the first one does */
    assert_true(rel->delay == 0);
    assert_string_equal(status_of(mc->id), "PENDING");
    assert_int_equal(claim(visa->id), 1);
    /* The FAILED booking's sweep: the mastercard one goes too. */
    assert_int_equal(trv_fintent_release_others(dbt_conn, dbt_pool, bkg, NULL, &rels),
                     APR_SUCCESS);
    assert_int_equal(rels->nelts, 1);
    assert_string_equal(APR_ARRAY_IDX(rels, 0, trv_frelease).id, mc->id);
}

static void a_known_authorization_is_never_taken_up(void **state)
{
    const char *bkg = booking();
    trv_fintent *in = fresh(bkg, 1, "pi_test_visa"), *found = NULL;
    int updated;
    (void)state;
    assert_int_equal(trv_fintent_authorized(dbt_conn, dbt_pool, in->id, "auth_7", &updated),
                     APR_SUCCESS);
    /* Its void failed: the job voids auth_7; an attempt must not replay
     * an authorization that may be voided by now. */
    unresolved(in->id, NULL, 0);
    assert_int_equal(trv_fintent_of_auth(dbt_conn, dbt_pool, bkg, "auth_7", &found),
                     APR_SUCCESS);
    assert_non_null(found);
    assert_string_equal(found->provider_ref, "auth_7");
    assert_null(reuse(bkg, 2, "pi_test_visa", "412.50"));
    assert_int_equal(claim(in->id), 1);
}

static void the_sdk_session_has_one_release(void **state)
{
    const char *bkg = booking();
    trv_frelease a, b, c;
    (void)state;
    assert_int_equal(trv_fintent_sdk_release(dbt_conn, dbt_pool, bkg, 1, "GBP", "412.50", NULL,
                                             &a), APR_SUCCESS);
    assert_non_null(a.id);
    assert_int_equal(a.gen, 1);
    assert_int_equal(trv_fintent_sdk_release(dbt_conn, dbt_pool, bkg, 1, "GBP", "412.50",
                                             "auth_s", &b), APR_SUCCESS);
    assert_string_equal(b.id, a.id);
    assert_int_equal(b.gen, 2);
    assert_int_equal(claim(a.id), 1);
    /* Being released: asking again queues nothing more. */
    assert_int_equal(trv_fintent_sdk_release(dbt_conn, dbt_pool, bkg, 1, "GBP", "412.50", NULL,
                                             &c), APR_SUCCESS);
    assert_null(c.id);
}

static void only_the_step_owner_takes_intents(void **state)
{
    const char *bkg = booking();
    int held = -1;
    (void)state;
    assert_int_equal(trv_db_begin(dbt_conn, dbt_pool), APR_SUCCESS);
    assert_int_equal(trv_fintent_lock_step(dbt_conn, dbt_pool, bkg, "me", &held), APR_SUCCESS);
    assert_int_equal(held, 1);
    assert_int_equal(trv_fintent_lock_step(dbt_conn, dbt_pool, bkg, "someone else", &held),
                     APR_SUCCESS);
    assert_int_equal(held, 0);
    assert_int_equal(trv_db_commit(dbt_conn), APR_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_next_attempt_takes_the_unanswered_key),
        cmocka_unit_test(the_job_takes_it_once_due_and_then_it_is_gone),
        cmocka_unit_test(another_instrument_or_amount_releases_it_now),
        cmocka_unit_test(a_known_authorization_is_never_taken_up),
        cmocka_unit_test(the_sdk_session_has_one_release),
        cmocka_unit_test(only_the_step_owner_takes_intents),
    };
    return cmocka_run_group_tests_name("flight authorization intents", tests, dbt_setup,
                                       dbt_teardown);
}
