/* Book: pay and ticket a READY_FOR_COMPLETE booking, as a sequence of
 * persisted steps so that whoever finds the booking mid-way (the request
 * that started it, or the flight.booking.complete job after that request
 * died) can carry on from where it stands:
 *
 *   authorizing  the payment provider authorizes the instrument (or the
 *                SDK payment is looked up); SUPPLIER_A only
 *   ordering     the supplier issues the order (book), then the
 *                authorization is captured
 *   ticketing    the supplier is still ticketing: the job polls the order
 *   unknown      the supplier did not answer book: the outcome is unknown
 *                and the service never sends book again
 *
 * Every call out carries an idempotency key derived from the booking id and
 * the attempt, so a step run twice (a takeover, a lease that ran out) makes
 * one authorization, one order and one capture. The authorize key is
 * recorded before the call (an authorization intent, intents.h) and kept
 * while its outcome is unknown: the next attempt with the same instrument
 * authorizes with it again, and an intent nobody uses is voided by the
 * flight.payment.release job, so an unanswered authorize never leaves an
 * authorization held. No database connection is held during a call out. */
#ifndef TRV_FLIGHT_BOOK_H
#define TRV_FLIGHT_BOOK_H

#include "booking.h"
#include "core/env.h"

typedef enum {
    TRV_BOOK_CONFIRMED,      /* 200 */
    TRV_BOOK_PENDING,        /* 202: the supplier is ticketing, or another runner has it */
    TRV_BOOK_FAILED,         /* FAILED: 422 book_failed */
    TRV_BOOK_DECLINED,       /* back to READY_FOR_COMPLETE: 422 payment_declined */
    TRV_BOOK_BAD_INSTRUMENT, /* back to READY_FOR_COMPLETE: 422 payment_instrument_id */
    TRV_BOOK_NOT_PAID,       /* back to READY_FOR_COMPLETE: 409, SDK payment missing */
    TRV_BOOK_UNAVAILABLE,    /* back to READY_FOR_COMPLETE: 502 */
    TRV_BOOK_TIMEOUT,        /* back to READY_FOR_COMPLETE: 504 */
    TRV_BOOK_UNKNOWN,        /* 500 result_unknown */
    TRV_BOOK_RETRY,          /* (job) nothing to do yet */
    TRV_BOOK_DB              /* a database step failed */
} trv_fbook_outcome;

typedef struct trv_fbook_run {
    trv_env *env;
    apr_pool_t *p;
    const char *request_id;
    const trv_log *log;
    const char *owner;        /* this process (core/owner.h) */
    trv_fbooking *b;          /* the latest state of the booking */
    const char *message;      /* why, for failures */
    int db_down;              /* TRV_BOOK_DB: the database was unreachable */
} trv_fbook_run;

/* Runs the booking from its current phase until it is CONFIRMED, FAILED,
 * back to READY_FOR_COMPLETE, unknown, or waiting on the supplier. The
 * caller owns the current phase (it started it or took it over). */
trv_fbook_outcome trv_fbook_continue(trv_fbook_run *run);

/* The ticketing poll (job): reads the order and finishes the booking when
 * the supplier is done; TRV_BOOK_RETRY while it is still ticketing. */
trv_fbook_outcome trv_fbook_poll_ticketing(trv_fbook_run *run);

/* A book step's deadline for this booking's supplier. */
apr_interval_time_t trv_fbook_phase_budget(const trv_env *env, const trv_fbooking *b,
                                           trv_fb_phase phase);

/* Whether the service collects the payment, or the supplier does (its row
 * has TRV_SUP_COLLECTS_PAYMENT). */
int trv_fbook_service_pays(const trv_env *env, const trv_fbooking *b);

#endif
