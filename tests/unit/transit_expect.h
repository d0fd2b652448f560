/* Shared by the state machine tests: a machine (core/transit.h) has
 * exactly the expected moves; every other pair is refused through
 * trv_transit_check with one TRV2650 error line carrying the request id;
 * every state's text reads back as that state. */
#ifndef TRV_TRANSIT_EXPECT_H
#define TRV_TRANSIT_EXPECT_H

#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "core/transit.h"

typedef struct expect_move {
    const char *from, *to;
} expect_move;

static int expect_lines, expect_level;
static char expect_rid[64], expect_msg[512];

static void expect_emit(void *baton, int level, const char *rid, const char *msg)
{
    (void)baton;
    expect_lines++;
    expect_level = level;
    snprintf(expect_rid, sizeof(expect_rid), "%s", rid);
    snprintf(expect_msg, sizeof(expect_msg), "%s", msg);
}

static int expect_listed(const expect_move *moves, size_t n, const char *from, const char *to)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (strcmp(moves[i].from, from) == 0 && strcmp(moves[i].to, to) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Every ordered pair of states: allowed exactly when listed; a refused
 * pair is logged once (error, TRV2650, the request id, both texts). */
static void expect_moves(const trv_transit_table *t, const expect_move *moves, size_t n)
{
    trv_log log = {expect_emit, NULL, NULL, NULL};
    int from, to, yes = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        /* A listed move names real states. */
        if (trv_transit_from_text(t, moves[i].from) < 0
            || trv_transit_from_text(t, moves[i].to) < 0) {
            fail_msg("%s: %s -> %s names an unknown state", t->machine, moves[i].from,
                     moves[i].to);
        }
    }
    for (from = 0; from < t->n; from++) {
        for (to = 0; to < t->n; to++) {
            const char *f = t->names[from], *o = t->names[to];
            int expect = expect_listed(moves, n, f, o);
            expect_lines = 0;
            if (trv_transit_allowed(t, from, to) != expect
                || trv_transit_check(t, &log, "req_transit", "sub_1", from, to) != expect) {
                fail_msg("%s: %s -> %s: expected %s", t->machine, f, o,
                         expect ? "allowed" : "refused");
            }
            if (expect) {
                assert_int_equal(expect_lines, 0);
            }
            else {
                char want[256];
                assert_int_equal(expect_lines, 1);
                assert_int_equal(expect_level, TRV_LOG_ERR);
                assert_string_equal(expect_rid, "req_transit");
                snprintf(want, sizeof(want), "TRV2650: %s of sub_1: %s -> %s refused",
                         t->machine, f, o);
                if (strncmp(expect_msg, want, strlen(want)) != 0) {
                    fail_msg("logged \"%s\", expected it to start \"%s\"", expect_msg, want);
                }
            }
            yes += expect;
        }
    }
    assert_int_equal(yes, (int)n);
    /* Out of range is never a move. */
    assert_false(trv_transit_allowed(t, -1, 0));
    assert_false(trv_transit_allowed(t, 0, t->n));
}

/* The table's texts: n of them, distinct, each read back as its state;
 * a near miss (case), an empty text and NULL are no state. */
static void expect_texts(const trv_transit_table *t, int n)
{
    int i;
    assert_int_equal(t->n, n);
    assert_null(t->names[n]);
    for (i = 0; i < n; i++) {
        char lower[64];
        size_t k;
        assert_int_equal(trv_transit_from_text(t, t->names[i]), i);
        assert_string_equal(trv_transit_text(t, i), t->names[i]);
        snprintf(lower, sizeof(lower), "%s", t->names[i]);
        for (k = 0; lower[k]; k++) {
            lower[k] = (char)(lower[k] >= 'A' && lower[k] <= 'Z' ? lower[k] + 32
                              : lower[k] >= 'a' && lower[k] <= 'z' ? lower[k] - 32 : lower[k]);
        }
        assert_int_equal(trv_transit_from_text(t, lower), -1);
    }
    assert_int_equal(trv_transit_from_text(t, ""), -1);
    assert_int_equal(trv_transit_from_text(t, NULL), -1);
    assert_string_equal(trv_transit_text(t, n), "?");
}

#endif
