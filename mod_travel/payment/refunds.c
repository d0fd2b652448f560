/* Refund requests of any domain (refunds.h): the statements are the
 * domain's, the logic one. */
#include "refunds.h"
#include "provider.h"
#include "core/json.h"
#include "core/log.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

apr_status_t trv_refunds_insert(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                const trv_refunds_item *r)
{
    if (k->per_cancellation) {
        return trv_db_exec(c, p, &k->sql->insert, NULL,
                           TRV_DB_ARGS(r->id, r->booking_id, r->cancellation_id, r->payment_id,
                                       r->currency, r->amount));
    }
    return trv_db_exec(c, p, &k->sql->insert, NULL,
                       TRV_DB_ARGS(r->id, r->booking_id, r->payment_id, r->currency,
                                   r->amount));
}

apr_status_t trv_refunds_enqueue(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, const char *request_id)
{
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:s}", "id", booking_id, "request_id",
                                                 request_id ? request_id : "-"));
    return trv_job_enqueue_spec(c, p, k->job, payload, 0,
                                apr_psprintf(p, "%s:%s", k->job->kind, booking_id), NULL);
}

apr_status_t trv_refunds_restart(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, int *n)
{
    return trv_db_exec(c, p, &k->sql->restart, n, TRV_DB_ARGS(booking_id));
}

apr_status_t trv_refunds_pending(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, apr_array_header_t **out)
{
    trv_rows *r;
    apr_status_t rv = trv_db_select(c, p, &k->sql->pending, &r, TRV_DB_ARGS(booking_id));
    int i;
    *out = apr_array_make(p, 1, sizeof(trv_refunds_item));
    for (i = 0; rv == APR_SUCCESS && i < r->n; i++) {
        trv_refunds_item *f = apr_array_push(*out);
        f->id = trv_rows_get(r, i, "id");
        f->booking_id = trv_rows_get(r, i, "booking_id");
        f->cancellation_id = trv_rows_get(r, i, "cancellation_id");
        f->payment_id = trv_rows_get(r, i, "payment_id");
        f->currency = trv_rows_get(r, i, "currency");
        f->amount = trv_rows_get(r, i, "amount");
        f->provider_ref = trv_rows_get(r, i, "provider_ref");
    }
    return rv;
}

apr_status_t trv_refunds_result(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                const trv_log *log, const char *request_id, const char *id,
                                trv_refund_status status, const char *provider_ref,
                                const char *error)
{
    if (!trv_refund_status_transit(log, request_id, id, TRV_REFUND_PENDING, status)) {
        return APR_SUCCESS;
    }
    return trv_db_exec(c, p, &k->sql->result, NULL,
                       TRV_DB_ARGS(trv_transit_text(&trv_refund_status_table, status), provider_ref, error, id));
}

static void db_failed(trv_env *env, apr_pool_t *p, trv_dbc *c, trv_job_result *res,
                      const char *what)
{
    res->outcome = TRV_JOB_RETRY;
    res->error = apr_psprintf(p, "%s: %s", what, c->error ? c->error : "no database");
    trv_db_close(env->db, c);
}

/* One refund sent: SUBMITTED, FAILED, or PENDING when the provider did not
 * answer and the job has attempts left (*again set). */
static trv_refund_status submit(trv_pay_ctx *pc, apr_pool_t *p, const trv_refunds_item *r,
                                int last, json_t **refund, const char **error, int *again)
{
    trv_pay_err err = {0};
    trv_money amount;
    trv_up_status st;

    if (!r->provider_ref
        || trv_money_parse_decimal(r->amount, trv_currency_exponent(r->currency),
                                   &amount.minor) != APR_SUCCESS) {
        *error = r->provider_ref ? "unreadable amount" : "the payment has no authorization";
        return TRV_REFUND_FAILED;
    }
    memcpy(amount.currency, r->currency, 4);
    /* The refund's id is its idempotency key: a resend after a lost answer
     * makes no second refund. */
    st = trv_payment_adapter.refund(pc, r->provider_ref, &amount, r->id, refund, &err);
    if (st == TRV_UP_OK) {
        return TRV_REFUND_SUBMITTED;
    }
    if (st == TRV_UP_REJECTED || st == TRV_UP_DECLINED || st == TRV_UP_NOT_FOUND || last) {
        *error = apr_psprintf(p, "%s: %s", trv_up_status_name(st),
                              err.message ? err.message : "");
        return TRV_REFUND_FAILED;
    }
    *again = 1;
    return TRV_REFUND_PENDING;
}

void trv_refunds_run(trv_env *env, apr_pool_t *p, const trv_job *job, trv_job_result *res)
{
    const trv_refunds_kind *k = job->arg;
    const char *id = trv_json_str(job->payload, "id");
    apr_array_header_t *todo;
    trv_pay_ctx pc;
    int i, again = 0, last = job->attempt >= job->max_attempts;
    trv_dbc *c;

    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_refunds_pending(k, c, p, id ? id : "", &todo) != APR_SUCCESS) {
        db_failed(env, p, c, res, "reading refunds");
        return;
    }
    trv_db_close(env->db, c);
    if (todo->nelts == 0) {
        return;
    }
    if (!trv_pay_ctx_init(env, p, trv_job_request_id(job), &pc)) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "no TravelPaymentProvider is configured";
        return;
    }
    for (i = 0; i < todo->nelts; i++) {
        const trv_refunds_item *r = &APR_ARRAY_IDX(todo, i, trv_refunds_item);
        json_t *refund = NULL;
        const char *error = NULL;
        trv_refund_status status = submit(&pc, p, r, last, &refund, &error, &again);

        if (status == TRV_REFUND_PENDING) {
            continue;
        }
        if (status == TRV_REFUND_FAILED) {
            trv_log_msg(&env->log, TRV_LOG_ERR, trv_job_request_id(job),
                        TRVLOGNO(2680) "%s %s: refund %s of %s %s failed: %s (a repeated "
                        "cancel restarts it)", k->noun, r->booking_id, r->id, r->amount,
                        r->currency, error);
        }
        if (!trv_job_db_open(env, p, &c, res)) {
            return;
        }
        if (trv_refunds_result(k, c, p, &env->log, trv_job_request_id(job), r->id, status,
                   trv_json_str(refund, "id"), error) != APR_SUCCESS) {
            db_failed(env, p, c, res, "recording a refund");
            return;
        }
        trv_db_close(env->db, c);
    }
    if (again) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "the payment provider is unavailable";
    }
}
