#include "events.h"
#include "render.h"
#include "booking_store.h"
#include "core/json.h"
#include "webhook/outbox.h"

apr_status_t trv_flight_emit(trv_dbc *c, apr_pool_t *p, trv_fbooking *b, const char *type)
{
    json_t *data;
    apr_status_t rv = trv_fbooking_load_payments(c, p, b);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    data = trv_json_bind(p, json_pack("{s:o}", "booking",
                                      trv_frender_booking(p, b, TRV_RENDER_FULL)));
    return trv_outbox_emit(c, p, b->org_id, type, data, NULL);
}
