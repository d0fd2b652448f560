/* The hotel booking state machine: exactly the moves booking_store.c and cancellation_store.c
 * make (and CREATED -> PREBOOK_IN_PROGRESS, the schema's), every other
 * pair refused and logged; book phases as the runner moves them; every
 * text reads back as its value and unknown text is refused. */
#include "transit_expect.h"

#include "hotel/booked_status.h"
#include "hotel/cancel_status.h"
#include "hotel/state.h"

static void status_table(void **state)
{
    static const expect_move moves[] = {
        {"CREATED", "PREBOOK_IN_PROGRESS"},
        {"PREBOOK_IN_PROGRESS", "READY_FOR_COMPLETE"},
        {"PREBOOK_IN_PROGRESS", "FAILED"},
        {"READY_FOR_COMPLETE", "COMPLETE_IN_PROGRESS"},
        {"READY_FOR_COMPLETE", "EXPIRED"},
        {"COMPLETE_IN_PROGRESS", "CONFIRMED"},
        {"COMPLETE_IN_PROGRESS", "FAILED"},
        {"COMPLETE_IN_PROGRESS", "READY_FOR_COMPLETE"},
        {"CONFIRMED", "CANCEL_IN_PROGRESS"},
        {"CANCEL_IN_PROGRESS", "CANCELED"},
        {"CANCEL_IN_PROGRESS", "CONFIRMED"},
    };
    (void)state;
    expect_moves(&trv_hb_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_hb_status_table, 9);
    /* Terminal states stay terminal; a hotel is never confirmed without
     * its book step. */
    assert_false(trv_transit_allowed(&trv_hb_status_table, TRV_HB_CANCELED, TRV_HB_CONFIRMED));
    assert_false(trv_transit_allowed(&trv_hb_status_table, TRV_HB_EXPIRED, TRV_HB_READY));
    assert_false(trv_transit_allowed(&trv_hb_status_table, TRV_HB_READY, TRV_HB_CONFIRMED));
}

/* Started in authorizing or ordering; a taken-over authorizing step stays
 * authorizing, an interrupted order becomes unknown; the supplier's
 * PENDING leads to confirming (from ordering or unknown). */
static void phase_table(void **state)
{
    static const expect_move moves[] = {
        {"(none)", "authorizing"}, {"(none)", "ordering"},
        {"authorizing", "authorizing"}, {"authorizing", "ordering"}, {"authorizing", "(none)"},
        {"ordering", "confirming"}, {"ordering", "unknown"}, {"ordering", "(none)"},
        {"unknown", "confirming"}, {"unknown", "(none)"},
        {"confirming", "(none)"},
    };
    (void)state;
    expect_moves(&trv_hb_phase_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_hb_phase_table, 5);
}

static void text_pairs(void **state)
{
    trv_hb_status s;
    int back;
    trv_hb_phase p;
    int pback;
    const char *const *t;
    int n = 0;
    (void)state;
    for (s = TRV_HB_CREATED; s <= TRV_HB_EXPIRED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_hb_status_table, trv_transit_text(&trv_hb_status_table, s)), s);
    }
    /* The list filter's texts are the statuses'. */
    for (t = trv_hb_statuses; *t; t++, n++) {
        assert_true((back = trv_transit_from_text(&trv_hb_status_table, *t)) >= 0);
        assert_string_equal(trv_transit_text(&trv_hb_status_table, back), *t);
    }
    assert_int_equal(n, 9);
    assert_int_equal(trv_transit_from_text(&trv_hb_status_table, "canceled"), -1);
    assert_int_equal(trv_transit_from_text(&trv_hb_status_table, "CANCELLED"), -1);
    assert_int_equal(trv_transit_from_text(&trv_hb_status_table, NULL), -1);

    for (p = TRV_HB_PHASE_AUTHORIZING; p <= TRV_HB_PHASE_UNKNOWN; p++) {
        assert_int_equal(trv_transit_from_column(&trv_hb_phase_table, trv_transit_column_text(&trv_hb_phase_table, p)), p);
    }
    assert_null(trv_transit_column_text(&trv_hb_phase_table, TRV_HB_PHASE_NONE));
    assert_true((pback = trv_transit_from_column(&trv_hb_phase_table, NULL)) >= 0);
    assert_int_equal(pback, TRV_HB_PHASE_NONE);
    assert_string_equal(trv_transit_column_text(&trv_hb_phase_table, TRV_HB_PHASE_CONFIRMING), "confirming");
    assert_int_equal(trv_transit_from_column(&trv_hb_phase_table, "ticketing"), -1); /* a flight phase */
    assert_int_equal(trv_transit_from_column(&trv_hb_phase_table, "(none)"), -1);
    assert_int_equal(trv_transit_from_column(&trv_hb_phase_table, ""), -1);
}

