/* The hotel job kinds as the code that enqueues them sees them (their
 * runners are registered in domain.c):
 *
 *   hotel.booking.complete  finishes book: reads a booking the supplier
 *                           confirms later or whose book went unanswered,
 *                           takes over a step whose request died (kill -9),
 *                           and retries a capture that failed
 *   hotel.booking.expire    at the offer's expiry (queued by prebook):
 *                           READY_FOR_COMPLETE -> EXPIRED with its stored
 *                           rendering, and the SDK session and unsettled
 *                           authorizations handed to hotel.payment.release
 *                           (expire.c)
 *
 * Payload {"id": <booking id>, "request_id": <the request that caused it>}. */
#ifndef TRV_HOTEL_ENQUEUE_H
#define TRV_HOTEL_ENQUEUE_H

#include "core/jobs.h"

extern const trv_job_spec trv_hjob_complete;
extern const trv_job_spec trv_hjob_expire;

#define TRV_HJOB_COMPLETE (&trv_hjob_complete)
#define TRV_HJOB_EXPIRE (&trv_hjob_expire)

/* Enqueues the kind for the booking inside the caller's transaction, once
 * while one is queued or running. */
apr_status_t trv_hjob_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                              const char *id, const char *request_id,
                              apr_interval_time_t delay);

/* The runners (jobs.c, expire.c). */
void trv_hjob_complete_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res);
void trv_hjob_expire_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);

#endif
