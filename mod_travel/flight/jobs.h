/* The flight background jobs (kinds registered in gateway/pipeline.c):
 *   flight.booking.complete  finishes book: polls a ticketing supplier, and
 *                            takes over a step whose request died (kill -9)
 *   flight.payment.settle    captures an authorization a confirmed booking
 *                            could not capture in time, and reads a card
 *                            that was not readable yet
 *   flight.booking.cancel    the background cancellation
 *   flight.refund.submit     refund requests to the payment provider
 *   flight.booking.expire    READY_FOR_COMPLETE -> EXPIRED at expires_at
 *   flight.prebook.watchdog  fails a prebook whose request died
 *   flight.order.sync        reads the order again (airline changes)
 *   flight.payment.release   voids an authorization no booking will use:
 *                            one whose authorize went unanswered and was not
 *                            taken up by the next attempt, or whose void
 *                            failed (release.c, intents.h)
 * Each payload is {"id": <booking, payment or intent id>, "request_id":
 * <the request that caused it>} (+ "attempt" for cancel and release). */
#ifndef TRV_FLIGHT_JOBS_H
#define TRV_FLIGHT_JOBS_H

#include "core/jobs.h"

#define TRV_FJOB_COMPLETE "flight.booking.complete"
#define TRV_FJOB_SETTLE "flight.payment.settle"
#define TRV_FJOB_CANCEL "flight.booking.cancel"
#define TRV_FJOB_REFUND "flight.refund.submit"
#define TRV_FJOB_EXPIRE "flight.booking.expire"
#define TRV_FJOB_PREBOOK_WATCH "flight.prebook.watchdog"
#define TRV_FJOB_SYNC "flight.order.sync"
#define TRV_FJOB_RELEASE "flight.payment.release"

#define TRV_FJOB_COMPLETE_MAX 2000
#define TRV_FJOB_SETTLE_MAX 30
#define TRV_FJOB_CANCEL_MAX 8
#define TRV_FJOB_REFUND_MAX 8
#define TRV_FJOB_EXPIRE_MAX 10
#define TRV_FJOB_PREBOOK_WATCH_MAX 10
#define TRV_FJOB_SYNC_MAX 3
#define TRV_FJOB_RELEASE_MAX 40

/* Enqueues kind for id inside the caller's transaction, deduplicated by
 * kind:id(:attempt) while one is queued or running. attempt < 0: none. */
apr_status_t trv_fjob_enqueue(trv_dbc *c, apr_pool_t *p, const char *kind, const char *id,
                              int attempt, const char *request_id, apr_interval_time_t delay);

void trv_fjob_complete_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res);
void trv_fjob_settle_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_fjob_cancel_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_fjob_refund_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_fjob_expire_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_fjob_prebook_watch_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                                trv_job_result *res);
void trv_fjob_sync_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                       trv_job_result *res);
void trv_fjob_release_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res);

#endif
