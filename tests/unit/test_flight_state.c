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

#include "flight/order_status.h"
#include "flight/state.h"
#include "transit_expect.h"

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

/* The test speaks the document's texts; the machine speaks enums. */
static trv_fb_status st(const char *text)
{
    trv_fb_status s = TRV_FB_CREATED;
    if (!trv_fb_status_from_text(text, &s)) {
        fail_msg("not a status: %s", text);
    }
    return s;
}

static int allowed_text(const char *from, const char *to)
{
    return trv_fb_transition_allowed(st(from), st(to));
}

static trv_fb_phase ph(const char *text)
{
    trv_fb_phase p = TRV_FB_PHASE_NONE;
    if (!trv_fb_phase_from_text(text, &p)) {
        fail_msg("not a phase: %s", text);
    }
    return p;
}

static trv_fb_book_action book(const char *status, const char *phase, int past)
{
    return trv_fb_book_decision(st(status), ph(phase), past);
}

static const char *effective(const char *status, int past)
{
    return trv_fb_status_text(trv_fb_effective_status(st(status), past));
}

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
            if (allowed_text(*from, *to) != expect) {
                fail_msg("%s -> %s: expected %s", *from, *to, expect ? "allowed" : "refused");
            }
            yes += expect;
        }
    }
    assert_int_equal(yes, (int)(sizeof(allowed) / sizeof(allowed[0])));
    /* Terminal states stay terminal. */
    assert_false(allowed_text("CANCELED", "CONFIRMED"));
    assert_false(allowed_text("FAILED", "READY_FOR_COMPLETE"));
    assert_false(allowed_text("EXPIRED", "READY_FOR_COMPLETE"));
    assert_false(allowed_text("CONFIRMED", "FAILED"));
}

static void test_book_decision(void **state)
{
    (void)state;
    assert_int_equal(book("READY_FOR_COMPLETE", NULL, 0), TRV_FB_BOOK_START);
    /* Past expires_at: EXPIRED, never booked. */
    assert_int_equal(book("READY_FOR_COMPLETE", NULL, 1), TRV_FB_BOOK_EXPIRED);
    assert_int_equal(book("EXPIRED", NULL, 0), TRV_FB_BOOK_EXPIRED);
    /* Book again on CONFIRMED: returned unchanged. */
    assert_int_equal(book("CONFIRMED", NULL, 0), TRV_FB_BOOK_CONFIRMED);
    /* Repeating book while ticketing: the same 202, whatever step. */
    assert_int_equal(book("COMPLETE_IN_PROGRESS", "ticketing", 0),
                     TRV_FB_BOOK_IN_PROGRESS);
    assert_int_equal(book("COMPLETE_IN_PROGRESS", "authorizing", 0),
                     TRV_FB_BOOK_IN_PROGRESS);
    assert_int_equal(book("COMPLETE_IN_PROGRESS", "ordering", 0),
                     TRV_FB_BOOK_IN_PROGRESS);
    /* An unknown outcome stays unknown: never retried. */
    assert_int_equal(book("COMPLETE_IN_PROGRESS", "unknown", 0),
                     TRV_FB_BOOK_UNKNOWN);
    assert_int_equal(book("FAILED", NULL, 0), TRV_FB_BOOK_NOT_BOOKABLE);
    assert_int_equal(book("CANCELED", NULL, 0), TRV_FB_BOOK_NOT_BOOKABLE);
    assert_int_equal(book("CANCEL_IN_PROGRESS", NULL, 0),
                     TRV_FB_BOOK_NOT_BOOKABLE);
    assert_int_equal(book("PREBOOK_IN_PROGRESS", NULL, 0),
                     TRV_FB_BOOK_NOT_BOOKABLE);
}

