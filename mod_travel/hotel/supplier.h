/* The hotel supplier interface: what every hotel supplier adapter
 * implements (one file each: suppliers/supplier_a.c, suppliers/supplier_b.c, suppliers/supplier_c.c) and
 * the rows of the hotel domain's supplier table (suppliers.c). Adapters
 * translate one supplier's wire API (over core/upstream) into the neutral
 * shapes below; amounts are integer minor units of the requested currency.
 *
 * Results are TRV_UP_OK or the trv_up_status that says what happened, with
 * err filled for every other result (see flight/supplier.h). Every
 * adapter call is made holding no database connection. */
#ifndef TRV_HOTEL_SUPPLIER_H
#define TRV_HOTEL_SUPPLIER_H

#include "core/money.h"
#include "core/registry.h"
#include "core/supplier_call.h"
#include "core/upstream.h"

#include <apr_tables.h>
#include <jansson.h>

#define TRV_HOTEL_MAX_ROOMS 8
#define TRV_HOTEL_MAX_CHILDREN 4

/* A hotel adapter's call (core/supplier_call.h; up is its
 * TravelHotelSupplier line) and what only hotel adapters read. */
typedef struct trv_hotel_ctx {
    TRV_SUPPLIER_CALL;
    /* 0, or when the caller stops waiting (a search's deadline): each call
     * then waits at most until it, and one started after it is a timeout. */
    apr_time_t deadline;
    /* The booking's contact email, when the call is for a booking: Rapid
     * finds an itinerary by reference only together with it. */
    const char *contact_email;
    /* The traveller behind the call, for a vendor that asks for one
     * (Rapid's Customer-Ip, Customer-Session-Id and language): the IP
     * address, the shopping session's id and the Accept-Language the
     * client stated (hotel/customer.h). NULL when unknown: the adapter
     * then says so in its own way. */
    const char *customer_ip, *customer_session, *accept_language;
} trv_hotel_ctx;

typedef trv_supplier_err trv_hotel_err;

/* One room's guests. */
typedef struct trv_hotel_occ {
    int adults;
    int n_children;
    int ages[TRV_HOTEL_MAX_CHILDREN];
} trv_hotel_occ;

/* A stay as validated by the caller. */
typedef struct trv_hotel_stay {
    const char *check_in, *check_out;    /* YYYY-MM-DD */
    int nights;
    int n_rooms;
    trv_hotel_occ rooms[TRV_HOTEL_MAX_ROOMS];
    char currency[4];
    const char *nationality, *residence; /* ISO 3166 alpha-2 */
} trv_hotel_stay;

/* Where to look: a city, or a point and a radius. */
typedef struct trv_hotel_area {
    const char *city, *country_code;     /* set for a city */
    int by_point;
    double latitude, longitude;
    int radius_m;
} trv_hotel_area;

/* A hotel a supplier sells in the area, with its cheapest price for the
 * stay (all rooms, all nights) when it has a rate. */
typedef struct trv_hotel_found {
    const char *supplier;                /* the row's name */
    const char *sid;                     /* the supplier's hotel id */
    const char *name, *city, *country_code, *postal_code;
    const char *giata;                   /* a shared content code, or NULL */
    double latitude, longitude;
    int priced;
    apr_int64_t total_minor;             /* in stay->currency, when priced */
} trv_hotel_found;

/* A priced offer of one hotel: what the gateway seals into the
 * offer_reference (ref, total, expiry) and doc, the offer as the API shows
 * it minus what the gateway adds (offer_reference, hotel_id, supplier,
 * supplier_hotel_id, expires_at): {room_type {code, name}, board,
 * board_name, total, cancellation_policy {refundable, penalties [{from,
 * amount}]}, promotions [{name, amount, room_positions}], rooms [{position,
 * name, board, board_name, adults, children, total|null,
 * due_at_property|null}]}. */
typedef struct trv_hotel_offer {
    const char *sid;                     /* the supplier's hotel id */
    const char *ref;                     /* the supplier's reference of the offer */
    apr_int64_t total_minor;
    apr_time_t expires_at;
    json_t *doc;                         /* pool-bound */
    /* An adapter's own note while the offer is priced but doc not built
     * yet (Hotelbeds builds docs only for the offers trim keeps). */
    const void *unbuilt;
} trv_hotel_offer;

