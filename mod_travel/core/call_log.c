#include "call_log.h"
#include "db.h"
#include "log.h"

#include <apr_strings.h>
#include <string.h>

static const trv_stmt insert_stmt = {"trv_call_log_add",
    "INSERT INTO supplier_calls (org_id, booking_id, family, supplier, operation, outcome, "
    "http_status, duration_ms, request_id) VALUES (%s, %s, %s, %s, %s, %s, %s::int, %s::int, "
    "%s)"};

void trv_call_log_add(trv_env *env, apr_pool_t *p, const trv_call_log_entry *e)
{
    const char *q = strchr(e->path, '?');
    /* A query may carry a supplier's key or signature: never stored. */
    const char *op = apr_pstrcat(p, e->method, " ",
                                 q ? apr_pstrndup(p, e->path, (apr_size_t)(q - e->path))
                                   : e->path, NULL);
    trv_dbc *c = NULL;
    if (!env->db || trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        TRV_DEBUG(&env->log, e->request_id,
                  TRVLOGNO(2902) "booking %s: the call %s was not recorded (no database)",
                  e->booking_id, op);
        return;
    }
    if (trv_db_exec(c, p, &insert_stmt, NULL,
                    TRV_DB_ARGS(e->org_id, e->booking_id, e->family, e->supplier, op,
                                trv_up_status_name(e->res->status),
                                apr_itoa(p, e->res->http_status),
                                apr_ltoa(p, (long)apr_time_as_msec(e->res->elapsed)),
                                e->request_id))
        != APR_SUCCESS) {
        TRV_DEBUG(&env->log, e->request_id,
                  TRVLOGNO(2901) "booking %s: the call %s was not recorded: %s", e->booking_id,
                  op, c->error ? c->error : "database error");
    }
    trv_db_close(env->db, c);
}
