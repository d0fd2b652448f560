/* Requests a sender's batch is waiting for, per subscription, as this
 * process sees them: how a receiver that hangs is told apart from one
 * that is merely busy before any request to it has run out of patience.
 *
 * A batch waits TRV_WEBHOOK_PATIENCE for its requests (slow.h) before
 * letting a slow one go on alone and knowing its subscription slow. Until
 * then every other batch with a request to the same receiver waited too:
 * with a hanging receiver getting one event in twenty, every sender of a
 * child was soon waiting for it, and the healthy receivers' events waited
 * to be claimed (the breaker bench's first half second). So a subscription
 * whose awaited requests have had no answer for TRV_WEBHOOK_STALLED is
 * *stalled*: another batch's request to it goes on alone from the start,
 * as one to a known slow subscription does, and at most the batches that
 * were already waiting pay the patience. A receiver that answers anything
 * (a burst of requests to a busy one, some still going on) is not
 * stalled: the clock restarts at each answer. */
#ifndef TRV_WEBHOOK_AWAITED_H
#define TRV_WEBHOOK_AWAITED_H

#include <apr_time.h>

/* Well above a healthy receiver's answer (a few milliseconds; the breaker
 * bench's p99 from commit to receipt is 15-30 ms on a busy machine) and
 * well below TRV_WEBHOOK_PATIENCE. */
#define TRV_WEBHOOK_STALLED apr_time_from_msec(50)

/* A batch starts waiting for a request to `sub` started at `started`: 1
 * when it is tracked (0: the table is full, nothing to end). A tracked
 * request has ended (answered, failed or timed out) at `now`: one end for
 * each tracked begin, whether the batch still waits for it or not. */
int trv_webhook_awaited_begin(const char *sub, apr_time_t started);
void trv_webhook_awaited_end(const char *sub, apr_time_t now);

/* 1 when `sub` has awaited requests and none of them has ended for
 * TRV_WEBHOOK_STALLED (since the oldest started, or the last ended). */
int trv_webhook_awaited_stalled(const char *sub, apr_time_t now);

#endif
