/* The flight job kinds as the code that enqueues them sees them: each
 * kind's name and attempt limit (its definition, registered with its
 * runner in domain.c) and the enqueue helper. Kept apart from the runners
 * (jobs.h) so that book, intents and the endpoints, which enqueue, do not
 * depend on the jobs that call back into them.
 *
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
 *   flight.booking.render    stores the renderings of a booking's revision
 *                            (render_job.c); queued only by the database
 *                            (sql/045), with the revision in its payload
 * Each payload is {"id": <booking, payment or intent id>, "request_id":
 * <the request that caused it>} (+ "attempt" for cancel and release). */
#ifndef TRV_FLIGHT_ENQUEUE_H
#define TRV_FLIGHT_ENQUEUE_H

#include "core/jobs.h"

extern const trv_job_spec trv_fjob_complete;
extern const trv_job_spec trv_fjob_settle;
extern const trv_job_spec trv_fjob_cancel;
extern const trv_job_spec trv_fjob_refund;
extern const trv_job_spec trv_fjob_expire;
extern const trv_job_spec trv_fjob_prebook_watch;
extern const trv_job_spec trv_fjob_sync;
extern const trv_job_spec trv_fjob_release;
extern const trv_job_spec trv_fjob_render;

/* The names the call sites use. */
#define TRV_FJOB_COMPLETE (&trv_fjob_complete)
#define TRV_FJOB_SETTLE (&trv_fjob_settle)
#define TRV_FJOB_CANCEL (&trv_fjob_cancel)
#define TRV_FJOB_REFUND (&trv_fjob_refund)
#define TRV_FJOB_EXPIRE (&trv_fjob_expire)
#define TRV_FJOB_PREBOOK_WATCH (&trv_fjob_prebook_watch)
#define TRV_FJOB_SYNC (&trv_fjob_sync)
#define TRV_FJOB_RELEASE (&trv_fjob_release)

/* Enqueues the kind for id inside the caller's transaction, deduplicated
 * by kind:id(:attempt) while one is queued or running. attempt < 0: none. */
apr_status_t trv_fjob_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                              const char *id, int attempt, const char *request_id,
                              apr_interval_time_t delay);

#endif
