/* GET /v1/hotel/bookings and GET /v1/hotel/bookings/{id}: the
 * organization's hotel bookings in any status (another organization's is
 * a 404). Reads write nothing: every change to a booking stores its
 * renderings in its own transaction (render.h), so a read is one query
 * from stored text; a booking without a current rendering (time made it
 * EXPIRED, or a change that kept none) is rendered for the answer alone. */
#include "handlers.h"
#include "lifecycle/reads.h"
#include "lifecycle/status.h"
#include "reply.h"
#include "booking_store.h"
#include "render.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/list_page.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <limits.h>
#include <string.h>

/* The configured suppliers' wire names, NULL-terminated. */
static const char *const *supplier_names(const trv_env *env, apr_pool_t *p)
{
    const trv_supplier *rows = trv_hotel_supplier_rows(env);
    const char **names;
    int n = 0, i;
    while (rows[n].name) {
        n++;
    }
    names = apr_pcalloc(p, sizeof(char *) * (n + 1));
    for (i = 0; i < n; i++) {
        names[i] = rows[i].name;
    }
    return names;
}

static const char *text(apr_pool_t *p, const void *b, int full)
{
    return trv_json_dump(p, trv_json_bind(p, trv_hrender_booking(p, b, full ? TRV_HRENDER_FULL
                                                                          : TRV_HRENDER_LIST)));
}

/* The organization's: another organization's booking is a 404. */
static const trv_lifecycle_reads reads = {
    &trv_hbooking_list, trv_booking_statuses, supplier_names, 0, "listing hotel bookings",
    "reading a hotel booking", &trv_hreply_reader, text};

void trv_hotel_bookings(trv_req *req, trv_resp *resp)
{
    trv_lifecycle_reads_list(req, resp, &reads, 1445, 1445);
}

void trv_hotel_booking(trv_req *req, trv_resp *resp)
{
    trv_lifecycle_reads_get(req, resp, &reads, 1446, 1446);
}
