/* The prebook steps every domain shares (see prebook.h). */
#include "prebook.h"
#include "core/idempotency.h"
#include "core/ids.h"
#include "core/json.h"
#include "payment/provider.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <string.h>

/* 200 with the booking a key made, or 409 when the body differs. */
static void answer_existing(const trv_lifecycle_prebook *x, const trv_lifecycle_prebook_found *f)
{
    if (!f->request_hash || strcmp(f->request_hash, x->hash) != 0) {
        trv_fail(x->req, x->resp, 409, "idempotency_key_reused",
                 "This x-idempotency-key was used for a different prebook request "
                 "(booking %s); use a new key", f->id);
        return;
    }
    x->d->reply(x->req, x->resp, 200, f->booking, NULL);
}

int trv_lifecycle_prebook_existing(const trv_lifecycle_prebook *x, int logno_open,
                                   int logno_read)
{
    trv_req *req = x->req;
    const char *what = apr_pstrcat(req->pool, "reading a ", x->d->name, " key", NULL);
    apr_time_t until = apr_time_now() + x->budget;
    for (;;) {
        trv_dbc *c;
        trv_lifecycle_prebook_found f;
        memset(&f, 0, sizeof(f));
        if (!trv_api_db_open(req, x->resp, &c, logno_open, what)) {
            return 1;
        }
        if (x->d->by_key(req, c, x->key, &f) != APR_SUCCESS) {
            trv_api_db_fail(req, x->resp, c, logno_read, what);
            return 1;
        }
        trv_db_close(req->env->db, c);
        if (!f.booking) {
            return 0;
        }
        if (!f.in_progress || (f.request_hash && strcmp(f.request_hash, x->hash) != 0)) {
            answer_existing(x, &f);
            return 1;
        }
        if (apr_time_now() > until) {
            int gone = x->d->stale ? x->d->stale(req, x->resp, &f, x->budget) : 0;
            if (gone) {
                return gone < 0;
            }
            trv_fail(req, x->resp, 409, "idempotency_key_in_use",
                     "A prebook with this x-idempotency-key is still in progress; "
                     "read booking %s", f.id);
            return 1;
        }
        /* The first request is at the supplier: no connection held here. */
        apr_sleep(apr_time_from_msec(100));
    }
}

int trv_lifecycle_prebook_begin(trv_lifecycle_prebook *x, trv_req *req, trv_resp *resp,
                                const trv_lifecycle_prebook_domain *d, const trv_errs *errs,
                                const char *key, const char *supplier, int logno_open,
                                int logno_read)
{
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return 1;
    }
    x->req = req;
    x->resp = resp;
    x->d = d;
    x->key = key;
    x->hash = trv_idempotency_body_hash(req->pool, req->json);
    x->supplier = supplier;
    x->budget = trv_config_call_budget(req->env->cfg, d->upstream, supplier, d->wait_calls, 1);
    /* A repeated key answers with its booking before anything about the
     * offer is checked again (it may have expired since). */
    return trv_lifecycle_prebook_existing(x, logno_open, logno_read);
}

void trv_lifecycle_prebook_failed(const trv_lifecycle_prebook *x, const char *id,
                                  const char *code, const char *desc, int logno_open,
                                  int logno_store, int logno_log)
{
    trv_req *req = x->req;
    trv_dbc *c;
    const char *what = apr_pstrcat(req->pool, "recording a failed ", x->d->name, NULL);
    json_t *failure = trv_json_bind(req->pool, json_pack("{s:s,s:s}", "code", code,
                                                         "description", desc));
    if (!trv_api_db_open(req, x->resp, &c, logno_open, what)) {
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || x->d->failed(c, req->pool, id, trv_json_dump(req->pool, failure)) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        trv_api_db_fail(req, x->resp, c, logno_store, what);
        return;
    }
    trv_db_close(req->env->db, c);
    trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id, "TRV%d: %s %s failed at %s: %s: %s",
                logno_log, x->d->name, id, x->supplier, code, desc);
    trv_fail(req, x->resp, 422, code, "The prebook failed (booking %s is FAILED; send a new "
             "x-idempotency-key to try again): %s", id, desc);
}

