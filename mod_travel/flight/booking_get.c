/* The flight domain's answer to trv_booking_get_fn (core/booking_access.h):
 * any user's booking of the organization (the API shows a user's own),
 * read with its payments and rendered whole, as GET
 * /v1/flight/bookings/{id} answers it. */
#include "booking_get.h"
#include "render.h"
#include "booking_store.h"
#include "core/json.h"

#include <string.h>

apr_status_t trv_flight_booking_get(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                    const char *id, const json_t **doc)
{
    trv_fbooking *b = NULL;
    apr_status_t rv = trv_fbooking_get_any(c, p, id, &b);
    if (rv == APR_SUCCESS && b && b->org_id && strcmp(b->org_id, org_id) == 0) {
        *doc = trv_json_bind(p, trv_frender_booking(p, b, TRV_RENDER_FULL));
        return APR_SUCCESS;
    }
    return rv == APR_EGENERAL ? APR_EGENERAL : APR_NOTFOUND;
}
