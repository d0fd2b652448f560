/* The bookings the dashboard lists: the organization's latest, every
 * user's. Each kind of booking is one entry of trv_dash_booking_lists. */
#ifndef TRV_DASHBOARD_BOOKINGS_H
#define TRV_DASHBOARD_BOOKINGS_H

#include "context.h"
#include "html.h"

#define TRV_DASH_BOOKINGS_SHOWN 50

typedef struct trv_dash_booking_list {
    const char *id;      /* the section's HTML id: "flight-bookings" */
    const char *title;   /* "Flight bookings" */
    /* Writes the section's table; APR_EGENERAL when the database failed. */
    apr_status_t (*render)(const trv_dash_ctx *x, trv_dbc *c, trv_html *h);
} trv_dash_booking_list;

/* The organization's hotel bookings (hotel_bookings.c). */
apr_status_t trv_dash_hotel_bookings(const trv_dash_ctx *x, trv_dbc *c, trv_html *h);

/* Ends at a NULL id. */
extern const trv_dash_booking_list trv_dash_booking_lists[];

#endif
