/* The hotel booking state machine: the statuses (the same nine texts as a
 * flight's, CHECKed by sql/100), the book phases of COMPLETE_IN_PROGRESS
 * and which moves exist. booking_store.c and cancellation_store.c apply the moves with
 * guarded UPDATEs (... WHERE status = <from>), so a race loses cleanly.
 * Text only at the edge: *_from_text when a row or a query is read,
 * *_text when JSON or an SQL parameter is written. */
#ifndef TRV_HOTEL_STATE_H
#define TRV_HOTEL_STATE_H

#include "core/transit.h"

typedef enum {
    TRV_HB_CREATED,
    TRV_HB_PREBOOK_IN_PROGRESS,
    TRV_HB_READY,           /* READY_FOR_COMPLETE */
    TRV_HB_COMPLETING,      /* COMPLETE_IN_PROGRESS */
    TRV_HB_CONFIRMED,
    TRV_HB_CANCELING,       /* CANCEL_IN_PROGRESS */
    TRV_HB_CANCELED,
    TRV_HB_FAILED,
    TRV_HB_EXPIRED
} trv_hb_status;

/* The step of a COMPLETE_IN_PROGRESS booking (column book_phase; NONE is
 * SQL NULL, every other status). */
typedef enum {
    TRV_HB_PHASE_NONE,
    TRV_HB_PHASE_AUTHORIZING,
    TRV_HB_PHASE_ORDERING,
    TRV_HB_PHASE_CONFIRMING,  /* the supplier answered PENDING: read until it decides */
    TRV_HB_PHASE_UNKNOWN      /* book went unanswered: read, never bought again */
} trv_hb_phase;

extern const trv_transit_table trv_hb_status_table;
extern const trv_transit_table trv_hb_phase_table;

/* Every status text, NULL-terminated (for query validation): the shared
 * ones (lifecycle/status.h). */
extern const char *const *const trv_hb_statuses;

/* Their texts: trv_transit_text (statuses), trv_transit_column_text
 * (phases: NULL for NONE) and back, trv_transit_from_text,
 * trv_transit_from_column (core/transit.h). */

/* A move of a booking is judged by trv_transit_check over these tables
 * (lifecycle/moves.c): 1 when allowed, else 0 and a TRV2650 error line. */

#endif
