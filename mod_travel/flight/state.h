/* The flight booking state machine of the service document: the statuses,
 * the book phases of COMPLETE_IN_PROGRESS, which transitions exist, and what
 * book, cancel and reads do in each status. Pure decisions; the SQL of
 * booking_store.c applies them with guarded UPDATEs (... WHERE status = <from>), so
 * a race loses cleanly. Text only at the edge: *_from_text when a row or a
 * query is read, *_text when JSON or an SQL parameter is written. */
#ifndef TRV_FLIGHT_STATE_H
#define TRV_FLIGHT_STATE_H

#include "core/transit.h"

typedef enum {
    TRV_FB_CREATED,
    TRV_FB_PREBOOK_IN_PROGRESS,
    TRV_FB_READY,           /* READY_FOR_COMPLETE */
    TRV_FB_COMPLETING,      /* COMPLETE_IN_PROGRESS */
    TRV_FB_CONFIRMED,
    TRV_FB_CANCELING,       /* CANCEL_IN_PROGRESS */
    TRV_FB_CANCELED,
    TRV_FB_FAILED,
    TRV_FB_EXPIRED
} trv_fb_status;

/* The step of a COMPLETE_IN_PROGRESS booking (column book_phase; NONE is
 * SQL NULL, every other status). */
typedef enum {
    TRV_FB_PHASE_NONE,
    TRV_FB_PHASE_AUTHORIZING,
    TRV_FB_PHASE_ORDERING,
    TRV_FB_PHASE_TICKETING,
    TRV_FB_PHASE_UNKNOWN     /* book went unanswered: never sent again */
} trv_fb_phase;

/* The machines (core/transit.h): statuses, and phases (a phase moving to
 * itself is a takeover of the step by another owner). */
extern const trv_transit_table trv_fb_status_table;
extern const trv_transit_table trv_fb_phase_table;

/* Every status text, NULL-terminated (for query validation): the shared
 * ones (lifecycle/status.h). */
extern const char *const *const trv_fb_statuses;

/* Their texts: trv_transit_text (statuses), trv_transit_column_text
 * (phases: NULL for NONE) and back, trv_transit_from_text,
 * trv_transit_from_column (core/transit.h). */

/* An unfinished booking: it still holds its offer (SUPPLIER_A sells an offer
 * to one unfinished booking at a time). */
int trv_fb_unfinished(trv_fb_status status);

/* What POST .../book does, given the status, the book phase (NONE unless
 * COMPLETE_IN_PROGRESS) and whether expires_at has passed. */
typedef enum {
    TRV_FB_BOOK_START,        /* READY_FOR_COMPLETE in time: pay and ticket */
    TRV_FB_BOOK_CONFIRMED,    /* 200, the booking unchanged */
    TRV_FB_BOOK_IN_PROGRESS,  /* 202, the same answer as the first */
    TRV_FB_BOOK_UNKNOWN,      /* 500 result_unknown again: never retried */
    TRV_FB_BOOK_EXPIRED,      /* 409 invalid_state: the booking expired */
    TRV_FB_BOOK_NOT_BOOKABLE  /* 409 invalid_state (failed, canceled, ...) */
} trv_fb_book_action;

trv_fb_book_action trv_fb_book_decision(trv_fb_status status, trv_fb_phase phase,
                                        int past_expiry);

/* What POST .../cancel does in a status. */
typedef enum {
    TRV_FB_CANCEL_START,      /* CONFIRMED: 202, the background run starts */
    TRV_FB_CANCEL_RUNNING,    /* CANCEL_IN_PROGRESS: 202, no second run */
    TRV_FB_CANCEL_DONE,       /* CANCELED: 200 (restarts failed refunds) */
    TRV_FB_CANCEL_NOT_CANCELABLE /* 409 invalid_state */
} trv_fb_cancel_action;

trv_fb_cancel_action trv_fb_cancel_decision(trv_fb_status status);

/* The status a read shows: READY_FOR_COMPLETE past its expires_at is
 * EXPIRED (the read also stores it). */
trv_fb_status trv_fb_effective_status(trv_fb_status status, int past_expiry);

#endif
