/* The booking statuses and book phases every domain shares, as one
 * machine: the service document's nine statuses (the texts the schema
 * CHECKs on flight_bookings and hotel_bookings), the runner's five phases
 * (lifecycle/book.h), and the moves every domain's booking makes between
 * them. A domain's state.c lists its enums in this order (checked at
 * compile time by TRV_BOOKING_STATUSES and, in its book.c,
 * TRV_LIFECYCLE_PHASES), builds its transition tables (core/transit.h)
 * from TRV_BOOKING_STATUS_MOVES and TRV_BOOKING_PHASE_MOVES and adds only
 * the moves that are its own. */
#ifndef TRV_LIFECYCLE_STATUS_H
#define TRV_LIFECYCLE_STATUS_H

enum {
    TRV_BOOKING_CREATED,
    TRV_BOOKING_PREBOOK_IN_PROGRESS,
    TRV_BOOKING_READY_FOR_COMPLETE,
    TRV_BOOKING_COMPLETE_IN_PROGRESS,
    TRV_BOOKING_CONFIRMED,
    TRV_BOOKING_CANCEL_IN_PROGRESS,
    TRV_BOOKING_CANCELED,
    TRV_BOOKING_FAILED,
    TRV_BOOKING_EXPIRED,
    TRV_BOOKING_N_STATUS
};

/* Their texts, in that order, NULL-terminated (a transition table's
 * names; the bookings list's status filter). */
extern const char *const trv_booking_statuses[];

#define TRV_BOOKING_STATUSES(created, prebooking, ready, completing, confirmed, canceling, \
                             canceled, failed, expired) \
    _Static_assert((int)(created) == TRV_BOOKING_CREATED \
                   && (int)(prebooking) == TRV_BOOKING_PREBOOK_IN_PROGRESS \
                   && (int)(ready) == TRV_BOOKING_READY_FOR_COMPLETE \
                   && (int)(completing) == TRV_BOOKING_COMPLETE_IN_PROGRESS \
                   && (int)(confirmed) == TRV_BOOKING_CONFIRMED \
                   && (int)(canceling) == TRV_BOOKING_CANCEL_IN_PROGRESS \
                   && (int)(canceled) == TRV_BOOKING_CANCELED \
                   && (int)(failed) == TRV_BOOKING_FAILED \
                   && (int)(expired) == TRV_BOOKING_EXPIRED \
                   && (int)(expired) + 1 == TRV_BOOKING_N_STATUS, \
                   "the domain's statuses are the shared ones (lifecycle/status.h)")

/* The book phases of COMPLETE_IN_PROGRESS (the column book_phase; NONE is
 * SQL NULL, every other status): waiting is a domain's ticketing or
 * confirming. */
enum {
    TRV_LIFECYCLE_PHASE_NONE,
    TRV_LIFECYCLE_PHASE_AUTHORIZING,
    TRV_LIFECYCLE_PHASE_ORDERING,
    TRV_LIFECYCLE_PHASE_WAITING,
    TRV_LIFECYCLE_PHASE_UNKNOWN,
    TRV_LIFECYCLE_N_PHASE
};

/* The moves of every domain's booking, as the designated initializers of
 * its allowed[from][to] status table: prebook's row is inserted
 * PREBOOK_IN_PROGRESS (CREATED -> PREBOOK_IN_PROGRESS is the schema's),
 * prebook makes it READY_FOR_COMPLETE or FAILED, which expires or is
 * booked; book confirms or fails it, or goes back to READY_FOR_COMPLETE
 * when its attempt changed nothing (a declined card, a supplier that was
 * unreachable); cancel starts from CONFIRMED and ends CANCELED, or
 * CONFIRMED again when refused. */
#define TRV_BOOKING_STATUS_MOVES \
    [TRV_BOOKING_CREATED][TRV_BOOKING_PREBOOK_IN_PROGRESS] = 1, \
    [TRV_BOOKING_PREBOOK_IN_PROGRESS][TRV_BOOKING_READY_FOR_COMPLETE] = 1, \
    [TRV_BOOKING_PREBOOK_IN_PROGRESS][TRV_BOOKING_FAILED] = 1, \
    [TRV_BOOKING_READY_FOR_COMPLETE][TRV_BOOKING_COMPLETE_IN_PROGRESS] = 1, \
    [TRV_BOOKING_READY_FOR_COMPLETE][TRV_BOOKING_EXPIRED] = 1, \
    [TRV_BOOKING_COMPLETE_IN_PROGRESS][TRV_BOOKING_CONFIRMED] = 1, \
    [TRV_BOOKING_COMPLETE_IN_PROGRESS][TRV_BOOKING_FAILED] = 1, \
    [TRV_BOOKING_COMPLETE_IN_PROGRESS][TRV_BOOKING_READY_FOR_COMPLETE] = 1, \
    [TRV_BOOKING_CONFIRMED][TRV_BOOKING_CANCEL_IN_PROGRESS] = 1, \
    [TRV_BOOKING_CANCEL_IN_PROGRESS][TRV_BOOKING_CANCELED] = 1, \
    [TRV_BOOKING_CANCEL_IN_PROGRESS][TRV_BOOKING_CONFIRMED] = 1

/* The same for its allowed[from][to] phase table: book starts in
 * authorizing (the service collects payment) or ordering; an authorizing
 * step taken over stays authorizing (X -> X, a new owner); an order that
 * went unanswered becomes unknown (read, never sent again); the
 * supplier's PENDING, or the order an unanswered book made found at the
 * supplier, moves to waiting; confirm, fail and revert leave the phase
 * (-> NONE). */
#define TRV_BOOKING_PHASE_MOVES \
    [TRV_LIFECYCLE_PHASE_NONE][TRV_LIFECYCLE_PHASE_AUTHORIZING] = 1, \
    [TRV_LIFECYCLE_PHASE_NONE][TRV_LIFECYCLE_PHASE_ORDERING] = 1, \
    [TRV_LIFECYCLE_PHASE_AUTHORIZING][TRV_LIFECYCLE_PHASE_AUTHORIZING] = 1, \
    [TRV_LIFECYCLE_PHASE_AUTHORIZING][TRV_LIFECYCLE_PHASE_ORDERING] = 1, \
    [TRV_LIFECYCLE_PHASE_AUTHORIZING][TRV_LIFECYCLE_PHASE_NONE] = 1, \
    [TRV_LIFECYCLE_PHASE_ORDERING][TRV_LIFECYCLE_PHASE_WAITING] = 1, \
    [TRV_LIFECYCLE_PHASE_ORDERING][TRV_LIFECYCLE_PHASE_UNKNOWN] = 1, \
    [TRV_LIFECYCLE_PHASE_ORDERING][TRV_LIFECYCLE_PHASE_NONE] = 1, \
    [TRV_LIFECYCLE_PHASE_WAITING][TRV_LIFECYCLE_PHASE_NONE] = 1, \
    [TRV_LIFECYCLE_PHASE_UNKNOWN][TRV_LIFECYCLE_PHASE_WAITING] = 1, \
    [TRV_LIFECYCLE_PHASE_UNKNOWN][TRV_LIFECYCLE_PHASE_NONE] = 1

#endif
