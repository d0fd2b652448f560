/* The bookings the dashboard lists: the organization's latest, every
 * user's. Each kind of booking is one entry of trv_dash_booking_lists. */
#ifndef TRV_DASHBOARD_BOOKINGS_H
#define TRV_DASHBOARD_BOOKINGS_H

#include "context.h"
#include "html.h"

#define TRV_DASH_BOOKINGS_SHOWN 50

/* What a list shows: every field checked by lists.c before it gets here
 * (NULL: no filter). */
typedef struct trv_dash_filter {
    const char *q;        /* search text: the kinds that can, say which fields */
    const char *status;   /* as a reader sees it (EXPIRED included) */
    const char *supplier;
    const char *from, *to; /* YYYY-MM-DD, inclusive, UTC */
    long offset, limit;
} trv_dash_filter;

typedef struct trv_dash_booking_list {
    const char *id;      /* the section's HTML id: "flight-bookings" */
    const char *title;   /* "Flight bookings" */
    /* What its search box searches; NULL: it has none. */
    const char *searches;
    /* Writes the table of the bookings f selects, *total every match;
     * APR_EGENERAL when the database failed. */
    apr_status_t (*render)(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                           const trv_dash_filter *f, long *total);
} trv_dash_booking_list;

/* The organization's hotel bookings (hotel_bookings.c). */
apr_status_t trv_dash_hotel_bookings(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                     const trv_dash_filter *f, long *total);

/* Ends at a NULL id. */
extern const trv_dash_booking_list trv_dash_booking_lists[];

#endif
