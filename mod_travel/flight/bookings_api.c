/* GET /v1/flight/bookings and GET /v1/flight/bookings/{id}: the booking in
 * any status, only to its organization and user (404 otherwise). Reads are
 * reads: they write nothing. A booking's renderings are stored by its
 * render job (render_job.c, queued with every change by sql/045); until
 * that has run, a read renders the booking itself and keeps nothing. What
 * time has decided shows at once (READY_FOR_COMPLETE past expires_at reads
 * as EXPIRED; the expiry job stores it), and airline-initiated changes come
 * from the scheduled order reads (sync_schedule.h), not from readers. */
#include "handlers.h"
#include "lifecycle/reads.h"
#include "lifecycle/status.h"
#include "render.h"
#include "core/json.h"
#include "core/list_page.h"
#include "state.h"
#include "booking_store.h"
#include "supplier.h"
#include "core/clock.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <limits.h>
#include <string.h>

/* The supplier filter's values: the configured suppliers. */
static const char *const *suppliers(const trv_env *env, apr_pool_t *p)
{
    return trv_flight_supplier_names(env->cfg, p);
}

static const char *text(apr_pool_t *p, const void *b, int full)
{
    return trv_frender_booking_text(p, b, full ? TRV_RENDER_FULL : TRV_RENDER_LIST);
}

/* Only to the booking's organization and user. */
static const trv_lifecycle_reads reads = {
    &trv_fbooking_list, trv_booking_statuses, suppliers, 1, "listing flight bookings",
    "reading a flight booking", &trv_freply_reader, text};

void trv_flight_list(trv_req *req, trv_resp *resp)
{
    trv_lifecycle_reads_list(req, resp, &reads, 301, 302);
}

void trv_flight_get(trv_req *req, trv_resp *resp)
{
    trv_lifecycle_reads_get(req, resp, &reads, 303, 304);
}
