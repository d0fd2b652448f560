/* Slow receivers, as this process sees them. A request still unanswered
 * after TRV_WEBHOOK_PATIENCE goes on alone (core/fanout.h: the sender is
 * not held up by it) and its subscription counts as slow in this process
 * until it ends. While a subscription has TRV_WEBHOOK_SLOW_MAX such
 * requests going on here, the sender sends it no more: its requests go
 * back to the queue (not counted as attempts) until the oldest of those
 * would have timed out. So a receiver that hangs holds at most that many
 * requests per process, and never a sender thread that others need. */
#ifndef TRV_WEBHOOK_SLOW_H
#define TRV_WEBHOOK_SLOW_H

#include <apr_time.h>

/* How long a sender waits for its batch before letting slow requests go
 * on alone: well above a healthy receiver's answer (milliseconds). */
#define TRV_WEBHOOK_PATIENCE apr_time_from_msec(1000)
/* Slow requests per subscription and process before it is held back. */
#define TRV_WEBHOOK_SLOW_MAX 4

/* A request to `sub`, started at `started`, goes on alone / has ended. */
void trv_webhook_slow_enter(const char *sub, apr_time_t started);
void trv_webhook_slow_leave(const char *sub);

/* 1 when `sub` is held back now, with *wait until the oldest of its slow
 * requests would have timed out (at least half a second). */
int trv_webhook_slow_held(const char *sub, apr_time_t now, apr_interval_time_t *wait);

#endif
