/* The hotel domain's answer to trv_booking_list_fn (core/booking_access.h):
 * the store's own list (booking_query.c, as GET /v1/hotel/bookings without a
 * sort; or, for an operator's text, the search below) and each booking's list
 * rendering, the document the API answers. */
#include "booking_list.h"
#include "booking_store.h"
#include "render.h"
#include "core/json.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* The list document of b: its stored rendering, or rendered now (a booking
 * time has changed since, or one without a current rendering). */
static const json_t *list_doc(apr_pool_t *p, const trv_hbooking *b)
{
    if (b->list_doc) {
        return trv_json_parse(p, b->list_doc, strlen(b->list_doc), NULL);
    }
    return trv_json_bind(p, trv_hrender_booking(p, b, TRV_HRENDER_LIST));
}

/* The operator's text search (the dashboard's), which the store's list has
 * no filter for: the ids of the
 * organization's bookings whose id, reference, supplier booking id or
 * hotel confirmation code is the text, or whose contact's or a guest's name
 * or e-mail holds it (strpos: never a LIKE pattern), with the list's other
 * filters and its status as a reader sees it; newest first. */
#define HOTEL_STATUS "CASE WHEN b.status = 'READY_FOR_COMPLETE' AND b.offer_expires_at <= " \
                     "trv_now() THEN 'EXPIRED' ELSE b.status END"
static const trv_stmt search_stmt = {"trv_dash_hotel_search",
    "SELECT b.id, count(*) OVER () AS total FROM hotel_bookings b WHERE b.org_id = %s "
    "AND (%s::text IS NULL OR " HOTEL_STATUS " = %s) "
    "AND (%s::text IS NULL OR b.supplier = %s) "
    "AND (%s::timestamptz IS NULL OR b.created_at >= %s::timestamptz) "
    "AND (%s::timestamptz IS NULL OR b.created_at <= %s::timestamptz) "
    "AND (b.id = %s OR b.reference_id = %s OR b.supplier_booking_id = %s "
    "OR b.hotel_confirmation_code = %s "
    "OR strpos(lower(concat_ws(' ', b.contact->>'first_name', b.contact->>'last_name', "
    "b.contact->>'email')), lower(%s)) > 0 "
    "OR EXISTS (SELECT 1 FROM hotel_booking_guests g WHERE g.booking_id = b.id AND "
    "strpos(lower(g.first_name || ' ' || g.last_name), lower(%s)) > 0)) "
    "ORDER BY b.created_at DESC, b.id DESC LIMIT %s::int OFFSET %s::int"};

static apr_status_t search(trv_dbc *c, apr_pool_t *p, const trv_list_filter *f,
                           const char *q, apr_array_header_t **page, long *total)
{
    trv_rows *rows;
    int i;
    *total = 0;
    *page = apr_array_make(p, 8, sizeof(const trv_hbooking *));
    if (trv_db_select(c, p, &search_stmt, &rows,
                      TRV_DB_ARGS(f->org_id, f->status, f->status, f->supplier, f->supplier,
                                  f->created_from, f->created_from, f->created_to,
                                  f->created_to, q, q, q, q, q, q, apr_ltoa(p, f->limit),
                                  apr_ltoa(p, f->offset)))
        != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    for (i = 0; i < rows->n; i++) {
        trv_hbooking *b = NULL;
        if (trv_hbooking_get(c, p, f->org_id, trv_rows_get(rows, i, "id"), &b) == APR_EGENERAL) {
            return APR_EGENERAL;
        }
        if (b) {
            APR_ARRAY_PUSH(*page, const trv_hbooking *) = b;
        }
    }
    *total = rows->n ? atol(trv_rows_get(rows, 0, "total")) : 0;
    return APR_SUCCESS;
}

apr_status_t trv_hotel_booking_list(trv_dbc *c, apr_pool_t *p, const trv_booking_query *q,
                                    apr_array_header_t **docs, long *total)
{
    trv_list_filter f;
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
    if ((q->text ? search(c, p, &f, q->text, &page, total)
                 : trv_list_page_rows(&trv_hbooking_list, c, p, &f, &page, total)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    *docs = apr_array_make(p, page->nelts ? page->nelts : 1, sizeof(const json_t *));
    for (i = 0; i < page->nelts; i++) {
        APR_ARRAY_PUSH(*docs, const json_t *) =
            list_doc(p, APR_ARRAY_IDX(page, i, const trv_hbooking *));
    }
    return APR_SUCCESS;
}
