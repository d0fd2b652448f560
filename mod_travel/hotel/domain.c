/* What the hotel domain brings: its routes (api.c), its job kinds with
 * their runners (enqueue.h, cancel_jobs.h), the booking list the dashboard
 * reads (booking_list.c), its supplier rows (suppliers.c) and the event
 * types its webhook subscriptions (/v1/hotel/webhook-subscriptions, served
 * by the webhook domain for every family that emits events) accept. */
#include "domain.h"
#include "api.h"
#include "booking_list.h"
#include "enqueue.h"
#include "cancel_jobs.h"
#include "cancellation_store.h"
#include "events.h"
#include "intents.h"
#include "supplier.h"

static const trv_job_def jobs[] = {
    {&trv_hjob_complete, trv_hjob_complete_run},
    {&trv_hjob_expire, trv_hjob_expire_run},
    {&trv_hjob_cancel, trv_lifecycle_cancel_run, &trv_hcancel_ops},
    {&trv_hjob_refund, trv_refunds_run, &trv_hcancellation_refunds},
    {&trv_hjob_release, trv_hjob_release_run},
    {NULL, NULL},
};

static const trv_booking_access bookings = {trv_hotel_booking_list, NULL};

static const char *const event_types[] = {
    TRV_HEV_CONFIRMED, TRV_HEV_CANCELED, TRV_HEV_CANCELLATION_FAILED, NULL,
};

const trv_domain trv_hotel_domain = {
    "hotel",
    trv_hotel_routes,
    jobs,
    event_types,
    trv_hotel_suppliers,
    NULL,
    NULL,
    0,
    &bookings,
};
