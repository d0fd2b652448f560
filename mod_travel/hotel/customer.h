/* The traveller behind a hotel request, for the vendors that ask who is
 * shopping (Expedia Rapid: Customer-Ip on every booking call,
 * Customer-Session-Id spanning the shopping session, the answer's
 * language). The API client states them in request headers:
 *
 *   x-travel-customer-ip       the traveller's IPv4 or IPv6 address; when
 *                              absent, the connection's (httpd's
 *                              useragent_ip, which mod_remoteip sets to the
 *                              proxy's client), right when the traveller's
 *                              own device calls
 *   x-travel-customer-session  1..200 printable ASCII characters, the same
 *                              from the first search to the booking
 *   Accept-Language            the traveller's languages (RFC 9110)
 *
 * Search, offers and prebook read them; prebook keeps them with the
 * booking (hotel_bookings.customer, sql/290), so book, its reads and the
 * cancellation, which may run without the traveller, send the same.
 * docs/api.md, "The traveller behind a request". */
#ifndef TRV_HOTEL_CUSTOMER_H
#define TRV_HOTEL_CUSTOMER_H

#include "supplier.h"
#include "core/api.h"
#include "core/errors.h"

#define TRV_HCUSTOMER_SESSION_MAX 200
/* The part of Accept-Language kept: enough for any real list. */
#define TRV_HCUSTOMER_LANGUAGE_MAX 200

typedef struct trv_hcustomer {
    const char *ip;        /* NULL: unknown */
    const char *session;   /* NULL: none stated */
    const char *language;  /* Accept-Language as sent (cut), NULL: none */
} trv_hcustomer;

/* The request's traveller; a malformed x-travel-customer-ip or
 * x-travel-customer-session is added to errs under its header's name. */
void trv_hcustomer_read(const trv_req *req, trv_hcustomer *out, trv_errs *errs);
/* {ip, session, language} with the known ones, as JSON text to store. */
const char *trv_hcustomer_json(apr_pool_t *p, const trv_hcustomer *c);
/* Sets ctx's customer_ip, customer_session and accept_language. */
void trv_hcustomer_apply(trv_hotel_ctx *ctx, const trv_hcustomer *c);
/* The same from the traveller a booking kept (hotel_bookings.customer;
 * NULL: none, a booking from before sql/290, or one made by the
 * auto-purchase of a watch from before sql/340). */
void trv_hcustomer_apply_kept(trv_hotel_ctx *ctx, const json_t *stored);
/* A kept traveller ({ip, session, language}; NULL: none) as the request
 * headers above, for code that calls the API's handlers with no traveller
 * of its own (a watch's auto-purchase), so that trv_hcustomer_read reads
 * it back. */
void trv_hcustomer_headers(apr_table_t *headers, const json_t *stored);

#endif
