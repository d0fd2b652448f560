/* Completing a hotel booking (book): the steps of COMPLETE_IN_PROGRESS,
 * run by the request that started them and, when that request died or
 * the supplier confirms later, by the hotel.booking.complete job.
 *
 *   authorizing  the service authorizes the booking's total (a saved
 *                instrument, or the payment SDK's session); the supplier
 *                is not asked yet (SUPPLIER_A, SUPPLIER_B)
 *   ordering     the supplier's book call is out (idempotency key
 *                <booking>:book, client reference <booking>/<reference_id>)
 *   confirming   the supplier holds the booking and confirms it later
 *                (Async): read until confirmed, then captured
 *   unknown      book got no answer (500 result_unknown): the booking is
 *                read at the supplier by its client reference, never
 *                bought again
 *
 * Charged once: one payment row per booking (a unique index), the
 * authorization and the capture under the booking's keys, and only the
 * owner of a step moves it (guarded updates). A merchant-of-record
 * supplier (TRV_SUP_COLLECTS_PAYMENT, SUPPLIER_C) charges the card itself,
 * which the payment provider forwards to it from the booking's saved
 * instrument (vault and forward): the service records what it collected
 * and never sees the card number. */
#ifndef TRV_HOTEL_BOOK_H
#define TRV_HOTEL_BOOK_H

#include "booking.h"
#include "supplier.h"
#include "core/env.h"
#include "core/log.h"

typedef enum {
    TRV_HBOOK_CONFIRMED,
    TRV_HBOOK_PENDING,        /* the supplier confirms later (202) */
    TRV_HBOOK_FAILED,         /* the supplier refused: FAILED */
    TRV_HBOOK_DECLINED,       /* the card was declined: READY_FOR_COMPLETE again */
    TRV_HBOOK_BAD_INSTRUMENT, /* the provider does not know the instrument */
    TRV_HBOOK_NOT_PAID,       /* SDK: the session is not authorized yet */
    TRV_HBOOK_UNAVAILABLE,    /* nothing happened (supplier or provider down) */
    TRV_HBOOK_TIMEOUT,        /* the payment provider did not answer: nothing bought */
    TRV_HBOOK_UNKNOWN,        /* the supplier did not answer: read, never re-bought */
    TRV_HBOOK_RETRY,          /* a job should look again later */
    TRV_HBOOK_DB              /* the database failed */
} trv_hbook_outcome;

typedef struct trv_hbook_run {
    trv_env *env;
    apr_pool_t *p;
    const char *request_id;
    trv_log *log;
    const char *owner;        /* who holds the step */
    trv_hbooking *b;          /* whole (rooms, payments); replaced as it moves */
    const char *message;      /* why, for the answer */
    int db_down;
} trv_hbook_run;

/* Whether the service collects the payment (else the supplier does). */
int trv_hbook_service_pays(const trv_env *env, const trv_hbooking *b);
/* How long the step of this phase may take (its calls' timeouts). */
apr_interval_time_t trv_hbook_budget(const trv_env *env, const trv_hbooking *b,
                                     trv_hb_phase phase);
/* The client reference the supplier keeps: the booking id and as much of
 * the caller's reference_id as fits 64 characters. */
const char *trv_hbook_client_reference(apr_pool_t *p, const trv_hbooking *b);

/* Runs the booking's current step and those after it, as far as they go
 * now. run->b must be COMPLETE_IN_PROGRESS and held by run->owner. */
trv_hbook_outcome trv_hbook_continue(trv_hbook_run *run);

#endif
