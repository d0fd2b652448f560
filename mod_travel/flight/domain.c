/* What the flight domain brings: its routes (api.c), its job kinds with
 * their runners, the event types it emits and its suppliers (suppliers.c). */
#include "domain.h"
#include "api.h"
#include "booking_get.h"
#include "enqueue.h"
#include "events.h"
#include "jobs.h"
#include "booking_store.h"
#include "supplier.h"

static const trv_job_def jobs[] = {
    {&trv_fjob_complete, trv_fjob_complete_run},
    {&trv_fjob_settle, trv_fjob_settle_run},
    {&trv_fjob_cancel, trv_lifecycle_cancel_run, &trv_fcancel_ops},
    {&trv_fjob_refund, trv_refunds_run, &trv_fbooking_refunds},
    {&trv_fjob_expire, trv_fjob_expire_run},
    {&trv_fjob_prebook_watch, trv_fjob_prebook_watch_run},
    {&trv_fjob_sync, trv_fjob_sync_run},
    {&trv_fjob_release, trv_fjob_release_run},
    {&trv_fjob_render, trv_fjob_render_run},
    {NULL, NULL},
};

static const trv_booking_access bookings = {NULL, trv_flight_booking_get};

static const char *const event_types[] = {
    TRV_EV_CONFIRMED, TRV_EV_FAILED, TRV_EV_CANCELED, TRV_EV_CANCEL_REJECTED,
    TRV_EV_AIRLINE_CHANGE, NULL,
};

const trv_domain trv_flight_domain = {
    "flight",
    trv_flight_routes,
    jobs,
    event_types,
    trv_flight_suppliers,
    NULL,
    NULL,
    0,
    &bookings,
};
