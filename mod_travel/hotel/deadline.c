#include "deadline.h"
#include "hotel_store.h"
#include "core/upstream_limit.h"

apr_time_t trv_hotel_deadline(const trv_env *env)
{
    apr_interval_time_t d = env->cfg && env->cfg->search_deadline > 0
                                ? env->cfg->search_deadline : TRV_DEFAULT_SEARCH_DEADLINE;
    return apr_time_now() + d;
}

/* A part left out: no answer by the deadline, or the supplier is over its
 * rate limit (it said so; it was not called or answered 429). */
static int left_out(trv_req *req, const trv_hotel_part *part)
{
    return part->st == TRV_UP_TIMEOUT
           || (part->st == TRV_UP_UNAVAILABLE
               && trv_upstream_limit_until(req->env->upstream_limits,
                                           trv_config_hotel_upstream(req->env->cfg,
                                                                     part->supplier),
                                           apr_time_now()));
}

int trv_hotel_parts_settle(trv_req *req, trv_resp *resp, const trv_hotel_part *parts, int n,
                           int all_needed, json_t **unanswered)
{
    const trv_hotel_part *late = NULL;
    int i, answered = 0;
    *unanswered = NULL;
    for (i = 0; i < n; i++) {
        if (parts[i].st == TRV_UP_OK) {
            answered++;
        }
        else if (left_out(req, &parts[i])) {
            late = late ? late : &parts[i];
        }
        else {
            trv_hhotel_upstream_fail(req, resp, parts[i].st, parts[i].supplier,
                                     parts[i].message);
            return 0;
        }
    }
    if (late && (!answered || all_needed)) {
        trv_hhotel_upstream_fail(req, resp, late->st, late->supplier, late->message);
        return 0;
    }
    if (late) {
        *unanswered = json_array();
        for (i = 0; i < n; i++) {
            if (parts[i].st != TRV_UP_OK) {
                json_array_append_new(*unanswered, json_string(parts[i].supplier));
            }
        }
    }
    return 1;
}
