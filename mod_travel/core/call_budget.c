#include "call_budget.h"

#include <apr_strings.h>

long trv_call_budget_share(const trv_upstream *up, int background)
{
    long n = up ? up->max_calls_per_second : 0, reserve;
    if (n <= 0) {
        return 0;
    }
    if (!background) {
        return n;
    }
    reserve = (n + 3) / 4;
    return n - reserve >= 1 ? n - reserve : 1;
}

apr_time_t trv_call_budget_window(apr_time_t now, apr_int64_t *index)
{
    *index = now / TRV_CALL_BUDGET_WINDOW;
    return (*index + 1) * TRV_CALL_BUDGET_WINDOW;
}

const char *trv_call_budget_key(apr_pool_t *p, const trv_upstream *up, apr_int64_t index)
{
    return apr_psprintf(p, "trv:cb:%s %s:%" APR_INT64_T_FMT, up->name ? up->name : "",
                        up->base_url ? up->base_url : "", index);
}

apr_time_t trv_call_budget_take(const trv_call_counter *c, apr_pool_t *p, const trv_upstream *up,
                                int background, apr_time_t now)
{
    long share = trv_call_budget_share(up, background), before;
    apr_int64_t index;
    apr_time_t end = trv_call_budget_window(now, &index);
    if (!c || share <= 0) {
        return 0;
    }
    /* Kept one window past its own end: a node whose clock runs a little
     * behind still finds the count. */
    before = c->take(c, trv_call_budget_key(p, up, index), share, end + TRV_CALL_BUDGET_WINDOW,
                     p);
    return before >= 0 && before >= share ? end : 0;
}
