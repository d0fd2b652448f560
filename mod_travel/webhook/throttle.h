/* The per-subscription throttle: at most max_per_second requests to one
 * subscription in any second, across every child and instance. A request
 * is let go only when the subscription's previous one went at least
 * TRV_WEBHOOK_SPACING(rate) ago: the sender moves the subscription's
 * throttle_last to now under the row's lock (one statement for a batch).
 * The others of the batch wait in the queue (not counted as an attempt)
 * until the subscription's next free moment, one spacing apart in the
 * batch's order, and are never dropped. */
#ifndef TRV_WEBHOOK_THROTTLE_H
#define TRV_WEBHOOK_THROTTLE_H

#include "send_batch.h"

/* 5 % more than 1/rate between two requests: the send of a request that
 * was let go reaches the receiver a few milliseconds later, more or less,
 * and the margin keeps "any second" true at the receiver (50 ms in all
 * over a second, whatever the rate). */
#define TRV_WEBHOOK_SPACING(rate) ((apr_interval_time_t)(1050000 / (rate)))

/* For the claimed items of subscriptions with a throttle (their own
 * max_per_second, else the site's `site_rate`, 0: none): lets one per
 * subscription go when its time has come and turns the others into
 * TRV_WH_WAIT with `next` set. On a database error nothing is let go
 * (all wait a spacing) and *err says why. */
apr_status_t trv_webhook_throttle(trv_env *env, apr_pool_t *p, apr_array_header_t *items,
                                  int site_rate, const char **err);

#endif