int trv_lifecycle_prebook_answered(const trv_lifecycle_prebook *x, const char *id,
                                   trv_up_status st, const char *code, const char *message,
                                   int logno_open, int logno_store, int logno_log,
                                   int logno_abandon)
{
    int gone;
    const char *desc;
    if (st == TRV_UP_OK) {
        return 0;
    }
    if (st != TRV_UP_NOT_FOUND && st != TRV_UP_REJECTED && st != TRV_UP_DECLINED) {
        trv_lifecycle_prebook_abandon(x, id, st, message, logno_abandon);
        return 1;
    }
    /* Our codes, not the supplier's: the description carries its words. */
    gone = st == TRV_UP_NOT_FOUND
           || (x->d->gone_code && code && strcmp(code, x->d->gone_code) == 0);
    desc = message && *message ? message
         : st == TRV_UP_NOT_FOUND && x->d->gone_message ? x->d->gone_message
         : "The supplier refused the prebook";
    trv_lifecycle_prebook_failed(x, id, gone ? "offer_unavailable" : "prebook_failed", desc,
                                 logno_open, logno_store, logno_log);
    return 1;
}

void trv_lifecycle_prebook_abandon(const trv_lifecycle_prebook *x, const char *id,
                                   trv_up_status st, const char *message, int logno)
{
    trv_dbc *c;
    int deleted = 0;
    if (trv_db_open(x->req->env->db, x->req->pool, &c) == APR_SUCCESS) {
        if (x->d->abandon(c, x->req->pool, id, &deleted) != APR_SUCCESS) {
            trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                        "TRV%d: %s %s: removing it failed: %s%s", logno, x->d->name, id,
                        c->error, x->d->abandon_note);
        }
        trv_db_close(x->req->env->db, c);
    }
    x->d->upstream_fail(x->req, x->resp, st, x->supplier, message);
}

const char *trv_lifecycle_prebook_row_start(const trv_lifecycle_prebook *x,
                                            trv_lifecycle_row_new *r,
                                            const char *offer_reference, int use_payment_sdk)
{
    r->id = trv_id_new(x->req->pool, "bkg");
    r->org_id = x->req->org_id;
    r->user_id = x->req->user_id;
    r->supplier = x->supplier;
    r->idempotency_key = x->key;
    r->request_hash = x->hash;
    r->offer_reference = offer_reference;
    r->use_payment_sdk = use_payment_sdk;
    return r->id;
}

json_t *trv_lifecycle_prebook_sdk_token(const trv_lifecycle_prebook *x, const char *id,
                                        const trv_money *total, int logno)
{
    trv_req *req = x->req;
    trv_pay_ctx pc;
    trv_pay_err perr = {0};
    json_t *token = NULL;
    trv_up_status ps = TRV_UP_UNAVAILABLE;
    if (trv_pay_ctx_init(req->env, req->pool, req->request_id, &pc) && total) {
        ps = trv_payment_adapter.sdk_token(&pc, total, apr_pstrcat(req->pool, id, ":sdk", NULL),
                                           &token, &perr);
    }
    if (ps != TRV_UP_OK || !trv_json_str(token, "token")) {
        trv_lifecycle_prebook_abandon(x, id, ps == TRV_UP_OK ? TRV_UP_BAD_RESPONSE : ps,
                                      perr.message, logno);
        return NULL;
    }
    return token;
}

json_t *trv_lifecycle_prebook_sdk_meta(const json_t *token)
{
    const char *provider = trv_json_str(token, "provider");
    return json_pack("{s:{s:s,s:s}}", "payment_sdk", "provider",
                     provider ? provider : trv_payment_adapter.name,
                     "token", trv_json_str(token, "token"));
}

void trv_lifecycle_prebook_too_late(const trv_lifecycle_prebook *x)
{
    trv_fail(x->req, x->resp, 409, "invalid_state",
             "The prebook took too long and was abandoned; use a new x-idempotency-key");
}
