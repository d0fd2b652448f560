/* Authorization intents of any domain (intents.h): the statements are the
 * domain's (intents_sql.h), the logic one. */
#include "intents.h"
#include "core/config.h"
#include "core/ids.h"
#include "core/json.h"

#include <apr_strings.h>
#include <stdlib.h>

static trv_pintent *intent_at(apr_pool_t *p, const trv_rows *r, int i)
{
    trv_pintent *in = apr_pcalloc(p, sizeof(*in));
    const char *rel = trv_rows_get(r, i, "release_in");
    in->id = trv_rows_get(r, i, "id");
    in->booking_id = trv_rows_get(r, i, "booking_id");
    in->key = trv_rows_get(r, i, "idempotency_key");
    in->instrument = trv_rows_get(r, i, "instrument");
    in->currency = trv_rows_get(r, i, "currency");
    in->amount = trv_rows_get(r, i, "amount");
    /* The column's CHECK constraint admits only the enum's texts. */
    in->status = trv_transit_or(&trv_pintent_status_table, trv_rows_get(r, i, "status"), (int)in->status);
    in->provider_ref = trv_rows_get(r, i, "provider_ref");
    in->outcome = trv_rows_get(r, i, "outcome");
    in->book_attempt = trv_rows_int(r, i, "book_attempt", 0);
    in->release_gen = trv_rows_int(r, i, "release_gen", 0);
    in->release_in = rel ? (apr_interval_time_t)apr_atoi64(rel) : 0;
    in->booking_ended = trv_rows_bool(r, i, "booking_ended");
    in->booking_past_expiry = trv_rows_bool(r, i, "booking_past_expiry");
    in->sdk_token = trv_rows_get(r, i, "sdk_token");
    return in;
}

static apr_status_t one_intent(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                               trv_pintent **out, int nargs, const char *const *args)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, st, &rows, nargs, args);
    *out = rv == APR_SUCCESS && rows->n > 0 ? intent_at(p, rows, 0) : NULL;
    return rv;
}

static const char *us(apr_pool_t *p, apr_interval_time_t t)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)(t > 0 ? t : 0));
}

apr_status_t trv_pintent_lock_step(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                   const char *booking_id, const char *owner, int *held)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &k->sql->lock_step, &rows,
                                    TRV_DB_ARGS(booking_id, owner));
    *held = rv == APR_SUCCESS && rows->n == 1;
    return rv;
}

apr_status_t trv_pintent_own(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                             const char *booking_id, int attempt, trv_pintent **out)
{
    return one_intent(c, p, &k->sql->own, out,
                      TRV_DB_ARGS(booking_id, apr_itoa(p, attempt)));
}

apr_status_t trv_pintent_reuse(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                               const char *booking_id, int attempt, const char *instrument,
                               const char *currency, const char *amount, trv_pintent **out)
{
    const char *a = apr_itoa(p, attempt);
    return one_intent(c, p, &k->sql->reuse, out,
                      TRV_DB_ARGS(a, booking_id, instrument, currency, amount, a));
}

apr_status_t trv_pintent_insert(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                const char *booking_id, int attempt, const char *instrument,
                                const char *currency, const char *amount, trv_pintent **out)
{
    return one_intent(c, p, &k->sql->insert, out,
        TRV_DB_ARGS(trv_id_new(p, "pai"), booking_id,
                    apr_psprintf(p, "%s:authorize:%d", booking_id, attempt), instrument,
                    currency, amount, apr_itoa(p, attempt)));
}

apr_status_t trv_pintent_release_others(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                        const char *booking_id, const char *except_id,
                                        apr_array_header_t **out)
{
    trv_rows *rows;
    int i;
    apr_status_t rv = trv_db_select(c, p, &k->sql->release_others, &rows,
                                    TRV_DB_ARGS(booking_id, except_id));
    *out = apr_array_make(p, 1, sizeof(trv_prelease));
    for (i = 0; rv == APR_SUCCESS && i < rows->n; i++) {
        trv_prelease *rel = apr_array_push(*out);
        rel->id = trv_rows_get(rows, i, "id");
        rel->gen = trv_rows_int(rows, i, "release_gen", 0);
        rel->delay = 0;
    }
    return rv;
}

