#include "state.h"

#include <stddef.h>

#define N_STATUS (TRV_FB_EXPIRED + 1)
#define N_PHASE (TRV_FB_PHASE_UNKNOWN + 1)

const char *const trv_fb_statuses[] = {
    "CREATED", "PREBOOK_IN_PROGRESS", "READY_FOR_COMPLETE", "COMPLETE_IN_PROGRESS",
    "CONFIRMED", "CANCEL_IN_PROGRESS", "CANCELED", "FAILED", "EXPIRED", NULL};

/* The service document's transition table, plus the transitions it leaves
 * open (into PREBOOK_IN_PROGRESS and EXPIRED, and back to READY_FOR_COMPLETE
 * when a book attempt changed nothing: a declined card, a supplier that was
 * unreachable). allowed[from][to]. */
static const unsigned char status_moves[N_STATUS][N_STATUS] = {
    [TRV_FB_CREATED][TRV_FB_PREBOOK_IN_PROGRESS] = 1,
    [TRV_FB_PREBOOK_IN_PROGRESS][TRV_FB_READY] = 1,
    [TRV_FB_PREBOOK_IN_PROGRESS][TRV_FB_FAILED] = 1,
    [TRV_FB_READY][TRV_FB_COMPLETING] = 1,
    [TRV_FB_READY][TRV_FB_CONFIRMED] = 1,
    [TRV_FB_READY][TRV_FB_EXPIRED] = 1,
    [TRV_FB_READY][TRV_FB_FAILED] = 1,
    [TRV_FB_COMPLETING][TRV_FB_CONFIRMED] = 1,
    [TRV_FB_COMPLETING][TRV_FB_FAILED] = 1,
    [TRV_FB_COMPLETING][TRV_FB_READY] = 1,
    [TRV_FB_CONFIRMED][TRV_FB_CANCELING] = 1,
    [TRV_FB_CANCELING][TRV_FB_CANCELED] = 1,
    [TRV_FB_CANCELING][TRV_FB_CONFIRMED] = 1,
};

const trv_transit_table trv_fb_status_table = {"flight booking status", N_STATUS,
                                               trv_fb_statuses, &status_moves[0][0]};

/* NONE is the SQL NULL of every status but COMPLETE_IN_PROGRESS; its text
 * here only names it in log lines. */
static const char *const phase_names[] = {"(none)", "authorizing", "ordering", "ticketing",
                                          "unknown", NULL};

/* book starts in authorizing (the service collects payment) or ordering;
 * a step taken over stays where it was (X -> X, new owner); ordering goes
 * to ticketing (the airline answered PENDING) or unknown (no answer);
 * unknown goes on as the order found at the supplier says (ticketing, or
 * out of the step when it is ticketed or failed);
 * confirm, fail and revert leave the phase (-> NONE). */
static const unsigned char phase_moves[N_PHASE][N_PHASE] = {
    [TRV_FB_PHASE_NONE][TRV_FB_PHASE_AUTHORIZING] = 1,
    [TRV_FB_PHASE_NONE][TRV_FB_PHASE_ORDERING] = 1,
    [TRV_FB_PHASE_AUTHORIZING][TRV_FB_PHASE_AUTHORIZING] = 1,
    [TRV_FB_PHASE_AUTHORIZING][TRV_FB_PHASE_ORDERING] = 1,
    [TRV_FB_PHASE_AUTHORIZING][TRV_FB_PHASE_NONE] = 1,
    [TRV_FB_PHASE_ORDERING][TRV_FB_PHASE_ORDERING] = 1,
    [TRV_FB_PHASE_ORDERING][TRV_FB_PHASE_TICKETING] = 1,
    [TRV_FB_PHASE_ORDERING][TRV_FB_PHASE_UNKNOWN] = 1,
    [TRV_FB_PHASE_ORDERING][TRV_FB_PHASE_NONE] = 1,
    [TRV_FB_PHASE_TICKETING][TRV_FB_PHASE_NONE] = 1,
    /* the order an unanswered book made, found at the supplier */
    [TRV_FB_PHASE_UNKNOWN][TRV_FB_PHASE_TICKETING] = 1,
    [TRV_FB_PHASE_UNKNOWN][TRV_FB_PHASE_NONE] = 1,
};

const trv_transit_table trv_fb_phase_table = {"flight book phase", N_PHASE, phase_names,
                                              &phase_moves[0][0]};

TRV_TRANSIT_TEXT_PAIR(trv_fb_status, trv_fb_status, trv_fb_status_table)
TRV_TRANSIT_COLUMN_PAIR(trv_fb_phase, trv_fb_phase, trv_fb_phase_table)

int trv_fb_status_valid(const char *status)
{
    trv_fb_status s;
    return trv_fb_status_from_text(status, &s);
}

int trv_fb_transition_allowed(trv_fb_status from, trv_fb_status to)
{
    return trv_transit_allowed(&trv_fb_status_table, (int)from, (int)to);
}

int trv_fb_transit(const trv_log *log, const char *request_id, const char *booking_id,
                   trv_fb_status from, trv_fb_status to)
{
    return trv_transit_check(&trv_fb_status_table, log, request_id, booking_id, (int)from,
                             (int)to);
}

int trv_fb_phase_transit(const trv_log *log, const char *request_id, const char *booking_id,
                         trv_fb_phase from, trv_fb_phase to)
{
    return trv_transit_check(&trv_fb_phase_table, log, request_id, booking_id, (int)from,
                             (int)to);
}

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