/* ---- prebook, book, retrieve ---- */

/* A guest as prebook binds them. */
typedef struct trv_hotel_guest {
    const char *first_name, *last_name;
    int is_lead;
    int child;                           /* type CHILD */
} trv_hotel_guest;

/* Who stays: the contact (the booking's holder) and each room's guests in
 * the offer's room order, the room's lead first. */
typedef struct trv_hotel_party {
    const char *first_name, *last_name, *email, *phone;
    int n_rooms;
    int n_guests[TRV_HOTEL_MAX_ROOMS];
    const trv_hotel_guest *guests[TRV_HOTEL_MAX_ROOMS];
} trv_hotel_party;

/* What a supplier's prebook (its re-pricing of an offer) answered. */
typedef struct trv_hotel_prebooked {
    const char *prebook_id;              /* what book takes (A: prebookId, B: the new rateKey,
                                          * C: the book link) */
    apr_int64_t total_minor;             /* in the stay's currency */
    apr_time_t expires_at;               /* bookable until then */
    int price_changed;                   /* differs from the offer's total */
    const char *hotel_name, *hotel_address; /* when the answer names them, else NULL */
    json_t *doc;                         /* the terms, as trv_hotel_offer's doc */
} trv_hotel_prebooked;

/* A booking as the supplier holds it: book's and retrieve's answer. */
typedef struct trv_hotel_booked {
    const char *status;                  /* CONFIRMED, PENDING (confirmation to come),
                                          * CANCELED */
    const char *booking_id;              /* the supplier's */
    const char *client_reference;
    const char *hotel_confirmation_code; /* or NULL (pending) */
    const char *hotel_remarks;           /* or NULL */
    apr_int64_t total_minor;             /* -1 when not given */
    /* [{position, supplier_reference_number, hotel_confirmation_code,
     * cancellation_policy}], rooms in order; policy in the neutral shape
     * {refundable, penalties [{from, amount}]} (amounts of that room). */
    json_t *rooms;
    /* The whole booking's policy in the same shape (penalties summed over
     * the rooms at each instant), or NULL when the supplier gives none. */
    json_t *cancellation_policy;
    /* {collected_by, amount (Money), last4} when the supplier charged the
     * traveller itself, else NULL. */
    json_t *payment;
} trv_hotel_booked;

/* What book sends. */
typedef struct trv_hotel_book_req {
    const trv_hotel_stay *stay;
    const char *sid;                     /* the supplier's hotel id */
    const char *prebook_id;              /* from trv_hotel_prebooked */
    apr_int64_t total_minor;             /* the price agreed at prebook */
    /* Unique per booking (the service's booking id) and carrying the
     * caller's reference_id: how a booking whose answer was lost is found
     * (retrieve) and never bought twice. At most 64 characters. */
    const char *client_reference;
    const trv_hotel_party *party;
    /* The saved instrument a merchant-of-record supplier charges: its card
     * reaches the supplier through the payment provider, never through us. */
    const char *payment_instrument_id;
    const char *idempotency_key;         /* sent as Idempotency-Key */
} trv_hotel_book_req;

/* A supplier's answer to a cancellation: its fee and what it releases
 * (the booking's price less the fee), integer minor units. */
typedef struct trv_hotel_canceled {
    const char *currency;
    apr_int64_t fee_minor;
    apr_int64_t refund_minor;
} trv_hotel_canceled;

/* A supplier's cancellation preview at checked_at. */
typedef struct trv_hotel_preview {
    const char *currency;
    apr_int64_t fee_minor;
    apr_int64_t refund_minor;
    int cancelable;                      /* 0: the supplier would refuse now */
    int restricted;                      /* a stored restriction forbids it */
    apr_time_t checked_at;
    apr_time_t deadline;                 /* free until then (earliest room); 0: none */
} trv_hotel_preview;

