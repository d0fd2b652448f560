/* State machines as tables, the way httpd's h2_stream.c keeps its stream
 * states: the states are the values 0..n-1 of an enum, a table says which
 * moves exist, and text appears only at the edge (a row read, a JSON or
 * SQL parameter written). Every machine of the product (flight/state.h,
 * hotel/state.h, payment/pay_status.h, ...) is one trv_transit_table; an
 * illegal move is refused and logged in one place: trv_transit_check. */
#ifndef TRV_TRANSIT_H
#define TRV_TRANSIT_H

#include "log.h"

typedef struct trv_transit_table {
    const char *machine;            /* "flight booking status": in the log line */
    int n;                          /* number of states */
    const char *const *names;       /* n texts, in enum order, NULL-terminated */
    const unsigned char *allowed;   /* n * n: allowed[from * n + to] */
} trv_transit_table;

/* 1 when the machine has the move from -> to (both in 0..n-1). */
int trv_transit_allowed(const trv_transit_table *t, int from, int to);

/* The one place a move is judged: 1 when it is allowed; otherwise 0 and an
 * error line "TRV2650: [request id] <machine> of <subject>: FROM -> TO
 * refused" (a bug: callers only ask for moves their guards allow). */
int trv_transit_check(const trv_transit_table *t, const trv_log *log,
                      const char *request_id, const char *subject, int from, int to);

/* The state's text, or "?" outside 0..n-1. */
const char *trv_transit_text(const trv_transit_table *t, int state);

/* The state whose text is exactly `text` (case matters), or -1 (NULL and
 * unknown text included). */
int trv_transit_from_text(const trv_transit_table *t, const char *text);

/* For a nullable column whose state 0 is SQL NULL (a book phase): the
 * column text (NULL for state 0), and the state of a column text (NULL is
 * state 0; state 0's own name, a log word, is no column text: -1). */
const char *trv_transit_column_text(const trv_transit_table *t, int state);
int trv_transit_from_column(const trv_transit_table *t, const char *text);

/* A row's state as its enum field keeps it (b->status = trv_transit_or(&table,
 * text, b->status)): the state of text, or fallback when it is none of
 * them. The domain lists only its names and moves; its enum stays the type
 * its switches cover (-Wswitch). */
int trv_transit_or(const trv_transit_table *t, const char *text, int fallback);
int trv_transit_column_or(const trv_transit_table *t, const char *text, int fallback);

#endif