static void test_cancel_decision(void **state)
{
    const char *const *s;
    (void)state;
    assert_int_equal(trv_fb_cancel_decision(st("CONFIRMED")), TRV_FB_CANCEL_START);
    /* A repeat does not restart an active run ... */
    assert_int_equal(trv_fb_cancel_decision(st("CANCEL_IN_PROGRESS")), TRV_FB_CANCEL_RUNNING);
    /* ... nor a completed one (200). */
    assert_int_equal(trv_fb_cancel_decision(st("CANCELED")), TRV_FB_CANCEL_DONE);
    for (s = trv_fb_statuses; *s; s++) {
        if (strcmp(*s, "CONFIRMED") && strcmp(*s, "CANCEL_IN_PROGRESS")
            && strcmp(*s, "CANCELED")) {
            assert_int_equal(trv_fb_cancel_decision(st(*s)), TRV_FB_CANCEL_NOT_CANCELABLE);
        }
    }
}

static void test_effective_and_unfinished(void **state)
{
    (void)state;
    assert_string_equal(effective("READY_FOR_COMPLETE", 1), "EXPIRED");
    assert_string_equal(effective("READY_FOR_COMPLETE", 0),
                        "READY_FOR_COMPLETE");
    assert_string_equal(effective("CONFIRMED", 1), "CONFIRMED");
    /* SUPPLIER_A's one-active-booking rule counts these. */
    assert_true(trv_fb_unfinished(st("CREATED")));
    assert_true(trv_fb_unfinished(st("PREBOOK_IN_PROGRESS")));
    assert_true(trv_fb_unfinished(st("READY_FOR_COMPLETE")));
    assert_true(trv_fb_unfinished(st("COMPLETE_IN_PROGRESS")));
    assert_false(trv_fb_unfinished(st("CONFIRMED")));
    assert_false(trv_fb_unfinished(st("FAILED")));
    assert_false(trv_fb_unfinished(st("EXPIRED")));
    assert_false(trv_fb_unfinished(st("CANCELED")));
}

/* The same rows as the machine's own table: every legal move accepted,
 * every other pair refused and logged (TRV2650, the request id). */
static void test_status_table(void **state)
{
    expect_move moves[sizeof(allowed) / sizeof(allowed[0])];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
        moves[i].from = allowed[i][0];
        moves[i].to = allowed[i][1];
    }
    expect_moves(&trv_fb_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_fb_status_table, 9);
}

/* Book phases: started in authorizing or ordering, a takeover keeps the
 * step, ordering ends in ticketing or unknown, and unknown never orders
 * again: it goes on only as the order found at the supplier says
 * (ticketing, or out of the step), never back to ordering. */
static void test_phase_table(void **state)
{
    static const expect_move moves[] = {
        {"(none)", "authorizing"}, {"(none)", "ordering"},
        {"authorizing", "authorizing"}, {"authorizing", "ordering"}, {"authorizing", "(none)"},
        {"ordering", "ordering"}, {"ordering", "ticketing"}, {"ordering", "unknown"},
        {"ordering", "(none)"}, {"ticketing", "(none)"},
        {"unknown", "ticketing"}, {"unknown", "(none)"},
    };
    (void)state;
    expect_moves(&trv_fb_phase_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_fb_phase_table, 5);
}

/* The text pairs: each value's text reads back as the value; unknown text
 * is refused and leaves *out alone; a phase's SQL NULL is NONE. */
