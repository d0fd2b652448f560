/* POST /v1/hotel/bookings/{id}/cancel: cancels every remaining room. The
 * request records the attempt and answers at once (202
 * CANCEL_IN_PROGRESS with an IN_PROGRESS cancellation); the
 * hotel.booking.cancel job asks the supplier (cancel_run.c). A repeat while
 * an attempt runs reuses it (202, nothing new); after a failed attempt it
 * resumes that attempt (the same can_ id); on CANCELED it answers 200 and
 * restarts refund submissions that failed. */
#include "handlers.h"
#include "reply.h"
#include "booking_store.h"
#include "cancel_jobs.h"
#include "cancellation_store.h"
#include "render.h"
#include "core/ids.h"
#include "core/log.h"

#include <apr_strings.h>
#include <string.h>

static void answer(trv_req *req, trv_resp *resp, int status, const trv_hbooking *b)
{
    trv_ok(req, resp, status, trv_hrender_booking(req->pool, b, TRV_HRENDER_FULL), NULL);
}

void trv_hotel_cancel(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_hbooking *b, *after = NULL;
    trv_hcancel *started = NULL;
    trv_dbc *c;

    if (!(b = trv_api_booking_open(req, resp, NULL, &trv_hreply_reader, id, 1455, 1455,
                                   "reading a hotel booking to cancel", &c))) {
        return;
    }
    if (b->status == TRV_HB_CONFIRMED) {
        if (trv_db_begin(c, req->pool) != APR_SUCCESS
            || trv_hcancellation_start(c, req->pool, req->org_id, id, trv_id_new(req->pool, "can"),
                                       &started) != APR_SUCCESS
            || (started && (trv_lifecycle_cancel_enqueue(c, req->pool, &trv_hjob_cancel, id,
                                                         started->attempt, req->request_id)
                                != APR_SUCCESS
                            || trv_hbooking_get_any(c, req->pool, id, &after) != APR_SUCCESS
                            || trv_hrender_keep(c, req->pool, after) != APR_SUCCESS))
            || trv_db_commit(c) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 1456, "starting a hotel cancellation");
            return;
        }
        if (started && after) {
            trv_db_close(req->env->db, c);
            trv_env_wake(req->env);
            trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                        TRVLOGNO(1457) "hotel booking %s: cancellation %s (attempt %d) started",
                        id, started->id, started->attempt);
            answer(req, resp, 202, after);
            return;
        }
        /* A concurrent cancel moved it first: answer as it stands now. */
        if (trv_hbooking_get(c, req->pool, req->org_id, id, &b) != APR_SUCCESS || !b) {
            trv_api_db_fail(req, resp, c, 1455, "reading a hotel booking to cancel");
            return;
        }
    }
    if (b->status == TRV_HB_CANCELING) {
        trv_db_close(req->env->db, c);
        answer(req, resp, 202, b);
        return;
    }
    if (b->status == TRV_HB_CANCELED) {
        if (trv_lifecycle_cancel_refunds_restart(&trv_hcancel_ops, req, resp, c, id)) {
            answer(req, resp, 200, b);
        }
        return;
    }
    trv_db_close(req->env->db, c);
    trv_fail(req, resp, 409, "invalid_state", "Hotel booking %s is %s; only a CONFIRMED "
             "booking can be canceled", id, trv_hb_status_text(trv_hbooking_status(b)));
}
