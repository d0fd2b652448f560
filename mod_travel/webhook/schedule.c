#include "schedule.h"

#include <apr_date.h>
#include <ctype.h>
#include <stdlib.h>

int trv_webhook_accepted(int status)
{
    return status >= 200 && status <= 299;
}

int trv_webhook_retry_after(const char *value, apr_time_t now,
                            apr_interval_time_t *wait)
{
    const char *s;
    apr_time_t at;
    if (!value) {
        return 0;
    }
    while (*value == ' ' || *value == '\t') {
        value++;
    }
    if (isdigit((unsigned char)*value)) {
        long long secs = 0;
        for (s = value; isdigit((unsigned char)*s); s++) {
            if (secs < 100000000LL) {
                secs = secs * 10 + (*s - '0');
            }
        }
        while (*s == ' ' || *s == '\t') {
            s++;
        }
        if (*s) {
            return 0;
        }
        *wait = apr_time_from_sec(secs);
        return 1;
    }
    at = apr_date_parse_rfc(value);
    if (at == APR_DATE_BAD) {
        return 0;
    }
    *wait = at > now ? at - now : 0;
    return 1;
}

int trv_webhook_next_delay(const apr_array_header_t *schedule, int attempt,
                           int status, const char *retry_after, apr_time_t now,
                           apr_interval_time_t *delay)
{
    apr_interval_time_t d, longest = 0, asked;
    int i;
    if (!schedule || attempt < 1 || attempt > schedule->nelts) {
        return 0;
    }
    d = APR_ARRAY_IDX(schedule, attempt - 1, apr_interval_time_t);
    for (i = 0; i < schedule->nelts; i++) {
        apr_interval_time_t t = APR_ARRAY_IDX(schedule, i, apr_interval_time_t);
        longest = t > longest ? t : longest;
    }
    if ((status == 429 || status == 503)
        && trv_webhook_retry_after(retry_after, now, &asked) && asked > d) {
        d = asked < longest ? asked : longest;
    }
    *delay = d;
    return 1;
}
