#include "events.h"
#include "render.h"
#include "core/json.h"
#include "webhook/outbox.h"

apr_status_t trv_hotel_emit(trv_dbc *c, apr_pool_t *p, const trv_hbooking *b,
                            const char *type)
{
    json_t *data = trv_json_bind(p, json_pack("{s:o}", "booking",
                                              trv_hrender_booking(p, b, TRV_HRENDER_FULL)));
    return trv_outbox_emit(c, p, b->org_id, type, data, NULL);
}
