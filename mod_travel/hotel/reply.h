/* What the hotel booking endpoints (prebook.c, book.c, bookings_api.c)
 * share: database steps that answer the request when they fail, the
 * booking answer, the supplier and payment contexts. */
#ifndef TRV_HOTEL_REPLY_H
#define TRV_HOTEL_REPLY_H

#include "booking.h"
#include "supplier.h"
#include "core/api.h"
#include "core/db.h"
#include "payment/provider.h"

/* The booking as the API shows it. */
void trv_hreply_booking(trv_req *req, trv_resp *resp, int status, const trv_hbooking *b,
                        json_t *meta);
void trv_hreply_no_booking(trv_req *req, trv_resp *resp, const char *id);
/* The request's booking (its organization's) for an endpoint of one
 * booking (trv_api_booking_read). */
extern const trv_api_booking_reader trv_hreply_reader;

/* The supplier row of this name and its adapter when configured, else
 * NULL. */
const trv_hotel_supplier *trv_hreply_supplier(trv_env *env, apr_pool_t *p,
                                              const char *request_id, const char *name,
                                              const trv_supplier **row, trv_hotel_ctx *ctx);
/* The booking's total in minor units; 0 when unreadable. */
int trv_hreply_total(const trv_hbooking *b, trv_money *m);

#endif
