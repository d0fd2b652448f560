#include "breaker.h"

#include <apr_strings.h>

static const trv_stmt disable_stmt = {"trv_whs_breaker_disable",
    "SELECT webhook_disable(%s, %s::bigint * interval '1 microsecond', %s) AS event_id"};

void trv_webhook_breaker_trip(trv_env *env, apr_pool_t *p, const char *sub,
                              const char *last)
{
    trv_dbc *c;
    trv_rows *rows;
    const char *window = apr_psprintf(p, "%" APR_INT64_T_FMT,
                                      (apr_int64_t)env->cfg->webhook_disable_after);
    const char *evt;

    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(2701) "webhook subscription %s: could not be disabled (the "
                    "next failure tries again): database unavailable", sub);
        return;
    }
    if (trv_db_select(c, p, &disable_stmt, &rows, TRV_DB_ARGS(sub, window, last))
        != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(2701) "webhook subscription %s: could not be disabled (the "
                    "next failure tries again): %s", sub, c->error ? c->error : "failed");
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    if ((evt = trv_rows_get(rows, 0, "event_id")) != NULL) {
        trv_env_wake(env);
        trv_log_msg(&env->log, TRV_LOG_NOTICE, NULL,
                    TRVLOGNO(2700) "webhook subscription %s disabled: every request failed "
                    "for %" APR_INT64_T_FMT " s (last: %s); event %s tells the "
                    "organization's other subscriptions", sub,
                    (apr_int64_t)apr_time_sec(env->cfg->webhook_disable_after), last, evt);
    }
}
