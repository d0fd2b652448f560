/* POST /v1/mandate/{id}/confirm: the user confirms the auto-purchase
 * mandate of one of their price watches; the watch becomes armed (it
 * then buys instead of sending watch.triggered). Confirming again answers
 * the same; a mandate of a watch that is no longer active or armed
 * (canceled, fired, expired) is 409 invalid_state. Answers {"data": null}. */
#include "watch.h"
#include "core/validate.h"

#include <string.h>

static const trv_stmt read_stmt = {"trv_mandate_read",
    "SELECT m.status, w.id AS watch_id, w.status AS watch_status, "
    "(w.check_in <= (now() AT TIME ZONE 'UTC')::date) AS past "
    "FROM watch_mandates m JOIN watches w ON w.id = m.watch_id "
    "WHERE m.id = %s AND m.org_id = %s AND m.user_id = %s FOR UPDATE OF m, w"};
static const trv_stmt confirm_stmt = {"trv_mandate_confirm",
    "UPDATE watch_mandates SET status = 'confirmed', confirmed_at = trv_now(), "
    "updated_at = trv_now() WHERE id = %s AND status = 'pending_confirmation'"};
static const trv_stmt arm_stmt = {"trv_mandate_arm",
    "UPDATE watches SET status = 'armed', updated_at = trv_now() "
    "WHERE id = %s AND status = 'active'"};

void trv_watch_mandate_confirm(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {NULL};
    const char *id = apr_table_get(req->params, "mandate_id");
    trv_errs *errs = trv_errs_new(req->pool);
    trv_dbc *c;
    trv_rows *r;
    const char *ws;

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
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &read_stmt, &r,
                         TRV_DB_ARGS(id, req->org_id, req->user_id)) != APR_SUCCESS) {
        goto failed;
    }
    if (!r->n) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 404, "not_found", "No mandate %s", id);
        return;
    }
    ws = trv_rows_get(r, 0, "watch_status");
    if (strcmp(trv_rows_get(r, 0, "status"), "canceled") == 0
        || (strcmp(ws, "active") != 0 && strcmp(ws, "armed") != 0)
        || trv_rows_bool(r, 0, "past")) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "invalid_state", "Mandate %s belongs to a watch that is no "
                 "longer active", id);
        return;
    }
    if (trv_db_exec(c, req->pool, &confirm_stmt, NULL, TRV_DB_ARGS(id)) != APR_SUCCESS
        || trv_db_exec(c, req->pool, &arm_stmt, NULL,
                       TRV_DB_ARGS(trv_rows_get(r, 0, "watch_id"))) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        goto failed;
    }
    trv_db_close(req->env->db, c);
    trv_ok(req, resp, 200, json_null(), NULL);
    return;
failed:
    trv_fail_db(req, resp, c, 1511, "confirming a mandate");
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    trv_db_close(req->env->db, c);
}