static void transit_names_booking(void **state)
{
    trv_log log = {expect_emit, NULL, NULL, NULL};
    (void)state;
    expect_lines = 0;
    assert_true(trv_transit_check(&trv_hb_status_table, &log, "req_h", "hbk_1", TRV_HB_CONFIRMED, TRV_HB_CANCELING));
    assert_true(trv_transit_check(&trv_hb_phase_table, &log, "req_h", "hbk_1", TRV_HB_PHASE_UNKNOWN,
                                     TRV_HB_PHASE_CONFIRMING));
    assert_int_equal(expect_lines, 0);
    assert_false(trv_transit_check(&trv_hb_status_table, &log, "req_h", "hbk_1", TRV_HB_FAILED, TRV_HB_READY));
    assert_int_equal(expect_lines, 1);
    assert_string_equal(expect_rid, "req_h");
    assert_string_equal(expect_msg, "TRV2650: hotel booking status of hbk_1: FAILED -> "
                                    "READY_FOR_COMPLETE refused (not in the transition table)");
    assert_false(trv_transit_check(&trv_hb_phase_table, &log, "req_h", "hbk_1", TRV_HB_PHASE_CONFIRMING,
                                      TRV_HB_PHASE_ORDERING));
    assert_int_equal(expect_lines, 2);
}

/* A cancellation attempt: decided once; a FAILED one is resumed. */
static void cancel_table(void **state)
{
    static const expect_move moves[] = {
        {"IN_PROGRESS", "SUCCEEDED"},
        {"IN_PROGRESS", "FAILED"},
        {"FAILED", "IN_PROGRESS"},
    };
    trv_hcancel_status s;
    (void)state;
    expect_moves(&trv_hcancel_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_hcancel_status_table, 3);
    for (s = TRV_HCANCEL_IN_PROGRESS; s <= TRV_HCANCEL_FAILED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_hcancel_status_table, trv_transit_text(&trv_hcancel_status_table, s)), s);
    }
    assert_int_equal(trv_transit_from_text(&trv_hcancel_status_table, "CANCELED"), -1);
    assert_int_equal(trv_transit_from_text(&trv_hcancel_status_table, NULL), -1);
}

/* A booking as a supplier adapter reports it. */
static void booked_table(void **state)
{
    static const expect_move moves[] = {
        {"PENDING", "CONFIRMED"}, {"PENDING", "CANCELED"}, {"CONFIRMED", "CANCELED"},
    };
    trv_hbooked_status s;
    (void)state;
    expect_moves(&trv_hbooked_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_hbooked_status_table, 3);
    for (s = TRV_HBOOKED_CONFIRMED; s <= TRV_HBOOKED_CANCELED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_hbooked_status_table, trv_transit_text(&trv_hbooked_status_table, s)), s);
    }
    assert_int_equal(trv_transit_from_text(&trv_hbooked_status_table, "CANCELLED"), -1); /* a supplier's spelling */
    assert_int_equal(trv_transit_from_text(&trv_hbooked_status_table, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_table),
        cmocka_unit_test(phase_table),
        cmocka_unit_test(text_pairs),
        cmocka_unit_test(transit_names_booking),
        cmocka_unit_test(cancel_table),
        cmocka_unit_test(booked_table),
    };
    return UNIT_RUN(tests);
}
