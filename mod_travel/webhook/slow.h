/* Slow receivers, as this process sees them. A request still unanswered
 * after TRV_WEBHOOK_PATIENCE goes on alone (core/fanout.h: the sender is
 * not held up by it) and its subscription counts as slow in this process
 * for TRV_WEBHOOK_SLOW_MEMORY, renewed while its requests keep going late
 * or failing, ended by an answer in time. The sender does not wait at all
 * for a request to a slow subscription: it goes on alone from the start.
 * While a subscription has TRV_WEBHOOK_SLOW_MAX requests going on alone
 * here, the sender sends it no more: its requests go back to the queue
 * (not counted as attempts) until the oldest of those would have timed
 * out. So a receiver that hangs holds at most that many requests per
 * process, and a sender thread at most once per TRV_WEBHOOK_SLOW_MEMORY. */
#ifndef TRV_WEBHOOK_SLOW_H
#define TRV_WEBHOOK_SLOW_H

#include <apr_time.h>

/* How long a sender waits for its batch before letting slow requests go
 * on alone: well above a healthy receiver's answer (milliseconds). */
#define TRV_WEBHOOK_PATIENCE apr_time_from_msec(500)
/* Requests going on alone per subscription and process before it is held
 * back. */
#define TRV_WEBHOOK_SLOW_MAX 8
/* How long a subscription stays slow after its last late or failed one. */
#define TRV_WEBHOOK_SLOW_MEMORY apr_time_from_sec(60)

/* A request to `sub`, started at `started`, goes on alone / has ended
 * (answered: a 2xx within TRV_WEBHOOK_PATIENCE, which ends the slow
 * state). */
void trv_webhook_slow_enter(const char *sub, apr_time_t started);
void trv_webhook_slow_leave(const char *sub, int answered);

/* 1 when `sub` is slow in this process now. */
int trv_webhook_slow_known(const char *sub, apr_time_t now);

/* 1 when `sub` is held back now, with *wait until the oldest of its slow
 * requests would have timed out (at least half a second). */
int trv_webhook_slow_held(const char *sub, apr_time_t now, apr_interval_time_t *wait);

#endif
