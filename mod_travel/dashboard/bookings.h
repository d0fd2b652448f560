/* The bookings the dashboard lists: the organization's, every user's.
 * Each kind of booking is a renderer of lists.h's table, from its own
 * domain's store. */
#ifndef TRV_DASHBOARD_BOOKINGS_H
#define TRV_DASHBOARD_BOOKINGS_H

#include "lists.h"

/* The booking statuses a reader sees (EXPIRED included). */
extern const char *const trv_dash_booking_statuses[];

/* The organization's flight bookings (bookings.c). */
apr_status_t trv_dash_flight_bookings(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                      const trv_dash_filter *f, long *total);
/* The organization's hotel bookings (hotel_bookings.c). */
apr_status_t trv_dash_hotel_bookings(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                     const trv_dash_filter *f, long *total);

#endif
