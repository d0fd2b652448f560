/* hotel.booking.complete (enqueue.h): finishes what book started. */
#include "enqueue.h"
#include "reply.h"
#include "book.h"
#include "booking_store.h"
#include "render.h"
#include "core/owner.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

static trv_hbooking *load(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res)
{
    const char *id;
    trv_hbooking *b = NULL;
    trv_dbc *c;
    if (!trv_job_open(env, p, job, &id, &c, res)) {
        return NULL;
    }
    if (trv_hbooking_get_any(c, p, id, &b) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "reading hotel booking %s: %s", id, c->error);
        b = NULL;
    }
    trv_db_close(env->db, c);
    return b;
}

/* A confirmed booking whose capture failed: captured now. */
static void capture_late(trv_env *env, apr_pool_t *p, const trv_job *job, trv_hbooking *b,
                         trv_job_result *res)
{
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    trv_money total;
    json_t *auth = NULL;
    trv_dbc *c;
    trv_hbooking *again;
    int i;
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_hpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_hpayment);
        trv_up_status st = TRV_UP_UNAVAILABLE;
        if (pay->status != TRV_PAY_AUTHORIZED || pay->collected_by != TRV_COLLECTOR_SERVICE) {
            continue;
        }
        if (trv_hreply_total(b, &total) && trv_pay_ctx_init(env, p, trv_job_request_id(job), &pc)) {
            st = trv_payment_adapter.capture(&pc, pay->provider_ref, &total,
                                             apr_pstrcat(p, b->id, ":capture", NULL), &auth,
                                             &err);
        }
        if (st != TRV_UP_OK) {
            res->outcome = TRV_JOB_RETRY;
            res->error = apr_psprintf(p, "capture: %s", trv_up_status_name(st));
            return;
        }
        if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
            res->outcome = TRV_JOB_RETRY;
            res->error = "database unavailable";
            return;
        }
        if (trv_db_begin(c, p) != APR_SUCCESS
            || trv_hbooking_payment_captured(c, p, pay->id,
                                             json_is_object(json_object_get(auth, "card"))
                                                 ? trv_json_dump(p, json_object_get(auth, "card"))
                                                 : NULL) != APR_SUCCESS
            || trv_hbooking_get_any(c, p, b->id, &again) != APR_SUCCESS
            || trv_hrender_keep(c, p, again) != APR_SUCCESS
            || trv_db_commit(c) != APR_SUCCESS) {
            res->outcome = TRV_JOB_RETRY;
            res->error = apr_psprintf(p, "recording the capture: %s", c->error);
            if (c->in_txn) {
                trv_db_rollback(c);
            }
        }
        trv_db_close(env->db, c);
        return;
    }
}

void trv_hjob_complete_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res)
{
    trv_hbooking *b = load(env, p, job, res), *took;
    const char *owner = trv_owner_self(p);
    trv_hb_phase phase, to;
    trv_hbook_run run;
    trv_hbook_outcome out;
    trv_dbc *c;

    if (!b) {
        return;
    }
    if (b->status == TRV_HB_CONFIRMED) {
        capture_late(env, p, job, b, res);
        return;
    }
    if (b->status != TRV_HB_COMPLETING || b->book_phase == TRV_HB_PHASE_NONE) {
        return; /* failed, or back to ready */
    }
    memset(&run, 0, sizeof(run));
    run.env = env;
    run.p = p;
    run.request_id = trv_job_request_id(job);
    run.log = &env->log;
    run.owner = owner;
    run.b = b;
    phase = b->book_phase;
    if (phase == TRV_HB_PHASE_AUTHORIZING || phase == TRV_HB_PHASE_ORDERING) {
        /* A step a request started: taken over only once that request is
         * gone (its process died) or its calls have all timed out. */
        if (!b->phase_due && !trv_owner_gone(p, b->phase_owner)) {
            res->outcome = TRV_JOB_RETRY;
            res->retry_in = apr_time_from_sec(1);
            res->error = "the request is still at it";
            return;
        }
        /* An interrupted order is read at the supplier, not sent again
         * (its answer may have been lost after the supplier booked). */
        to = phase == TRV_HB_PHASE_ORDERING ? TRV_HB_PHASE_UNKNOWN : phase;
    }
    else {
        /* confirming, unknown: reads only, which any worker may make; the
         * step keeps its owner and its deadline (past it, a booking the
         * supplier has no record of is FAILED). */
        run.owner = b->phase_owner;
        goto go;
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "database unavailable";
        return;
    }
    if (trv_hbooking_phase(c, p, &env->log, run.request_id, b->id, phase, b->phase_owner, to,
                           owner, trv_hbook_budget(env, b, TRV_HB_PHASE_ORDERING), NULL, &took)
        != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "taking over: %s", c->error);
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    if (!took) {
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = apr_time_from_sec(1);
        res->error = "moved on meanwhile";
        return;
    }
    if (phase != to || strcmp(b->phase_owner ? b->phase_owner : "", owner) != 0) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, run.request_id,
                    TRVLOGNO(1440) "hotel booking %s: taking over book step %s from %s", b->id,
                    trv_hb_phase_text(phase), b->phase_owner ? b->phase_owner : "-");
    }
    run.b = took;
go:
    out = trv_hbook_continue(&run);
    switch (out) {
    case TRV_HBOOK_PENDING:
    case TRV_HBOOK_UNKNOWN:
    case TRV_HBOOK_RETRY:
        res->outcome = TRV_JOB_RETRY;
        res->retry_in = job->attempt < 60 ? apr_time_from_sec(1) : apr_time_from_sec(30);
        res->error = "the supplier has not confirmed yet";
        return;
    case TRV_HBOOK_DB:
        res->outcome = TRV_JOB_RETRY;
        res->error = "database step failed";
        return;
    default:
        return;
    }
}
