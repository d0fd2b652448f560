#include "state.h"

#include <stddef.h>

#define N_STATUS (TRV_HB_EXPIRED + 1)
#define N_PHASE (TRV_HB_PHASE_UNKNOWN + 1)

const char *const trv_hb_statuses[] = {
    "CREATED", "PREBOOK_IN_PROGRESS", "READY_FOR_COMPLETE", "COMPLETE_IN_PROGRESS",
    "CONFIRMED", "CANCEL_IN_PROGRESS", "CANCELED", "FAILED", "EXPIRED", NULL};

/* What booking_store.c and cancellation_store.c do, allowed[from][to]: prebook's row is
 * inserted PREBOOK_IN_PROGRESS (CREATED -> PREBOOK_IN_PROGRESS is the
 * schema's, stored by no path today); book goes back to READY_FOR_COMPLETE
 * when its attempt changed nothing; a refused cancel goes back to
 * CONFIRMED. Unlike a flight, a hotel booking is never confirmed or failed
 * straight from READY_FOR_COMPLETE. */
static const unsigned char status_moves[N_STATUS][N_STATUS] = {
    [TRV_HB_CREATED][TRV_HB_PREBOOK_IN_PROGRESS] = 1,
    [TRV_HB_PREBOOK_IN_PROGRESS][TRV_HB_READY] = 1,
    [TRV_HB_PREBOOK_IN_PROGRESS][TRV_HB_FAILED] = 1,
    [TRV_HB_READY][TRV_HB_COMPLETING] = 1,
    [TRV_HB_READY][TRV_HB_EXPIRED] = 1,
    [TRV_HB_COMPLETING][TRV_HB_CONFIRMED] = 1,
    [TRV_HB_COMPLETING][TRV_HB_FAILED] = 1,
    [TRV_HB_COMPLETING][TRV_HB_READY] = 1,
    [TRV_HB_CONFIRMED][TRV_HB_CANCELING] = 1,
    [TRV_HB_CANCELING][TRV_HB_CANCELED] = 1,
    [TRV_HB_CANCELING][TRV_HB_CONFIRMED] = 1,
};

const trv_transit_table trv_hb_status_table = {"hotel booking status", N_STATUS,
                                               trv_hb_statuses, &status_moves[0][0]};

static const char *const phase_names[] = {"(none)", "authorizing", "ordering", "confirming",
                                          "unknown", NULL};

/* book starts in authorizing (the service collects payment) or ordering;
 * an authorizing step taken over stays authorizing (new owner), an
 * interrupted order becomes unknown (read, never sent again); the
 * supplier's PENDING moves ordering or unknown to confirming; confirm,
 * fail and revert leave the phase (-> NONE). */
static const unsigned char phase_moves[N_PHASE][N_PHASE] = {
    [TRV_HB_PHASE_NONE][TRV_HB_PHASE_AUTHORIZING] = 1,
    [TRV_HB_PHASE_NONE][TRV_HB_PHASE_ORDERING] = 1,
    [TRV_HB_PHASE_AUTHORIZING][TRV_HB_PHASE_AUTHORIZING] = 1,
    [TRV_HB_PHASE_AUTHORIZING][TRV_HB_PHASE_ORDERING] = 1,
    [TRV_HB_PHASE_AUTHORIZING][TRV_HB_PHASE_NONE] = 1,
    [TRV_HB_PHASE_ORDERING][TRV_HB_PHASE_CONFIRMING] = 1,
    [TRV_HB_PHASE_ORDERING][TRV_HB_PHASE_UNKNOWN] = 1,
    [TRV_HB_PHASE_ORDERING][TRV_HB_PHASE_NONE] = 1,
    [TRV_HB_PHASE_UNKNOWN][TRV_HB_PHASE_CONFIRMING] = 1,
    [TRV_HB_PHASE_UNKNOWN][TRV_HB_PHASE_NONE] = 1,
    [TRV_HB_PHASE_CONFIRMING][TRV_HB_PHASE_NONE] = 1,
};

const trv_transit_table trv_hb_phase_table = {"hotel book phase", N_PHASE, phase_names,
                                              &phase_moves[0][0]};