typedef struct trv_hotel_supplier {
    const char *name;                    /* its protocol (a label for logs) */
    /* The hotels the supplier sells in the area with their cheapest price
     * for the stay: *found is an array of trv_hotel_found. */
    trv_up_status (*search)(trv_hotel_ctx *ctx, const trv_hotel_area *area,
                            const trv_hotel_stay *stay, apr_array_header_t **found,
                            trv_hotel_err *err);
    /* Up to max_per_hotel offers (cheapest first) of each hotel (the
     * supplier's ids, n of them) for the stay: *offers is an array of
     * trv_hotel_offer, hotels it does not sell left out. */
    trv_up_status (*offers)(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                            const char *const *sids, int n, int max_per_hotel,
                            apr_array_header_t **offers, trv_hotel_err *err);
    /* Re-prices an offer (ref: trv_hotel_offer.ref) for booking. NULL: the
     * supplier cannot book through this gateway. */
    trv_up_status (*prebook)(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                             const char *ref, trv_hotel_prebooked *out, trv_hotel_err *err);
    /* Books what prebook answered. TRV_UP_REJECTED: the supplier refused
     * (err->code book_failed when the hotel refused the booking,
     * price_changed when the price moved since prebook); TRV_UP_TIMEOUT:
     * the outcome is unknown (read it with retrieve, never book again). */
    trv_up_status (*book)(trv_hotel_ctx *ctx, const trv_hotel_book_req *rq,
                          trv_hotel_booked *out, trv_hotel_err *err);
    /* Reads a booking by the supplier's id, or when booking_id is NULL by
     * the client reference book sent. TRV_UP_NOT_FOUND: no such booking. */
    trv_up_status (*retrieve)(trv_hotel_ctx *ctx, const char *booking_id,
                              const char *client_reference, trv_hotel_booked *out,
                              trv_hotel_err *err);

    /* ---- cancellation (hotel/cancel*.c) ---- */
    /* Cancels every room of the supplier's booking ref (its booking,
     * reference or itinerary id). A repeated cancel answers the same
     * outcome, so a cancel whose answer was lost is simply sent again: a
     * vendor that refuses a repeat (it cancels confirmed bookings only) is
     * read back (trv_hwire_cancel_refused). TRV_UP_REJECTED with err->code
     * the supplier's refusal (cancellation_failed, cancellation_restricted,
     * booking_pending). */
    trv_up_status (*cancel)(trv_hotel_ctx *ctx, const char *ref,
                            struct trv_hotel_canceled *out, trv_hotel_err *err);
    /* What cancelling now would cost, from the supplier's own preview; NULL
     * for a supplier without previews (capability "cancellation preview"). */
    trv_up_status (*cancel_preview)(trv_hotel_ctx *ctx, const char *ref,
                                    struct trv_hotel_preview *out, trv_hotel_err *err);
    /* One cheap authenticated call that changes nothing (travelctl
     * supplier check): *res is the raw outcome, HTTP status included, so
     * a wrong key, a wrong URL and a timeout can be told apart. NULL for a
     * protocol without one. */
    trv_up_status (*check)(trv_hotel_ctx *ctx, trv_up_result *res);
} trv_hotel_supplier;

extern const trv_hotel_supplier trv_hotel_supplier_a;
extern const trv_hotel_supplier trv_hotel_supplier_b;
extern const trv_hotel_supplier trv_hotel_supplier_c;
extern const trv_hotel_supplier trv_hotel_supplier_duffel_stays;

/* The hotel domain's supplier protocols (ends at a NULL name). */
extern const trv_supplier trv_hotel_suppliers[];

/* The bound row of a configured hotel supplier's wire name
 * (TravelHotelSupplier), or NULL. */
const trv_supplier *trv_hotel_supplier_row(const trv_env *env, const char *name);
/* Every configured hotel supplier's bound row, in line order, ending at a
 * NULL name. */
const trv_supplier *trv_hotel_supplier_rows(const trv_env *env);

/* The adapter of a bound row and a context for it when the supplier is
 * configured (TravelHotelSupplier), else NULL. */
const trv_hotel_supplier *trv_hotel_supplier_for(trv_env *env, apr_pool_t *p,
                                                 const char *request_id,
                                                 const trv_supplier *row, trv_hotel_ctx *ctx);

/* ---- what the adapters share (suppliers/wire.c) ---- */

