/* After a supplier adapter's call (upstream_note.h). */
#include "upstream_note.h"
#include "call_log.h"

trv_up_status trv_upstream_note_call(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                     const trv_upstream_note *note, int logno,
                                     const char *method, const char *path, trv_up_status st,
                                     const trv_up_result *res, const char **code,
                                     const char **message)
{
    if (note->booking_id) {
        trv_call_log_entry e = {note->org_id, note->booking_id, note->family, up->name,
                                method, path, note->request_id, res};
        trv_call_log_add(env, p, &e);
    }
    if (st != TRV_UP_OK) {
        int level = (st == TRV_UP_REJECTED || st == TRV_UP_NOT_FOUND) ? TRV_LOG_INFO
                                                                       : TRV_LOG_WARNING;
        *code = res->code ? res->code : trv_up_status_name(st);
        *message = res->message ? res->message : "the supplier did not answer";
        trv_log_msg(&env->log, level, note->request_id,
                    "TRV%d: %s %s %s: %s (HTTP %d, %s) after %" APR_TIME_T_FMT " ms", logno,
                    note->who, method, path, trv_up_status_name(st), res->http_status, *code,
                    apr_time_as_msec(res->elapsed));
    }
    return st;
}
