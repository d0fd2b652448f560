/* The retry schedule of a send: after attempt n fails, attempt n+1 follows
 * schedule[n-1] later (TravelWebhookRetrySchedule, by default 1m 5m 30m 2h
 * 12h 24h); when the schedule is used up the delivery FAILS with
 * retries_exhausted. A 429 or 503 answer may ask for a longer wait with
 * Retry-After (seconds or an HTTP date): it is honoured up to the
 * schedule's longest delay, and never makes a retry come sooner than the
 * schedule says. */
#ifndef TRV_WEBHOOK_SCHEDULE_H
#define TRV_WEBHOOK_SCHEDULE_H

#include <apr_tables.h>
#include <apr_time.h>

/* A 2xx answer: the receiver has the event. */
int trv_webhook_accepted(int status);

/* Parses Retry-After: delta-seconds or an HTTP date (relative to now).
 * Returns 1 and the wait (0 for a date in the past), 0 when absent or
 * malformed. */
int trv_webhook_retry_after(const char *value, apr_time_t now,
                            apr_interval_time_t *wait);

/* After failed attempt `attempt` (1-based) with HTTP status `status` (0:
 * no response) and the response's Retry-After (may be NULL): returns 1 and
 * the delay before the next attempt, or 0 when the retries are exhausted. */
int trv_webhook_next_delay(const apr_array_header_t *schedule, int attempt,
                           int status, const char *retry_after, apr_time_t now,
                           apr_interval_time_t *delay);

#endif
