/* The hotel domain's answer to trv_booking_list_fn (core/booking_access.h):
 * the store's own list (list_query.c, as GET /v1/hotel/bookings without a
 * sort) and each booking's list rendering, the document the API answers. */
#include "booking_list.h"
#include "bstore.h"
#include "render.h"
#include "core/json.h"

#include <string.h>

/* The list document of b: its stored rendering, or rendered now (a booking
 * time has changed since, or one without a current rendering). */
static const json_t *list_doc(apr_pool_t *p, const trv_hbooking *b)
{
    if (b->list_doc) {
        return trv_json_parse(p, b->list_doc, strlen(b->list_doc), NULL);
    }
    return trv_json_bind(p, trv_hbooking_render(p, b, TRV_HRENDER_LIST));
}

apr_status_t trv_hotel_booking_list(trv_dbc *c, apr_pool_t *p, const trv_booking_query *q,
                                    apr_array_header_t **docs, long *total)
{
    trv_hbooking_filter f;
    apr_array_header_t *page;
    int i;
    memset(&f, 0, sizeof(f));
    f.org_id = q->org_id;
    f.status = q->status;
    f.supplier = q->supplier;
    f.created_from = q->created_from;
    f.created_to = q->created_to;
    f.limit = q->limit;
    f.offset = q->offset;
    if (trv_hbstore_list(c, p, &f, &page, total) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    *docs = apr_array_make(p, page->nelts ? page->nelts : 1, sizeof(const json_t *));
    for (i = 0; i < page->nelts; i++) {
        APR_ARRAY_PUSH(*docs, const json_t *) =
            list_doc(p, APR_ARRAY_IDX(page, i, const trv_hbooking *));
    }
    return APR_SUCCESS;
}
