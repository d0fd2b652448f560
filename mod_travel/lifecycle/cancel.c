/* The cancel runner (cancel.h): the sequence once, the domain's steps
 * through its ops. */
#include "cancel.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/log.h"
#include "core/money.h"
#include "payment/record.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>

trv_lifecycle_cancel_booking *trv_lifecycle_cancel_view(apr_pool_t *p, void *own,
                                                        const trv_lifecycle_row *row,
                                                        const char *supplier_ref,
                                                        int canceling, int service_pays)
{
    trv_lifecycle_cancel_booking *b = apr_pcalloc(p, sizeof(*b));
    int i;
    b->id = row->id;
    b->org_id = row->org_id;
    b->supplier = row->supplier;
    b->supplier_ref = supplier_ref;
    b->currency = row->currency;
    b->canceling = canceling;
    b->attempt = row->cancel_attempt;
    b->service_pays = service_pays;
    b->payments = apr_array_make(p, 1, sizeof(trv_lifecycle_cancel_payment));
    b->own = own;
    for (i = 0; row->payments && i < row->payments->nelts; i++) {
        const trv_payment_record *rec = &APR_ARRAY_IDX(row->payments, i, trv_payment_record);
        trv_lifecycle_cancel_payment *pay = apr_array_push(b->payments);
        pay->id = rec->id;
        pay->amount = rec->amount;
        pay->status = rec->status;
        pay->collected_by = rec->collected_by;
    }
    return b;
}

apr_status_t trv_lifecycle_cancel_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                                          const char *id, int attempt,
                                          const char *request_id)
{
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:s,s:i}", "id", id, "request_id",
                                                 request_id ? request_id : "-", "attempt",
                                                 attempt));
    return trv_job_enqueue_spec(c, p, kind, payload, 0,
                                apr_psprintf(p, "%s:%s:%d", kind->kind, id, attempt), NULL);
}

int trv_lifecycle_cancel_refunds_restart(const trv_lifecycle_cancel_ops *ops, trv_req *req,
                                         trv_resp *resp, trv_dbc *c, const char *id)
{
    int restarted = 0;
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_refunds_restart(ops->refunds, c, req->pool, id, &restarted) != APR_SUCCESS
        || (restarted > 0 && trv_refunds_enqueue(ops->refunds, c, req->pool, id,
                                                 req->request_id) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 2681, "restarting refunds");
        return 0;
    }
    trv_db_close(req->env->db, c);
    if (restarted > 0) {
        trv_env_wake(req->env);
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(2682) "%s %s: %d failed refund submission(s) restarted",
                    ops->noun, id, restarted);
    }
    return 1;
}

/* ---- the background run ---- */

/* The API's error code for the supplier's refusal code (ops->kept_codes). */
static const char *refusal_code(const trv_lifecycle_cancel_ops *ops, apr_pool_t *p,
                                const char *code)
{
    char *lc = apr_pstrdup(p, code ? code : "");
    const char *const *k;
    int i;
    for (i = 0; lc[i]; i++) {
        lc[i] = (char)tolower((unsigned char)lc[i]);
    }
    for (k = ops->kept_codes; k && *k; k++) {
        if (strcmp(lc, *k) == 0) {
            return lc;
        }
    }
    return ops->refused_code;
}

static int job_begin(trv_env *env, apr_pool_t *p, trv_dbc **c)
{
    *c = NULL;
    if (trv_db_open(env->db, p, c) != APR_SUCCESS) {
        *c = NULL;
        return 0;
    }
    return trv_db_begin(*c, p) == APR_SUCCESS;
}

static void job_db_failed(trv_env *env, apr_pool_t *p, trv_dbc *c, trv_job_result *res,
                          const char *what)
{
    res->outcome = TRV_JOB_RETRY;
    res->error = apr_psprintf(p, "%s: %s", what, c && c->error ? c->error : "no database");
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(env->db, c);
    }
}

/* The supplier refused (or could not be reached for good): the booking is
 * CONFIRMED again with the failure the API shows. */
static void failed(const trv_lifecycle_cancel_ops *ops, trv_env *env, apr_pool_t *p,
                   const trv_job *job, const trv_lifecycle_cancel_booking *b, const char *code,
                   const char *message, trv_job_result *res)
{
    trv_lifecycle_cancel_moved moved;
    trv_dbc *c;
    memset(&moved, 0, sizeof(moved));
    if (!job_begin(env, p, &c) || ops->failed(c, p, b, code, message, &moved) != APR_SUCCESS
        || (moved.moved && ops->emit(c, p, b, &moved, ops->failed_event) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a failed cancellation");
        return;
    }
    trv_db_close(env->db, c);
    trv_env_wake(env);
    trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                TRVLOGNO(2683) "%s %s: cancellation %d failed: %s: %s", ops->noun, b->id,
                b->attempt, code, message ? message : "");
}

/* The intended refund goes back over the captured payments in order; the
 * service sends a refund request for each part it collected itself. */
