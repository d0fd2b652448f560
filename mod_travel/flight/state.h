/* The flight booking state machine of the service document: the statuses,
 * which transitions exist, and what book, cancel and reads do in each
 * status. Pure decisions; the SQL of store.c applies them with guarded
 * UPDATEs (... WHERE status = <from>), so a race loses cleanly. */
#ifndef TRV_FLIGHT_STATE_H
#define TRV_FLIGHT_STATE_H

#define TRV_FB_CREATED "CREATED"
#define TRV_FB_PREBOOK_IN_PROGRESS "PREBOOK_IN_PROGRESS"
#define TRV_FB_READY "READY_FOR_COMPLETE"
#define TRV_FB_COMPLETING "COMPLETE_IN_PROGRESS"
#define TRV_FB_CONFIRMED "CONFIRMED"
#define TRV_FB_CANCELING "CANCEL_IN_PROGRESS"
#define TRV_FB_CANCELED "CANCELED"
#define TRV_FB_FAILED "FAILED"
#define TRV_FB_EXPIRED "EXPIRED"

/* Every status, NULL-terminated (for query validation). */
extern const char *const trv_fb_statuses[];

/* 1 when the status is one of the nine. */
int trv_fb_status_valid(const char *status);

/* 1 when the machine has a transition from -> to. */
int trv_fb_transition_allowed(const char *from, const char *to);

/* An unfinished booking: it still holds its offer (SUPPLIER_A sells an offer
 * to one unfinished booking at a time). */
int trv_fb_unfinished(const char *status);

/* What POST .../book does, given the status, the book phase (NULL unless
 * COMPLETE_IN_PROGRESS) and whether expires_at has passed. */
typedef enum {
    TRV_FB_BOOK_START,        /* READY_FOR_COMPLETE in time: pay and ticket */
    TRV_FB_BOOK_CONFIRMED,    /* 200, the booking unchanged */
    TRV_FB_BOOK_IN_PROGRESS,  /* 202, the same answer as the first */
    TRV_FB_BOOK_UNKNOWN,      /* 500 result_unknown again: never retried */
    TRV_FB_BOOK_EXPIRED,      /* 409 invalid_state: the booking expired */
    TRV_FB_BOOK_NOT_BOOKABLE  /* 409 invalid_state (failed, canceled, ...) */
} trv_fb_book_action;

trv_fb_book_action trv_fb_book_decision(const char *status, const char *phase,
                                        int past_expiry);

/* What POST .../cancel does in a status. */
typedef enum {
    TRV_FB_CANCEL_START,      /* CONFIRMED: 202, the background run starts */
    TRV_FB_CANCEL_RUNNING,    /* CANCEL_IN_PROGRESS: 202, no second run */
    TRV_FB_CANCEL_DONE,       /* CANCELED: 200 (restarts failed refunds) */
    TRV_FB_CANCEL_NOT_CANCELABLE /* 409 invalid_state */
} trv_fb_cancel_action;

trv_fb_cancel_action trv_fb_cancel_decision(const char *status);

/* The status a read shows: READY_FOR_COMPLETE past its expires_at is
 * EXPIRED (the read also stores it). */
const char *trv_fb_effective_status(const char *status, int past_expiry);

#endif