/* An adapter's call, auth its headers carrying the key (NULL: the bearer
 * key), made by trv_supplier_call_send (core/supplier_call.h) with the
 * hotel domain's part: counted and logged as "hotel <line>" (never a key)
 * with err filled for any outcome but OK, and within ctx->deadline. */
trv_up_status trv_hwire_call(trv_hotel_ctx *ctx, const char *method, const char *path,
                             const apr_table_t *auth, const json_t *body,
                             trv_up_result *res, trv_hotel_err *err);
/* The same with the answer read by core/jval.h into res->doc (res->body
 * NULL): for the search path's large answers, of which an adapter reads a
 * few fields. */
trv_up_status trv_hwire_read(trv_hotel_ctx *ctx, const char *method, const char *path,
                             const apr_table_t *auth, const json_t *body,
                             trv_up_result *res, trv_hotel_err *err);
/* trv_hwire_read for a search or an offers request, which only reads: it
 * goes out on a pooled keep-alive connection even as a POST
 * (trv_upstream.repeatable), where an unkeyed write gets a new one; a new
 * connection per search cost the supplier about a millisecond each
 * (docs/performance.md). */
trv_up_status trv_hwire_search(trv_hotel_ctx *ctx, const char *method, const char *path,
                               const apr_table_t *auth, const json_t *body,
                               trv_up_result *res, trv_hotel_err *err);
/* A GET of the supplier's content (the hotels of an area: what does not
 * change with the stay), answered from this process's cache while fresh
 * (TravelHotelContentCache). The body is shared with other requests: read
 * it, never change it. */
trv_up_status trv_hwire_call_content(trv_hotel_ctx *ctx, const char *path,
                                     const apr_table_t *auth, trv_up_result *res,
                                     trv_hotel_err *err);
/* The same for calls that change something: with the Idempotency-Key when
 * the protocol row of self (the calling adapter) says its vendor honours
 * one (TRV_SUP_IDEMPOTENCY_KEY), else without (and then never resent by
 * the HTTP client). */
trv_up_status trv_hwire_call_idem(trv_hotel_ctx *ctx, const trv_hotel_supplier *self,
                                  const char *method, const char *path,
                                  const apr_table_t *auth, const json_t *body,
                                  const char *idempotency_key, trv_up_result *res,
                                  trv_hotel_err *err);
/* The same sent through the payment provider's vault and forward
 * (payment/forward.h): the body leaves the card's fields empty and the
 * provider fills them from instrument_id. A provider that refused the
 * instrument is TRV_UP_REJECTED with err->code payment_instrument_invalid.
 * *card_last4 (may be NULL): the forwarded card's last 4 digits as the
 * provider records them, or NULL. */
trv_up_status trv_hwire_call_forwarded(trv_hotel_ctx *ctx, const trv_hotel_supplier *self,
                                       const char *method,
                                       const char *path, const apr_table_t *auth,
                                       const json_t *body, const char *idempotency_key,
                                       const char *instrument_id, const char **card_last4,
                                       trv_up_result *res, trv_hotel_err *err);
/* An answer without what the adapter needs: logged, err filled. */
trv_up_status trv_hwire_bad(trv_hotel_ctx *ctx, trv_hotel_err *err, const char *what);

/* Reads a cancelled booking's terms from a body: TRV_UP_OK with *out
 * filled, TRV_UP_REJECTED when the body shows the booking not cancelled
 * (err untouched), else trv_hwire_bad. */
typedef trv_up_status (*trv_hwire_cancelled_fn)(trv_hotel_ctx *ctx, const json_t *body,
                                                trv_hotel_canceled *out, trv_hotel_err *err);
/* A cancel the supplier refused (err its refusal). The vendors cancel
 * only a confirmed booking, so a cancel whose first answer was lost is
 * refused when sent again: the booking is read (GET read_path) and, when
 * cancelled_of finds it cancelled, that cancellation is the answer
 * (TRV_UP_OK). Not cancelled: the refusal stands. A read that fails is
 * "try again later" (TRV_UP_UNAVAILABLE for a refused read), never the
 * cancel's refusal. */
