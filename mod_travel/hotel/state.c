#include "state.h"
#include "lifecycle/status.h"

#include <stddef.h>

TRV_BOOKING_STATUSES(TRV_HB_CREATED, TRV_HB_PREBOOK_IN_PROGRESS, TRV_HB_READY, TRV_HB_COMPLETING,
                     TRV_HB_CONFIRMED, TRV_HB_CANCELING, TRV_HB_CANCELED, TRV_HB_FAILED,
                     TRV_HB_EXPIRED);

const char *const *const trv_hb_statuses = trv_booking_statuses;

/* What booking_store.c and cancellation_store.c do: every domain's moves
 * and no more (CREATED -> PREBOOK_IN_PROGRESS is the schema's, stored by
 * no path today). Unlike a flight, a hotel booking is never confirmed or
 * failed straight from READY_FOR_COMPLETE. */
static const unsigned char status_moves[TRV_BOOKING_N_STATUS][TRV_BOOKING_N_STATUS] = {
    TRV_BOOKING_STATUS_MOVES};

const trv_transit_table trv_hb_status_table = {"hotel booking status", TRV_BOOKING_N_STATUS,
                                               trv_booking_statuses, &status_moves[0][0]};

/* Waiting is confirming: the supplier answered PENDING and is read until
 * it decides. */
static const char *const phase_names[] = {"(none)", "authorizing", "ordering", "confirming",
                                          "unknown", NULL};

static const unsigned char phase_moves[TRV_LIFECYCLE_N_PHASE][TRV_LIFECYCLE_N_PHASE] = {
    TRV_BOOKING_PHASE_MOVES};

const trv_transit_table trv_hb_phase_table = {"hotel book phase", TRV_LIFECYCLE_N_PHASE,
                                              phase_names, &phase_moves[0][0]};
