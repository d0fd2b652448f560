/* The hotel cancellation's background work (cancel_run.c):
 *
 *   hotel.booking.cancel   asks the supplier to cancel every remaining room
 *                          of a CANCEL_IN_PROGRESS booking, then records
 *                          CANCELED (fee, refund intent, refunds to submit,
 *                          hotel.booking.canceled) or the refusal (attempt
 *                          FAILED, booking CONFIRMED again,
 *                          hotel.booking.cancellation_failed)
 *   hotel.refund.submit    sends the PENDING refunds of a canceled booking
 *                          to the payment provider
 *
 * Payload {"id": <booking id>, "request_id": <the request that caused it>}
 * (+ "attempt": the booking's cancel_attempt, for cancel). */
#ifndef TRV_HOTEL_CANCEL_JOBS_H
#define TRV_HOTEL_CANCEL_JOBS_H

#include "core/db.h"
#include "core/jobs.h"

extern const trv_job_spec trv_hjob_cancel;
extern const trv_job_spec trv_hjob_refund;

/* Enqueues kind for the booking inside the caller's transaction,
 * deduplicated by kind:id(:attempt) while queued; attempt < 0: none. */
apr_status_t trv_hcancel_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                              const char *id, int attempt, const char *request_id);

void trv_hjob_cancel_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_hjob_refund_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);

#endif
