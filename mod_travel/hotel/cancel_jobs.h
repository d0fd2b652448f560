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
#include "lifecycle/cancel.h"

extern const trv_job_spec trv_hjob_cancel;
extern const trv_job_spec trv_hjob_refund;

/* The hotel steps of the cancel runner (lifecycle/cancel.h): the cancel
 * kind runs trv_lifecycle_cancel_run with them, the refund kind
 * trv_refunds_run with trv_hcancellation_refunds (domain.c). */
extern const trv_lifecycle_cancel_ops trv_hcancel_ops;

#endif