apr_status_t trv_pintent_authorized(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                    const char *id, const char *provider_ref, int *updated)
{
    return trv_db_exec(c, p, &k->sql->authorized, updated, TRV_DB_ARGS(provider_ref, id));
}

apr_status_t trv_pintent_resolved(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                  const char *id, trv_pintent_outcome outcome,
                                  const char *provider_ref)
{
    return trv_db_exec(c, p, &k->sql->resolved, NULL, TRV_DB_ARGS(trv_pintent_outcome_text(outcome), provider_ref, id));
}

apr_status_t trv_pintent_unresolved(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                    const char *id, const char *provider_ref,
                                    apr_interval_time_t after, trv_prelease *rel)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &k->sql->unresolved, &rows,
                                    TRV_DB_ARGS(provider_ref, us(p, after), id));
    rel->id = rv == APR_SUCCESS && rows->n ? trv_rows_get(rows, 0, "id") : NULL;
    rel->gen = rel->id ? trv_rows_int(rows, 0, "release_gen", 0) : 0;
    rel->delay = after > 0 ? after : 0;
    return rv;
}

apr_status_t trv_pintent_of_auth(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, const char *provider_ref,
                                 trv_pintent **out)
{
    return one_intent(c, p, &k->sql->of_auth, out, TRV_DB_ARGS(booking_id, provider_ref));
}

apr_status_t trv_pintent_sdk_release(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                     const char *booking_id, int attempt, const char *currency,
                                     const char *amount, const char *provider_ref,
                                     trv_prelease *rel)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &k->sql->sdk_release, &rows,
        TRV_DB_ARGS(trv_id_new(p, "pai"), booking_id, currency, amount, apr_itoa(p, attempt),
                    provider_ref));
    rel->id = rv == APR_SUCCESS && rows->n ? trv_rows_get(rows, 0, "id") : NULL;
    rel->gen = rel->id ? trv_rows_int(rows, 0, "release_gen", 0) : 0;
    rel->delay = 0;
    return rv;
}

apr_status_t trv_pintent_get(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                             const char *id, trv_pintent **out)
{
    return one_intent(c, p, &k->sql->get, out, TRV_DB_ARGS(id));
}

apr_status_t trv_pintent_claim(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                               const char *id, int *claimed)
{
    return trv_db_exec(c, p, &k->sql->claim, claimed, TRV_DB_ARGS(id));
}

apr_status_t trv_pintent_payment_voided(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                        const char *booking_id, const char *provider_ref)
{
    return trv_db_exec(c, p, &k->sql->payment_voided, NULL,
                       TRV_DB_ARGS(booking_id, provider_ref));
}

apr_status_t trv_pintent_schedule(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                  const trv_prelease *rel, const char *request_id)
{
    if (!rel->id) {
        return APR_SUCCESS;
    }
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:i,s:s}", "id", rel->id, "attempt",
                                                 rel->gen, "request_id",
                                                 request_id ? request_id : "-"));
    return trv_job_enqueue_spec(c, p, k->release_job, payload, rel->delay,
                                apr_psprintf(p, "%s:%s:%d", k->release_job->kind, rel->id,
                                             rel->gen),
                                NULL);
}

apr_status_t trv_pintent_release_expired(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                         const char *booking_id, int attempt, int sdk,
                                         const char *currency, const char *amount,
                                         const char *request_id)
{
    apr_array_header_t *rels;
    trv_prelease session = {0};
    int i;
    if (trv_pintent_release_others(k, c, p, booking_id, NULL, &rels) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (sdk && currency && amount
        && (trv_pintent_sdk_release(k, c, p, booking_id, attempt, currency, amount, NULL,
                                    &session) != APR_SUCCESS
            || trv_pintent_schedule(k, c, p, &session, request_id) != APR_SUCCESS)) {
        return APR_EGENERAL;
    }
    for (i = 0; i < rels->nelts; i++) {
        if (trv_pintent_schedule(k, c, p, &APR_ARRAY_IDX(rels, i, trv_prelease), request_id)
            != APR_SUCCESS) {
            return APR_EGENERAL;
        }
    }
    return APR_SUCCESS;
}

apr_interval_time_t trv_pintent_grace(const trv_env *env)
{
    const trv_upstream *pay = env->cfg ? env->cfg->payment : NULL;
    return 2 * (pay ? pay->timeout : TRV_DEFAULT_TIMEOUT);
}
