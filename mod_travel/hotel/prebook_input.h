/* The hotel prebook request: its x-idempotency-key, its body, and the
 * offer reference it names, opened (seal.h) back into what offers sealed:
 * the supplier, its hotel and offer reference, the stay, the total and the
 * expiry. Nothing here asks anyone or stores anything. */
#ifndef TRV_HOTEL_PREBOOK_INPUT_H
#define TRV_HOTEL_PREBOOK_INPUT_H

#include "supplier.h"
#include "core/errors.h"

#define TRV_HOTEL_MAX_GUESTS (4 + TRV_HOTEL_MAX_CHILDREN)

typedef struct trv_hotel_sealed {
    const char *supplier, *sid;
    const char *hotel_id;          /* NULL: no search has seen the hotel */
    trv_hotel_stay stay;
    apr_int64_t total_minor;
    apr_time_t expires_at;
    const char *ref;               /* the supplier's own reference of the offer */
} trv_hotel_sealed;

typedef struct trv_hotel_prebook_in {
    const char *offer_reference, *reference_id;
    int use_payment_sdk;
    const char *first_name, *last_name, *email, *phone;   /* contact */
    int n_rooms;
    int n_guests[TRV_HOTEL_MAX_ROOMS];
    const trv_hotel_guest *guests[TRV_HOTEL_MAX_ROOMS];
} trv_hotel_prebook_in;

/* APR_SUCCESS, or APR_EINVAL for a reference that is malformed, edited,
 * another organization's or not an offer's. */
apr_status_t trv_hotel_offer_open(apr_pool_t *p, const unsigned char *key, const char *org_id,
                                  const char *text, trv_hotel_sealed *out);

/* Reads the body; every problem goes to errs. */
void trv_hotel_prebook_read(apr_pool_t *p, const json_t *body, trv_hotel_prebook_in *in,
                            trv_errs *errs);

/* The rooms and guests against the stay the offer was priced for. */
void trv_hotel_prebook_match(const trv_hotel_prebook_in *in, const trv_hotel_stay *stay,
                             trv_errs *errs);

/* The rooms of a prebook (rooms: [{guests: [...]}]) read into in's rooms
 * and guests, every problem named under `field` ("rooms", or
 * "auto_purchase.rooms" for a watch's mandate, which prebooks them later):
 * 1 to TRV_HOTEL_MAX_ROOMS rooms, each with exactly one lead, an ADULT. */
void trv_hotel_rooms_read(apr_pool_t *p, const json_t *rooms, const char *field,
                          trv_hotel_prebook_in *in, trv_errs *errs);
/* Those rooms against the stay's occupancy: as many rooms, and no room
 * with more adults or children than it holds. */
void trv_hotel_rooms_match(const trv_hotel_prebook_in *in, const trv_hotel_stay *stay,
                           const char *field, trv_errs *errs);

#endif