static json_t *split(apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                     const trv_lifecycle_cancel_plan *plan, apr_array_header_t *refunds)
{
    json_t *refund_to = trv_json_bind(p, json_array());
    int exponent = trv_currency_exponent(b->currency), i;
    apr_int64_t left = plan->refund_minor, paid, part;

    for (i = 0; plan->known && b->payments && i < b->payments->nelts && left > 0; i++) {
        const trv_lifecycle_cancel_payment *pay =
            &APR_ARRAY_IDX(b->payments, i, trv_lifecycle_cancel_payment);
        if (pay->status != TRV_PAY_CAPTURED || !pay->amount
            || trv_money_parse_decimal(pay->amount, exponent, &paid) != APR_SUCCESS) {
            continue;
        }
        part = paid < left ? paid : left;
        left -= part;
        json_array_append_new(refund_to, json_pack("{s:s}", "payment_id", pay->id));
        if (b->service_pays && pay->collected_by == TRV_COLLECTOR_SERVICE) {
            trv_refunds_item *r = apr_array_push(refunds);
            memset(r, 0, sizeof(*r));
            r->id = trv_id_new(p, "rfd");
            r->booking_id = b->id;
            r->payment_id = pay->id;
            r->currency = b->currency;
            r->amount = trv_money_decimal(p, part, exponent);
        }
    }
    return refund_to;
}

static void canceled(const trv_lifecycle_cancel_ops *ops, trv_env *env, apr_pool_t *p,
                     const trv_job *job, const trv_lifecycle_cancel_booking *b,
                     const trv_lifecycle_cancel_answer *ans, trv_job_result *res)
{
    apr_array_header_t *refunds = apr_array_make(p, 1, sizeof(trv_refunds_item));
    trv_lifecycle_cancel_plan plan;
    trv_lifecycle_cancel_moved moved;
    json_t *refund_to;
    trv_dbc *c;
    int i;

    memset(&plan, 0, sizeof(plan));
    memset(&moved, 0, sizeof(moved));
    if (!job_begin(env, p, &c) || ops->plan(c, p, b, ans, &plan) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "reading earlier refunds");
        return;
    }
    refund_to = split(p, b, &plan, refunds);
    if (ops->canceled(c, p, b, &plan, refund_to, &moved) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a cancellation");
        return;
    }
    if (moved.moved) {
        for (i = 0; i < refunds->nelts; i++) {
            trv_refunds_item *r = &APR_ARRAY_IDX(refunds, i, trv_refunds_item);
            r->cancellation_id = moved.cancellation_id;
            if (trv_refunds_insert(ops->refunds, c, p, r) != APR_SUCCESS) {
                job_db_failed(env, p, c, res, "recording refunds");
                return;
            }
        }
        if ((refunds->nelts > 0
             && trv_refunds_enqueue(ops->refunds, c, p, b->id, trv_job_request_id(job))
                != APR_SUCCESS)
            || ops->emit(c, p, b, &moved, ops->canceled_event) != APR_SUCCESS) {
            job_db_failed(env, p, c, res, "recording a cancellation");
            return;
        }
    }
    if (trv_db_commit(c) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "recording a cancellation");
        return;
    }
    trv_db_close(env->db, c);
    trv_env_wake(env);
    if (!plan.known) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, trv_job_request_id(job),
                    TRVLOGNO(2684) "%s %s: canceled, but the refund could not be "
                    "established (%s): review it", ops->noun, b->id,
                    plan.review ? plan.review : "-");
    }
    trv_log_msg(&env->log, TRV_LOG_INFO, trv_job_request_id(job),
                TRVLOGNO(2685) "%s %s canceled at %s (%s), %d refund(s) to submit", ops->noun,
                b->id, b->supplier ? b->supplier : "-",
                b->supplier_ref ? b->supplier_ref : "-", refunds->nelts);
}

void trv_lifecycle_cancel_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                              trv_job_result *res)
{
    const trv_lifecycle_cancel_ops *ops = job->arg;
    const char *id = trv_json_str(job->payload, "id");
    int attempt = (int)json_integer_value(json_object_get(job->payload, "attempt"));
    trv_lifecycle_cancel_answer ans;
    trv_lifecycle_cancel_booking *b;
    trv_dbc *c;

    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (ops->load(env, c, p, id ? id : "", &b) != APR_SUCCESS) {
        job_db_failed(env, p, c, res, "reading the booking");
        return;
    }
    trv_db_close(env->db, c);
    if (!b || !b->canceling || b->attempt != attempt) {
        return; /* finished, or another run's */
    }
    memset(&ans, 0, sizeof(ans));
    if (!ops->ask(env, p, trv_job_request_id(job), b, &ans)) {
        failed(ops, env, p, job, b, "cancellation_failed",
               "The booking's supplier cannot be reached to cancel it", res);
        return;
    }
    switch (ans.status) {
    case TRV_UP_OK:
        canceled(ops, env, p, job, b, &ans, res);
        return;
    case TRV_UP_REJECTED:
    case TRV_UP_NOT_FOUND:
    case TRV_UP_DECLINED:
        failed(ops, env, p, job, b, refusal_code(ops, p, ans.code),
               ans.message && *ans.message ? ans.message : ops->refused_message, res);
        return;
    default:
        /* Unanswered or unavailable: asked again (a cancel that did land
         * answers the same). The last attempt gives up: the booking stays
         * CONFIRMED and a repeated cancel starts a new attempt. */
        if (job->attempt >= job->max_attempts) {
            trv_log_msg(&env->log, TRV_LOG_ERR, trv_job_request_id(job),
                        TRVLOGNO(2686) "%s %s: cancellation %d given up: %s: %s", ops->noun,
                        b->id, b->attempt, trv_up_status_name(ans.status),
                        ans.message ? ans.message : "");
            failed(ops, env, p, job, b, ops->gave_up_code, ops->gave_up_message, res);
            return;
        }
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "cancel at %s: %s", b->supplier,
                                  trv_up_status_name(ans.status));
    }
}