trv_up_status trv_hwire_cancel_refused(trv_hotel_ctx *ctx, const char *read_path,
                                       const apr_table_t *auth, trv_hwire_cancelled_fn cancelled_of,
                                       trv_hotel_canceled *out, trv_hotel_err *err);
/* A number as JSON text for a query string ("51.5074"). */
const char *trv_hwire_num(apr_pool_t *p, double v);

/* How long the sandbox-like suppliers keep a priced rate (30 minutes),
 * less a margin for the time the answer took to arrive. */
#define TRV_HOTEL_OFFER_TTL apr_time_from_sec(29 * 60)

/* Money {amount, currency} (a new reference). */
json_t *trv_hwire_money(apr_int64_t minor, const char *currency);

/* The offer documents of trv_hotel_offer, built by one piece of code for
 * every adapter, member by member: no format read, and no UTF-8 check of
 * keys or strings, which are the supplier's (read by core/jval.h or
 * Jansson, which checked them) or the adapter's own. A NULL string is
 * null. */
/* Appends a penalty {from, amount: money of minor in currency} to
 * policy's penalties: from an instant trv_time_format wrote or a string
 * already held by a JSON value. */
void trv_hwire_penalty_put(json_t *policy, const char *from, apr_int64_t minor,
                           const char *currency);
/* {refundable, penalties: []}. */
json_t *trv_hwire_policy_new(int refundable);
/* A room's children's ages, [age, ...]. */
json_t *trv_hwire_ages(const trv_hotel_occ *occ);
/* One room: {position, name, board, board_name, adults, children, total,
 * [minimum_selling_price], due_at_property, [cancellation_policy]}. The
 * json_t members are taken (NULL total or due_at_property: null; NULL
 * minimum_selling_price: left out), but cancellation_policy is shared (a
 * reference is taken; NULL: left out, json_null() for null). */
typedef struct trv_hwire_room {
    int position, adults;
    const char *name, *board, *board_name;
    json_t *children, *total, *minimum_selling_price, *due_at_property;
    json_t *cancellation_policy;
} trv_hwire_room;
json_t *trv_hwire_room_doc(const trv_hwire_room *r);
/* An offer: {room_type {code, name}, board, board_name, total,
 * cancellation_policy, promotions, rooms}; total is taken, the rest shared
 * (promotions NULL: []). */
json_t *trv_hwire_offer_doc(const char *code, const char *name, const char *board,
                            const char *board_name, json_t *total, json_t *policy,
                            json_t *promotions, json_t *rooms);
/* RO / BB / HB / AI (any case) -> ROOM_ONLY, BED_AND_BREAKFAST, HALF_BOARD,
 * ALL_INCLUSIVE; anything else is passed on upper-cased. */
const char *trv_hwire_board(apr_pool_t *p, const char *code);
/* Adds a penalty {from, amount} to policy's penalties from a supplier's
 * instant (RFC 3339) and decimal amount; 0 on success. */
int trv_hwire_penalty_add(apr_pool_t *p, json_t *policy, const char *from,
                          const json_t *amount, const char *currency);
/* The same with the amount already in minor units of currency. */
int trv_hwire_penalty_add_minor(apr_pool_t *p, json_t *policy, const char *from,
                                apr_int64_t minor, const char *currency);
/* Adds a promotion's amount (a positive discount) for the room at
 * position to promotions, merging with an entry of the same name; -1
 * (nothing added) when the merged amount would leave the money range. */
int trv_hwire_promo_add(json_t *promotions, const char *name, apr_int64_t minor,
                        const char *currency, int position);
/* *acc += minor when the sum stays within the money range (amounts a
 * supplier sends each are, their sums need not be); else -1, *acc kept. */
int trv_hwire_sum(apr_int64_t *acc, apr_int64_t minor);
/* A booking-level policy from the rooms' policies ({refundable,
 * penalties}): refundable when every room is, each instant's penalty the
 * rooms' penalties in force then, summed. NULL when a room has none, or
 * when a sum would leave the money range. */
json_t *trv_hwire_policy_sum(apr_pool_t *p, const json_t *rooms, const char *currency);
/* Sorts offers (trv_hotel_offer) by hotel, then total; keeps at most max
 * per hotel. */
void trv_hwire_offers_trim(apr_array_header_t *offers, int max);

#endif
