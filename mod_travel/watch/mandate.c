/* POST /v1/mandate/{id}/confirm: the user confirms the auto-purchase
 * mandate of one of their price watches; the watch becomes armed (it
 * then buys instead of sending watch.triggered). Confirming again answers
 * the same; a mandate of a watch that is no longer active or armed
 * (canceled, fired, expired) is 409 invalid_state. Answers {"data": null}. */
#include "watch.h"
#include "mandate_status.h"
#include "watch_status.h"
#include "core/validate.h"

#include <string.h>

/* One lock order for a watch and its mandate everywhere: the watch first,
 * then the mandate (canceling a watch updates the watch, then its
 * mandate). Confirming once locked the mandate and then the watch, and a
 * confirm meeting a cancel deadlocked (one of them answered 500). */
static const trv_stmt lock_watch_stmt = {"trv_mandate_lock_watch",
    "SELECT w.id AS watch_id, w.status AS watch_status, "
    "(w.check_in <= (now() AT TIME ZONE 'UTC')::date) AS past "
    "FROM watches w WHERE w.id = (SELECT m.watch_id FROM watch_mandates m "
    "WHERE m.id = %s AND m.org_id = %s AND m.user_id = %s) FOR UPDATE"};
static const trv_stmt lock_mandate_stmt = {"trv_mandate_lock",
    "SELECT status FROM watch_mandates WHERE id = %s FOR UPDATE"};
static const trv_stmt confirm_stmt = {"trv_mandate_confirm",
    "UPDATE watch_mandates SET status = 'confirmed', confirmed_at = trv_now(), "
    "updated_at = trv_now() WHERE id = %s AND status = 'pending_confirmation'"};
static const trv_stmt arm_stmt = {"trv_mandate_arm",
    "UPDATE watches SET status = 'armed', updated_at = trv_now() "
    "WHERE id = %s AND status = 'active'"};

typedef enum { CONFIRMED, NOT_FOUND, NOT_ACTIVE } outcome;

typedef struct confirming {
    trv_req *req;
    const char *id;
    outcome out;
} confirming;

/* One run of the transaction (trv_db_transaction runs it again when
 * PostgreSQL aborts it for a deadlock or a serialization failure). */
static apr_status_t confirm_txn(trv_dbc *c, apr_pool_t *p, void *baton)
{
    confirming *x = baton;
    trv_rows *w, *m;
    trv_watch_status ws = TRV_WATCH_CANCELED;
    trv_mandate_status ms = TRV_MANDATE_CANCELED;
    if (trv_db_select(c, p, &lock_watch_stmt, &w,
                      TRV_DB_ARGS(x->id, x->req->org_id, x->req->user_id)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (!w->n) {
        x->out = NOT_FOUND;
        return APR_SUCCESS;
    }
    if (trv_db_select(c, p, &lock_mandate_stmt, &m, TRV_DB_ARGS(x->id)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    /* The columns' CHECK constraints admit only the enums' texts. */
    ws = trv_transit_or(&trv_watch_status_table, trv_rows_get(w, 0, "watch_status"), (int)ws);
    if (m->n) {
        ms = trv_transit_or(&trv_mandate_status_table, trv_rows_get(m, 0, "status"), (int)ms);
    }
    if (!m->n || ms == TRV_MANDATE_CANCELED
        || (ws != TRV_WATCH_ACTIVE && ws != TRV_WATCH_ARMED)
        || trv_rows_bool(w, 0, "past")) {
        x->out = NOT_ACTIVE;
        return APR_SUCCESS;
    }
    x->out = CONFIRMED;
    if (trv_db_exec(c, p, &confirm_stmt, NULL, TRV_DB_ARGS(x->id)) != APR_SUCCESS
        || trv_db_exec(c, p, &arm_stmt, NULL, TRV_DB_ARGS(trv_rows_get(w, 0, "watch_id")))
               != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return APR_SUCCESS;
}

void trv_watch_mandate_confirm(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    confirming x = {req, apr_table_get(req->params, "mandate_id"), NOT_FOUND};
    trv_dbc *c;

    if (req->json) {
        trv_json_known(req->json, NULL, known, errs);
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 1510, "confirming a mandate")) {
        return;
    }
    if (trv_db_transaction(c, req->pool, confirm_txn, &x) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1511, "confirming a mandate");
        return;
    }
    trv_db_close(req->env->db, c);
    if (x.out == NOT_FOUND) {
        trv_fail(req, resp, 404, "not_found", "No mandate %s", x.id);
    }
    else if (x.out == NOT_ACTIVE) {
        trv_fail(req, resp, 409, "invalid_state", "Mandate %s belongs to a watch that is no "
                 "longer active", x.id);
    }
    else {
        trv_ok(req, resp, 200, json_null(), NULL);
    }
}
