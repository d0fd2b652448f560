/* The flight endpoints' handlers (their routes are in api.c) and the small
 * helpers they share. */
#ifndef TRV_FLIGHT_HANDLERS_H
#define TRV_FLIGHT_HANDLERS_H

#include "booking.h"
#include "core/api.h"
#include "core/upstream.h"

/* The endpoints, each a trv_handler_fn (core/api.h), by the file that
 * answers them. */
trv_handler_fn trv_flight_offers, trv_flight_bags;      /* offers.c */
trv_handler_fn trv_flight_prebook;                      /* prebook.c */
trv_handler_fn trv_flight_book;                         /* book_api.c */
trv_handler_fn trv_flight_list, trv_flight_get;         /* bookings_api.c */
trv_handler_fn trv_flight_quote;                        /* quote.c */
trv_handler_fn trv_flight_cancel;                       /* cancel.c */
trv_handler_fn trv_flight_airlines, trv_flight_airline; /* airlines.c */

/* Answers an upstream that failed: 502 supplier_error, 504 supplier_timeout. */
void trv_freply_upstream_fail(trv_req *req, trv_resp *resp, trv_up_status st,
                              const char *who, const char *message);
/* 200/201/202 with the booking as the API shows it. */
void trv_freply_booking(trv_req *req, trv_resp *resp, int status, const trv_fbooking *b,
                        json_t *meta);
/* 404 not_found for a booking id. */
void trv_freply_no_booking(trv_req *req, trv_resp *resp, const char *id);
/* The request's booking (its organization's and user's) for an endpoint
 * of one booking (trv_api_booking_read). */
extern const trv_api_booking_reader trv_freply_reader;

#endif
