/* GET /v1/flight/bookings' query. One prepared statement per combination
 * of the filters present, the sort and whether the page size is the
 * default (made on first use, kept for the
 * process), so each plan has only the conditions that apply and the index
 * for them is used; a generic plan of "(x IS NULL OR col = x)" conditions
 * cannot use one. The exact total comes from flight_bookings_total()
 * (migration 041: per-day counts), the page from the index in the order
 * asked for, and each listed booking from its stored rendering when there
 * is one for its revision. The usual (warm) page comes joined by
 * PostgreSQL as one text (trv_list_page_joined); a page with a booking to
 * render comes row by row. The statements' shape and cache, and how a
 * request reads, are the hotel list's too (core/list_page.h). */
#include "booking_store.h"
#include "core/list_page.h"

#include <stddef.h>

/* The optional filters in placeholder order; the supplier first. */
enum { F_SUPPLIER, F_REF, F_FROM, F_TO, F_N };
/* The owner condition: the list's and its kept page's. */
#define OWNERS "b.org_id = %s AND b.user_id = %s"

TRV_LIST_PAGE_STATEMENTS("trv_flight_list_", F_N, "flight_bookings", "flight_booking_docs",
                         "expires_at", "flight_list_heads", OWNERS,
                         " OR flight_booking_docs.doc IS NULL",
                         "SELECT flight_list_head_keep(%s, %s)");

/* The usual list sums a few all-time counts in plain SQL; the rest goes
 * through flight_bookings_total() (migration 041). */
const trv_list_page_query trv_fbooking_list = {
    &shape, &variants, OWNERS, 2,
    TRV_LIST_PAGE_STATUS_SQL("expires_at",
                             "(b.expires_at IS NULL OR b.expires_at > trv_now())"),
    F_N,
    {" AND b.supplier = %s", " AND b.supplier_reference = %s",
     " AND b.created_at >= %s::timestamptz", " AND b.created_at <= %s::timestamptz"},
    TRV_LIST_PAGE_COUNTS("flight_booking_totals", "c.org_id = %s AND c.user_id = %s"),
    "flight_bookings_total(%s, %s, %s::text, %s::text, %s::text, %s::timestamptz, "
    "%s::timestamptz)",
    &kept, &stored, &keep_docs, &keep_head,
    TRV_LIFECYCLE_ROW_STUB(trv_fbooking), trv_fbooking_load_many,
    &trv_fb_status_table, TRV_FB_READY, TRV_FB_EXPIRED,
    {TRV_LIST_FILTER(supplier), TRV_LIST_FILTER(supplier_reference),
     TRV_LIST_FILTER(created_from), TRV_LIST_FILTER(created_to)}};
