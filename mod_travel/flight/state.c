#include "state.h"
#include "lifecycle/status.h"

#include <stddef.h>

TRV_BOOKING_STATUSES(TRV_FB_CREATED, TRV_FB_PREBOOK_IN_PROGRESS, TRV_FB_READY, TRV_FB_COMPLETING,
                     TRV_FB_CONFIRMED, TRV_FB_CANCELING, TRV_FB_CANCELED, TRV_FB_FAILED,
                     TRV_FB_EXPIRED);

const char *const *const trv_fb_statuses = trv_booking_statuses;

/* Every domain's moves (the service document's table), and a flight's
 * own: READY_FOR_COMPLETE straight to CONFIRMED or FAILED. allowed[from][to]. */
static const unsigned char status_moves[TRV_BOOKING_N_STATUS][TRV_BOOKING_N_STATUS] = {
    TRV_BOOKING_STATUS_MOVES,
    [TRV_FB_READY][TRV_FB_CONFIRMED] = 1,
    [TRV_FB_READY][TRV_FB_FAILED] = 1,
};

const trv_transit_table trv_fb_status_table = {"flight booking status", TRV_BOOKING_N_STATUS,
                                               trv_booking_statuses, &status_moves[0][0]};

/* NONE is the SQL NULL of every status but COMPLETE_IN_PROGRESS; its text
 * here only names it in log lines. Waiting is ticketing (the airline
 * answered PENDING). */
static const char *const phase_names[] = {"(none)", "authorizing", "ordering", "ticketing",
                                          "unknown", NULL};

/* Every domain's phase moves, and a flight's own: an ordering step taken
 * over stays ordering (new owner). */
static const unsigned char phase_moves[TRV_LIFECYCLE_N_PHASE][TRV_LIFECYCLE_N_PHASE] = {
    TRV_BOOKING_PHASE_MOVES,
    [TRV_FB_PHASE_ORDERING][TRV_FB_PHASE_ORDERING] = 1,
};

const trv_transit_table trv_fb_phase_table = {"flight book phase", TRV_LIFECYCLE_N_PHASE,
                                              phase_names, &phase_moves[0][0]};

int trv_fb_unfinished(trv_fb_status status)
{
    switch (status) {
    case TRV_FB_CREATED:
    case TRV_FB_PREBOOK_IN_PROGRESS:
    case TRV_FB_READY:
    case TRV_FB_COMPLETING:
        return 1;
    case TRV_FB_CONFIRMED:
    case TRV_FB_CANCELING:
    case TRV_FB_CANCELED:
    case TRV_FB_FAILED:
    case TRV_FB_EXPIRED:
        return 0;
    }
    return 0;
}

trv_fb_book_action trv_fb_book_decision(trv_fb_status status, trv_fb_phase phase,
                                        int past_expiry)
{
    switch (status) {
    case TRV_FB_READY:
        return past_expiry ? TRV_FB_BOOK_EXPIRED : TRV_FB_BOOK_START;
    case TRV_FB_EXPIRED:
        return TRV_FB_BOOK_EXPIRED;
    case TRV_FB_CONFIRMED:
        return TRV_FB_BOOK_CONFIRMED;
    case TRV_FB_COMPLETING:
        return phase == TRV_FB_PHASE_UNKNOWN ? TRV_FB_BOOK_UNKNOWN : TRV_FB_BOOK_IN_PROGRESS;
    case TRV_FB_CREATED:
    case TRV_FB_PREBOOK_IN_PROGRESS:
    case TRV_FB_CANCELING:
    case TRV_FB_CANCELED:
    case TRV_FB_FAILED:
        return TRV_FB_BOOK_NOT_BOOKABLE;
    }
    return TRV_FB_BOOK_NOT_BOOKABLE;
}

trv_fb_cancel_action trv_fb_cancel_decision(trv_fb_status status)
{
    switch (status) {
    case TRV_FB_CONFIRMED:
        return TRV_FB_CANCEL_START;
    case TRV_FB_CANCELING:
        return TRV_FB_CANCEL_RUNNING;
    case TRV_FB_CANCELED:
        return TRV_FB_CANCEL_DONE;
    case TRV_FB_CREATED:
    case TRV_FB_PREBOOK_IN_PROGRESS:
    case TRV_FB_READY:
    case TRV_FB_COMPLETING:
    case TRV_FB_FAILED:
    case TRV_FB_EXPIRED:
        return TRV_FB_CANCEL_NOT_CANCELABLE;
    }
    return TRV_FB_CANCEL_NOT_CANCELABLE;
}

trv_fb_status trv_fb_effective_status(trv_fb_status status, int past_expiry)
{
    return status == TRV_FB_READY && past_expiry ? TRV_FB_EXPIRED : status;
}
