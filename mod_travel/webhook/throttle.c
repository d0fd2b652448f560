#include "throttle.h"
#include "core/json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

/* The admission (sql/171, as a function since sql/370: its plan finds the
 * few subscriptions by key however many there are): a subscription's
 * request goes when its last one went a spacing ago or more; for the
 * others, how long until its next free moment. */
static const trv_stmt admit_stmt = {"trv_whs_throttle_admit",
    "SELECT sub, admitted, wait_us FROM trv_webhook_throttle_admit(%s::jsonb)"};

typedef struct sub_slot {
    apr_interval_time_t spacing;
    apr_interval_time_t next;   /* the next waiting item's delay */
    int admitted;
    int taken;                  /* the admitted request has its item */
} sub_slot;

static int rate_of(const trv_wh_item *it, int site_rate)
{
    return it->max_per_second > 0 ? it->max_per_second : site_rate;
}

apr_status_t trv_webhook_throttle(trv_env *env, apr_pool_t *p, apr_array_header_t *items,
                                  int site_rate, const char **err)
{
    apr_hash_t *subs = apr_hash_make(p);
    json_t *req = trv_json_bind(p, json_array());
    apr_status_t rv = APR_SUCCESS;
    trv_rows *rows = NULL;
    trv_dbc *c;
    int i;

    for (i = 0; i < items->nelts; i++) {
        const trv_wh_item *it = &APR_ARRAY_IDX(items, i, trv_wh_item);
        sub_slot *s;
        if (!it->claimed || rate_of(it, site_rate) <= 0
            || apr_hash_get(subs, it->subscription_id, APR_HASH_KEY_STRING)) {
            continue;
        }
        s = apr_pcalloc(p, sizeof(*s));
        s->spacing = TRV_WEBHOOK_SPACING(rate_of(it, site_rate));
        s->next = s->spacing;
        apr_hash_set(subs, it->subscription_id, APR_HASH_KEY_STRING, s);
        json_array_append_new(req, json_pack("{s:s,s:I}", "sub", it->subscription_id,
                                             "spacing_us", (json_int_t)s->spacing));
    }
    if (json_array_size(req) == 0) {
        return APR_SUCCESS;
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        *err = "database unavailable";
        rv = APR_EGENERAL;
    }
    else if (trv_db_select(c, p, &admit_stmt, &rows, TRV_DB_ARGS(trv_json_dump(p, req)))
             != APR_SUCCESS) {
        *err = apr_pstrdup(p, c->error ? c->error : "failed");
        trv_db_close(env->db, c);
        rv = APR_EGENERAL;
    }
    else {
        trv_db_close(env->db, c);
    }
    for (i = 0; rows && i < rows->n; i++) {
        sub_slot *s = apr_hash_get(subs, trv_rows_get(rows, i, "sub"), APR_HASH_KEY_STRING);
        if (s) {
            s->admitted = trv_rows_bool(rows, i, "admitted");
            if (!s->admitted) {
                s->next = (apr_interval_time_t)trv_rows_int(rows, i, "wait_us", 0);
            }
        }
    }
    /* One request per admitted subscription goes; the rest wait their
     * turn, a spacing apart in the batch's (oldest first) order. */
    for (i = 0; i < items->nelts; i++) {
        trv_wh_item *it = &APR_ARRAY_IDX(items, i, trv_wh_item);
        sub_slot *s = it->claimed
            ? apr_hash_get(subs, it->subscription_id, APR_HASH_KEY_STRING) : NULL;
        if (!s) {
            continue;
        }
        if (s->admitted && !s->taken) {
            s->taken = 1;
            continue;
        }
        it->action = TRV_WH_WAIT;
        it->next = s->next;
        s->next += s->spacing;
    }
    return rv;
}
