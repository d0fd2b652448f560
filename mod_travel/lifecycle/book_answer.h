/* The book endpoint's answer to the runner's outcome (lifecycle/book.h),
 * the same for every domain: 200 CONFIRMED, 202 while the supplier
 * decides, 422 book_failed / payment_declined / payment_instrument_id,
 * 409 when the SDK payment is missing, 502/504 when nothing was bought, 500
 * result_unknown, 503/500 when the database failed. The domain gives what
 * is its own: its booking's rendering, its words, its upstream answer. */
#ifndef TRV_LIFECYCLE_BOOK_ANSWER_H
#define TRV_LIFECYCLE_BOOK_ANSWER_H

#include "lifecycle/book.h"
#include "core/api.h"

typedef struct trv_lifecycle_book_answers {
    const char *refused;       /* book_failed when the run has no message */
    const char *not_accepted;  /* payment_instrument_id when the run has no message */
    /* Reads the booking again and answers it with status. */
    void (*fresh)(trv_req *req, trv_resp *resp, const char *id, int status);
    /* 500 result_unknown. */
    void (*unknown)(trv_req *req, trv_resp *resp, const char *id);
    /* 502 (TRV_UP_UNAVAILABLE) or 504 (TRV_UP_TIMEOUT): nothing was bought. */
    void (*upstream)(trv_req *req, trv_resp *resp, trv_up_status st, const char *id,
                     const char *message);
    /* The request's booking, read again after a lost race... */
    const trv_api_booking_reader *reader;
    /* ...and answered where it stands (not READY_FOR_COMPLETE). */
    void (*state)(trv_req *req, trv_resp *resp, const void *b);
} trv_lifecycle_book_answers;

void trv_lifecycle_book_answer(trv_req *req, trv_resp *resp, const trv_lifecycle_book_answers *a,
                               const char *id, trv_lifecycle_book_outcome out,
                               const trv_lifecycle_book_run *run);

/* The book body's payment rules every domain has, after the domain's own
 * problems in errs: payment_instrument_id is required when the booking is
 * not paid through the payment SDK and the service charges it
 * (takes_instrument), and must be absent when the supplier collects
 * itself (!takes_instrument; supplier named) or the payment SDK pays. Any
 * problem: 422, c closed, 1. */
int trv_lifecycle_book_answer_body(trv_req *req, trv_resp *resp, trv_dbc *c, trv_errs *errs,
                                   const char *id, const char *supplier,
                                   const char *instrument, int use_sdk, int takes_instrument);

/* The book endpoint after its guarded start on c (committed): started
 * NULL when another request won the race, then the booking is read again
 * (a->reader; a failed read under logno and what) and answered where it
 * stands (a->state); else c is closed and the booking run
 * (trv_lifecycle_book_answer_run). */
void trv_lifecycle_book_answer_started(trv_req *req, trv_resp *resp, trv_dbc *c,
                                       const trv_lifecycle_book_domain *dom,
                                       const trv_lifecycle_book_answers *a, const char *id,
                                       const char *owner, void *started, int logno,
                                       const char *what);

/* The book endpoint once it began the booking (started, its step held by
 * owner, committed): runs it as far as it goes now and answers. */
void trv_lifecycle_book_answer_run(trv_req *req, trv_resp *resp,
                                   const trv_lifecycle_book_domain *dom,
                                   const trv_lifecycle_book_answers *a, const char *id,
                                   const char *owner, void *started);

#endif
