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
} trv_lifecycle_book_answers;

void trv_lifecycle_book_answer(trv_req *req, trv_resp *resp, const trv_lifecycle_book_answers *a,
                               const char *id, trv_lifecycle_book_outcome out,
                               const trv_lifecycle_book_run *run);

/* The book endpoint once it began the booking (started, its step held by
 * owner, committed): runs it as far as it goes now and answers. */
void trv_lifecycle_book_answer_run(trv_req *req, trv_resp *resp,
                                   const trv_lifecycle_book_domain *dom,
                                   const trv_lifecycle_book_answers *a, const char *id,
                                   const char *owner, void *started);

#endif
