/* The flight booking state machine: the service document's transition
 * table is allowed and nothing else is; book and cancel do what the table
 * says in each status; a READY_FOR_COMPLETE booking past its expires_at
 * reads as EXPIRED and cannot be booked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "flight/state.h"

/* The document's rows (plus: into PREBOOK_IN_PROGRESS and EXPIRED, which
 * it leaves open, and back to READY_FOR_COMPLETE after an attempt that
 * changed nothing). */
static const char *const allowed[][2] = {
    {"CREATED", "PREBOOK_IN_PROGRESS"},
    {"PREBOOK_IN_PROGRESS", "READY_FOR_COMPLETE"},
    {"PREBOOK_IN_PROGRESS", "FAILED"},
    {"READY_FOR_COMPLETE", "CONFIRMED"},
    {"READY_FOR_COMPLETE", "COMPLETE_IN_PROGRESS"},
    {"READY_FOR_COMPLETE", "EXPIRED"},
    {"READY_FOR_COMPLETE", "FAILED"},
    {"COMPLETE_IN_PROGRESS", "CONFIRMED"},
    {"COMPLETE_IN_PROGRESS", "FAILED"},
    {"COMPLETE_IN_PROGRESS", "READY_FOR_COMPLETE"},
    {"CONFIRMED", "CANCEL_IN_PROGRESS"},
    {"CANCEL_IN_PROGRESS", "CANCELED"},
    {"CANCEL_IN_PROGRESS", "CONFIRMED"},
};

static int listed(const char *from, const char *to)
{
    size_t i;
    for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
        if (strcmp(allowed[i][0], from) == 0 && strcmp(allowed[i][1], to) == 0) {
            return 1;
        }
    }
    return 0;
}

static void test_statuses(void **state)
{
    const char *const *s;
    int n = 0;
    (void)state;
    for (s = trv_fb_statuses; *s; s++) {
        assert_true(trv_fb_status_valid(*s));
        n++;
    }
    assert_int_equal(n, 9);
    assert_false(trv_fb_status_valid("confirmed"));
    assert_false(trv_fb_status_valid("DONE"));
    assert_false(trv_fb_status_valid(NULL));
}

static void test_every_pair(void **state)
{
    const char *const *from, *const *to;
    int yes = 0;
    (void)state;
    for (from = trv_fb_statuses; *from; from++) {
        for (to = trv_fb_statuses; *to; to++) {
            int expect = listed(*from, *to);
            if (trv_fb_transition_allowed(*from, *to) != expect) {
                fail_msg("%s -> %s: expected %s", *from, *to, expect ? "allowed" : "refused");
            }
            yes += expect;
        }
    }
    assert_int_equal(yes, (int)(sizeof(allowed) / sizeof(allowed[0])));
    /* Terminal states stay terminal. */
    assert_false(trv_fb_transition_allowed("CANCELED", "CONFIRMED"));
    assert_false(trv_fb_transition_allowed("FAILED", "READY_FOR_COMPLETE"));
    assert_false(trv_fb_transition_allowed("EXPIRED", "READY_FOR_COMPLETE"));
    assert_false(trv_fb_transition_allowed("CONFIRMED", "FAILED"));
}

static void test_book_decision(void **state)
{
    (void)state;
    assert_int_equal(trv_fb_book_decision("READY_FOR_COMPLETE", NULL, 0), TRV_FB_BOOK_START);
    /* Past expires_at: EXPIRED, never booked. */
    assert_int_equal(trv_fb_book_decision("READY_FOR_COMPLETE", NULL, 1), TRV_FB_BOOK_EXPIRED);
    assert_int_equal(trv_fb_book_decision("EXPIRED", NULL, 0), TRV_FB_BOOK_EXPIRED);
    /* Book again on CONFIRMED: returned unchanged. */
    assert_int_equal(trv_fb_book_decision("CONFIRMED", NULL, 0), TRV_FB_BOOK_CONFIRMED);
    /* Repeating book while ticketing: the same 202, whatever step. */
    assert_int_equal(trv_fb_book_decision("COMPLETE_IN_PROGRESS", "ticketing", 0),
                     TRV_FB_BOOK_IN_PROGRESS);
    assert_int_equal(trv_fb_book_decision("COMPLETE_IN_PROGRESS", "authorizing", 0),
                     TRV_FB_BOOK_IN_PROGRESS);
    assert_int_equal(trv_fb_book_decision("COMPLETE_IN_PROGRESS", "ordering", 0),
                     TRV_FB_BOOK_IN_PROGRESS);
    /* An unknown outcome stays unknown: never retried. */
    assert_int_equal(trv_fb_book_decision("COMPLETE_IN_PROGRESS", "unknown", 0),
                     TRV_FB_BOOK_UNKNOWN);
    assert_int_equal(trv_fb_book_decision("FAILED", NULL, 0), TRV_FB_BOOK_NOT_BOOKABLE);
    assert_int_equal(trv_fb_book_decision("CANCELED", NULL, 0), TRV_FB_BOOK_NOT_BOOKABLE);
    assert_int_equal(trv_fb_book_decision("CANCEL_IN_PROGRESS", NULL, 0),
                     TRV_FB_BOOK_NOT_BOOKABLE);
    assert_int_equal(trv_fb_book_decision("PREBOOK_IN_PROGRESS", NULL, 0),
                     TRV_FB_BOOK_NOT_BOOKABLE);
}

static void test_cancel_decision(void **state)
{
    const char *const *s;
    (void)state;
    assert_int_equal(trv_fb_cancel_decision("CONFIRMED"), TRV_FB_CANCEL_START);
    /* A repeat does not restart an active run ... */
    assert_int_equal(trv_fb_cancel_decision("CANCEL_IN_PROGRESS"), TRV_FB_CANCEL_RUNNING);
    /* ... nor a completed one (200). */
    assert_int_equal(trv_fb_cancel_decision("CANCELED"), TRV_FB_CANCEL_DONE);
    for (s = trv_fb_statuses; *s; s++) {
        if (strcmp(*s, "CONFIRMED") && strcmp(*s, "CANCEL_IN_PROGRESS")
            && strcmp(*s, "CANCELED")) {
            assert_int_equal(trv_fb_cancel_decision(*s), TRV_FB_CANCEL_NOT_CANCELABLE);
        }
    }
}

static void test_effective_and_unfinished(void **state)
{
    (void)state;
    assert_string_equal(trv_fb_effective_status("READY_FOR_COMPLETE", 1), "EXPIRED");
    assert_string_equal(trv_fb_effective_status("READY_FOR_COMPLETE", 0),
                        "READY_FOR_COMPLETE");
    assert_string_equal(trv_fb_effective_status("CONFIRMED", 1), "CONFIRMED");
    /* SUPPLIER_A's one-active-booking rule counts these. */
    assert_true(trv_fb_unfinished("CREATED"));
    assert_true(trv_fb_unfinished("PREBOOK_IN_PROGRESS"));
    assert_true(trv_fb_unfinished("READY_FOR_COMPLETE"));
    assert_true(trv_fb_unfinished("COMPLETE_IN_PROGRESS"));
    assert_false(trv_fb_unfinished("CONFIRMED"));
    assert_false(trv_fb_unfinished("FAILED"));
    assert_false(trv_fb_unfinished("EXPIRED"));
    assert_false(trv_fb_unfinished("CANCELED"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statuses),
        cmocka_unit_test(test_every_pair),
        cmocka_unit_test(test_book_decision),
        cmocka_unit_test(test_cancel_decision),
        cmocka_unit_test(test_effective_and_unfinished),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
