/* GET /v1/hotel/bookings' query (booking_store.h): one prepared statement per
 * combination of the filters present, the sort and whether the page size
 * is the default, made on first use and kept for the process, so each
 * plan has only the conditions that apply and uses the index for them.
 * The exact total comes from the per-day counts (hotel_bookings_total,
 * sql/100) or, for the usual list, from the all-time counts; each listed
 * booking from its stored rendering. The usual (warm) page comes joined by
 * PostgreSQL as one text (trv_list_page_joined); a page with a booking to
 * render comes row by row. The statements' shape and cache, and how a
 * request reads, are the flight list's too (core/list_page.h). */
#include "booking_store.h"
#include "core/list_page.h"

#include <stddef.h>

/* The optional filters in placeholder order; the supplier first. */
enum { F_SUPPLIER, F_FROM, F_TO, F_N };

/* The owner condition: the list's and its kept page's. */
#define OWNERS "b.org_id = %s"

TRV_LIST_PAGE_STATEMENTS("trv_hotel_list_", F_N, "hotel_bookings", "hotel_booking_docs",
                         "offer_expires_at", "hotel_list_heads", OWNERS,
                         "", "SELECT hotel_list_head_keep(%s)");

/* The usual list sums a few all-time counts in plain SQL; the rest goes
 * through hotel_bookings_total() (sql/100). */
const trv_list_page_query trv_hbooking_list = {
    &shape, &variants, OWNERS, 1,
    TRV_LIST_PAGE_STATUS_SQL("offer_expires_at", "b.offer_expires_at > trv_now()"),
    F_N,
    {" AND b.supplier = %s", " AND b.created_at >= %s::timestamptz",
     " AND b.created_at <= %s::timestamptz"},
    TRV_LIST_PAGE_COUNTS("hotel_booking_totals", "c.org_id = %s"),
    "hotel_bookings_total(%s, %s::text, %s::text, %s::timestamptz, %s::timestamptz)",
    &kept, &stored, &keep_docs, &keep_head,
    TRV_LIFECYCLE_ROW_STUB(trv_hbooking), trv_hbooking_load_many,
    &trv_hb_status_table, TRV_HB_READY, TRV_HB_EXPIRED,
    {TRV_LIST_FILTER(supplier), TRV_LIST_FILTER(created_from),
     TRV_LIST_FILTER(created_to)}};