static void test_text_pairs(void **state)
{
    trv_fb_status s, back;
    trv_fb_phase p, pback;
    (void)state;
    for (s = TRV_FB_CREATED; s <= TRV_FB_EXPIRED; s++) {
        assert_true(trv_fb_status_from_text(trv_fb_status_text(s), &back));
        assert_int_equal(back, s);
    }
    back = TRV_FB_FAILED;
    assert_false(trv_fb_status_from_text("confirmed", &back));
    assert_false(trv_fb_status_from_text("READY", &back));
    assert_false(trv_fb_status_from_text(NULL, &back));
    assert_int_equal(back, TRV_FB_FAILED);
    assert_string_equal(trv_fb_status_text(TRV_FB_READY), "READY_FOR_COMPLETE");
    assert_string_equal(trv_fb_status_text(TRV_FB_COMPLETING), "COMPLETE_IN_PROGRESS");
    assert_string_equal(trv_fb_status_text(TRV_FB_CANCELING), "CANCEL_IN_PROGRESS");

    for (p = TRV_FB_PHASE_AUTHORIZING; p <= TRV_FB_PHASE_UNKNOWN; p++) {
        assert_true(trv_fb_phase_from_text(trv_fb_phase_text(p), &pback));
        assert_int_equal(pback, p);
    }
    assert_null(trv_fb_phase_text(TRV_FB_PHASE_NONE));
    assert_true(trv_fb_phase_from_text(NULL, &pback));
    assert_int_equal(pback, TRV_FB_PHASE_NONE);
    assert_string_equal(trv_fb_phase_text(TRV_FB_PHASE_TICKETING), "ticketing");
    pback = TRV_FB_PHASE_ORDERING;
    assert_false(trv_fb_phase_from_text("(none)", &pback));
    assert_false(trv_fb_phase_from_text("confirming", &pback)); /* a hotel phase */
    assert_false(trv_fb_phase_from_text("Ticketing", &pback));
    assert_int_equal(pback, TRV_FB_PHASE_ORDERING);
}

/* A refused move names the booking in its log line. */
static void test_transit_names_booking(void **state)
{
    trv_log log = {expect_emit, NULL, NULL, NULL};
    (void)state;
    expect_lines = 0;
    assert_true(trv_fb_transit(&log, "req_9", "fbk_1", TRV_FB_READY, TRV_FB_COMPLETING));
    assert_int_equal(expect_lines, 0);
    assert_false(trv_fb_transit(&log, "req_9", "fbk_1", TRV_FB_CANCELED, TRV_FB_CONFIRMED));
    assert_int_equal(expect_lines, 1);
    assert_string_equal(expect_rid, "req_9");
    assert_string_equal(expect_msg, "TRV2650: flight booking status of fbk_1: CANCELED -> "
                                    "CONFIRMED refused (not in the transition table)");
    assert_false(trv_fb_phase_transit(&log, "req_9", "fbk_1", TRV_FB_PHASE_UNKNOWN,
                                      TRV_FB_PHASE_ORDERING));
    assert_int_equal(expect_lines, 2);
    assert_string_equal(expect_msg, "TRV2650: flight book phase of fbk_1: unknown -> "
                                    "ordering refused (not in the transition table)");
}

/* An order as the adapters report it: PENDING is ticketed, fails or is
 * canceled; the runner reads only the four words. */
static void test_order_status(void **state)
{
    static const expect_move moves[] = {
        {"PENDING", "TICKETED"}, {"PENDING", "FAILED"}, {"PENDING", "CANCELED"},
    };
    trv_forder_status s, back;
    (void)state;
    expect_moves(&trv_forder_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_forder_status_table, 4);
    for (s = TRV_FORDER_TICKETED; s <= TRV_FORDER_CANCELED; s++) {
        assert_true(trv_forder_status_from_text(trv_forder_status_text(s), &back));
        assert_int_equal(back, s);
    }
    back = TRV_FORDER_PENDING;
    assert_false(trv_forder_status_from_text("CONFIRMED", &back));
    assert_false(trv_forder_status_from_text("cancelled", &back));
    assert_false(trv_forder_status_from_text(NULL, &back));
    assert_int_equal(back, TRV_FORDER_PENDING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statuses),
        cmocka_unit_test(test_every_pair),
        cmocka_unit_test(test_book_decision),
        cmocka_unit_test(test_cancel_decision),
        cmocka_unit_test(test_effective_and_unfinished),
        cmocka_unit_test(test_status_table),
        cmocka_unit_test(test_phase_table),
        cmocka_unit_test(test_text_pairs),
        cmocka_unit_test(test_transit_names_booking),
        cmocka_unit_test(test_order_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
