/* Retry-After, as a webhook receiver answers it with a 429 or 503: delta
 * seconds or an HTTP date. Input: the header value. Beyond not crashing:
 * a wait is never negative, and the delay before the next attempt is never
 * shorter than the schedule's and never longer than its longest step. */
#include "fuzz.h"

#include "core/config.h"
#include "webhook/schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p = fz_begin();
    const char *value = fz_str(p, data, size);
    /* A fixed "now" (2026-11-24T06:00:00Z): the input alone decides. */
    apr_time_t now = apr_time_from_sec(1795413600);
    apr_array_header_t *schedule = trv_default_retry_schedule(p);
    apr_interval_time_t wait = -1, delay = -1;
    int attempt;

    if (trv_webhook_retry_after(value, now, &wait)) {
        FZ_ASSERT(wait >= 0);
    }
    for (attempt = 1; attempt <= schedule->nelts; attempt++) {
        apr_interval_time_t step = APR_ARRAY_IDX(schedule, attempt - 1, apr_interval_time_t);
        FZ_ASSERT(trv_webhook_next_delay(schedule, attempt, 503, value, now, &delay));
        FZ_ASSERT(delay >= step && delay <= apr_time_from_sec(86400));
    }
    FZ_ASSERT(!trv_webhook_next_delay(schedule, schedule->nelts + 1, 429, value, now, &delay));
    fz_end(p);
    return 0;
}
