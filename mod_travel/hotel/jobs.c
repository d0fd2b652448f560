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
    return trv_lifecycle_book_job_load(&trv_hbook_lifecycle, env, p, job, res);
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
        if (!trv_job_db_open(env, p, &c, res)) {
            return;
        }
        if (trv_db_begin(c, p) != APR_SUCCESS
            || trv_payments_captured(&trv_hbooking_payments, c, p, pay->id,
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
    trv_hbooking *b = load(env, p, job, res);
    const char *owner = trv_owner_self(p);
    trv_hb_phase phase;
    trv_lifecycle_book_run run;
    trv_lifecycle_book_outcome out;

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
    trv_lifecycle_book_init(&run, &trv_hbook_lifecycle, env, p, trv_job_request_id(job),
                            &env->log, owner, b);
    phase = b->book_phase;
    if (phase == TRV_HB_PHASE_AUTHORIZING || phase == TRV_HB_PHASE_ORDERING) {
        /* A step a request started: taken over only once that request is
         * gone (its process died) or its calls have all timed out; an
         * interrupted order is then read at the supplier (book.c). */
        if (!trv_lifecycle_book_job_may_take(p, b->phase_due, b->phase_owner, res)
            || !trv_lifecycle_book_job_take_over(&run, res)) {
            return;
        }
        if (((trv_hbooking *)run.b)->book_phase != phase
            || strcmp(b->phase_owner ? b->phase_owner : "", owner) != 0) {
            trv_log_msg(&env->log, TRV_LOG_WARNING, run.request_id,
                        TRVLOGNO(1440) "hotel booking %s: taking over book step %s from %s",
                        b->id, trv_transit_column_text(&trv_hb_phase_table, phase), b->phase_owner ? b->phase_owner : "-");
        }
    }
    else {
        /* confirming, unknown: reads only, which any worker may make; the
         * step keeps its owner and its deadline (past it, a booking the
         * supplier has no record of is FAILED). */
        run.owner = b->phase_owner;
    }
    out = trv_lifecycle_book_continue(&run);
    trv_lifecycle_book_job_result(&run, out, job, "the supplier has not confirmed yet", res);
}
