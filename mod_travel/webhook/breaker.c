#include "breaker.h"

#include "core/json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

/* Only when the state changes: a failure of a subscription that had none,
 * a 2xx of one that had one (checked again in the database, so two senders
 * that both saw a change write it once; sql/370: found by key, however
 * many subscriptions there are). */
static const trv_stmt note_stmt = {"trv_whs_breaker_note",
    "SELECT trv_webhook_breaker_note(%s::jsonb)"};

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
                    "next failure tries again): %s", sub, "database unavailable");
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

typedef struct sub_state {
    const trv_wh_item *failed;   /* its last failed attempt in the batch */
    int ok;                      /* one of its attempts got a 2xx */
    int closes;                  /* ... after this process took it for hanging */
    apr_time_t failing_since;    /* as claimed */
    apr_interval_time_t open_for; /* its requests held in line (open_for), the longest */
} sub_state;

void trv_webhook_breaker_note(trv_env *env, apr_pool_t *p, const apr_array_header_t *rec)
{
    apr_hash_t *subs = apr_hash_make(p);
    apr_hash_index_t *hi;
    json_t *changes = trv_json_bind(p, json_array());
    trv_rows *rows;
    apr_time_t horizon = apr_time_now() - env->cfg->webhook_disable_after;
    trv_dbc *c;
    int i;

    for (i = 0; i < rec->nelts; i++) {
        const trv_wh_item *it = &APR_ARRAY_IDX(rec, i, trv_wh_item);
        sub_state *st;
        int held = it->action == TRV_WH_WAIT && it->open_for > 0;
        if ((!it->recorded && !held) || !it->subscription_id) {
            continue;
        }
        if (!(st = apr_hash_get(subs, it->subscription_id, APR_HASH_KEY_STRING))) {
            st = apr_pcalloc(p, sizeof(*st));
            st->failing_since = it->failing_since;
            apr_hash_set(subs, it->subscription_id, APR_HASH_KEY_STRING, st);
        }
        if (held) {
            if (it->open_for > st->open_for) {
                st->open_for = it->open_for;
            }
        }
        else if (it->status == TRV_DELIVERY_DELIVERED) {
            st->ok = 1;
            st->closes |= it->closes;
        }
        else {
            st->failed = it;
        }
    }
    for (hi = apr_hash_first(p, subs); hi; hi = apr_hash_next(hi)) {
        const void *key;
        void *val;
        sub_state *st;
        apr_hash_this(hi, &key, NULL, &val);
        st = val;
        if (!st->ok && st->open_for > 0) {
            /* Open: failing (from now, if not yet) and its new sends held. */
            json_array_append_new(changes, json_pack("{s:s,s:b,s:I}", "sub", (const char *)key,
                                                     "ok", 0, "open_us",
                                                     (json_int_t)st->open_for));
        }
        else if (st->ok ? st->failing_since != 0 || st->closes : st->failing_since == 0) {
            json_array_append_new(changes, json_pack("{s:s,s:b}", "sub", (const char *)key,
                                                     "ok", st->ok));
        }
        if (!st->ok && st->failed && env->cfg->webhook_disable_after > 0
            && st->failing_since != 0 && st->failing_since <= horizon) {
            const trv_wh_item *it = st->failed;
            trv_webhook_breaker_trip(env, p, key,
                                     it->response_status
                                         ? apr_psprintf(p, "HTTP %d", it->response_status)
                                         : (it->error ? it->error : "no answer"));
        }
    }
    if (json_array_size(changes) == 0) {
        return;
    }
    /* Not written (the database failed): the next attempt's record tries again. */
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        return;
    }
    if (trv_db_select(c, p, &note_stmt, &rows, TRV_DB_ARGS(trv_json_dump(p, changes)))
        != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(2706) "webhook subscriptions' failure state could not be kept "
                    "(the next attempt tries again): %s", c->error ? c->error : "failed");
    }
    trv_db_close(env->db, c);
}
