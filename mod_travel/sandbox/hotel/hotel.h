/* What the three sandbox hotel suppliers share: the catalogue and rates
 * (catalog.h, rates.h), the test-mode triggers of a booking, the price
 * control's factors, and the bookings they keep in sandbox.hotel_bookings.
 *
 * A booking is stored as a neutral document (sbx_hbooking_doc) that each
 * supplier renders in its own wire format: hotel, stay, currency, and per
 * room its occupancy, guests, prices (integer minor units), promotion and
 * cancellation policy. */
#ifndef SBX_HOTEL_H
#define SBX_HOTEL_H

#include "rates.h"
#include "sandbox/sbx_api.h"

#define SBX_HOTELS(req) (SBX(req)->hotels)

/* Test-mode triggers of a booking. */
typedef struct sbx_htrigger {
    int failbook;      /* a guest named Failbook: the supplier refuses */
    int async;         /* Async: confirmed ~3 s later (pending first) */
    int restricted;    /* Restricted: SUPPLIER_C stores a cancellation restriction */
    int tightened;     /* Tightened: book makes the rooms non-refundable (sbx_hdoc_tighten) */
    int cancel_fails;  /* client reference containing sandbox-cancel-fails */
    int unknown;       /* client reference containing sandbox-unknown: book hangs */
} sbx_htrigger;

/* Adds the trigger of a guest's last name (case-insensitive). */
void sbx_htrigger_guest(sbx_htrigger *t, const char *last_name);
/* Adds the triggers of a client reference (they may be part of it, so a
 * caller can keep its references unique). */
void sbx_htrigger_reference(sbx_htrigger *t, const char *client_reference);

/* 1 when the hotel API's catalogue is there; else answers 503. */
int sbx_need_hotels(trv_req *req, trv_resp *resp);

/* The price factors of supplier s (supplier hotel id -> permille) for
 * this call: 0, or -1 after answering 503. */
int sbx_hfactors(trv_req *req, trv_resp *resp, int s, apr_hash_t **out);
int sbx_hfactor_of(apr_hash_t *f, const char *sid);

/* The control API (POST / DELETE /sandbox/hotel-prices) is
 * sbx_hotel_control_routes, declared in sandbox.h with the APIs' routes. */

/* ---- bookings ---- */

/* The neutral document of a booking made from q priced as prices, with
 * the guests of each room (json array per room of {first_name,
 * last_name}) and the holder {first_name, last_name, email, phone}. */
json_t *sbx_hbooking_doc(apr_pool_t *p, const sbx_hotels *h, const sbx_hquote *q,
                         const sbx_hprice *prices, const json_t *rooms_guests,
                         const json_t *holder);
/* The Tightened trigger: the supplier books at a stricter policy than it
 * stated at prebook, as a real one may. Every room of doc becomes
 * non-refundable from now on (penalty the room's total from now, no
 * deadline, plan NRF); what the supplier answers, reads, previews and
 * charges at cancel all come from doc, so they agree. */
void sbx_hdoc_tighten(json_t *doc, apr_int64_t now);
/* The fee and refund of cancelling every room of doc at time t. */
void sbx_hdoc_cancel_terms(const json_t *doc, apr_int64_t t, apr_int64_t *fee,
                           apr_int64_t *refund);

typedef struct sbx_hbooking_new {
    const char *id;
    int supplier;
    const char *client_reference;  /* may be NULL */
    const char *prebook_id;        /* SUPPLIER_A */
    const sbx_htrigger *trigger;
    const char *currency;
    apr_int64_t total;
    const json_t *doc;
    apr_interval_time_t confirm_in; /* Async: pending this long */
    /* The vendor documents no Idempotency-Key (LiteAPI, Hotelbeds,
     * Expedia Rapid): the header is ignored, as the vendor would, and a
     * repeat is judged by its client reference (and A's prebook) alone. */
    int ignores_idempotency_key;
} sbx_hbooking_new;

/* Inserts a booking; *duplicate_of is the id of the booking that already
 * holds its prebook (A) or client reference (A, B, C), nothing inserted,
 * and *same_prebook 1 when that booking is of b's prebook. */
apr_status_t sbx_hbooking_insert(trv_dbc *c, apr_pool_t *p, const sbx_hbooking_new *b,
                                 const char **duplicate_of, int *same_prebook);
/* The booking (settled first: a pending one past its time reads as
 * confirmed): 0 or 1 row with id, status, client_reference, restricted,
 * cancel_fails, currency, total_minor, doc, created_at, updated_at,
 * cancelled_at, cancellation. */
apr_status_t sbx_hbooking_get(trv_dbc *c, apr_pool_t *p, int s, const char *id,
                              trv_rows **rows);
/* The bookings of supplier s with this client reference (ids). */
apr_status_t sbx_hbooking_by_reference(trv_dbc *c, apr_pool_t *p, int s, const char *ref,
                                       trv_rows **rows);
/* Marks a confirmed booking cancelled with the cancellation document;
 * *done 0 when it was not confirmed. */
apr_status_t sbx_hbooking_cancel(trv_dbc *c, apr_pool_t *p, const char *id,
                                 const json_t *cancellation, int *done);

/* The booking of a request's path parameter: 1 with *rows (one row) and
 * *doc, or 0 when answered (404, 503). c stays open on success. */
int sbx_hbooking_load(trv_req *req, trv_resp *resp, trv_dbc *c, int s, const char *id,
                      trv_rows **rows, json_t **doc);

/* Renders a stored booking (row of sbx_hbooking_get, its doc) in a
 * supplier's wire format; a new reference. */
typedef json_t *(*sbx_hrender)(trv_req *req, const trv_rows *row, const json_t *doc);

/* The book every supplier runs once it has its quote and guests, under
 * the request's Idempotency-Key when it has one (and the supplier honours
 * one): Failbook answers 422 refuse_code and stores nothing; a second
 * booking of the same prebook (A, whatever its client reference: a retry)
 * answers that booking with 200; one under a client reference already
 * booked from another prebook (A) or at all (B, C) 409 duplicate_code
 * naming it; otherwise the booking is stored (pending
 * for Async) and answered by render with status ok; Unknown answers only
 * after TravelSandboxHang, the booking made. */
void sbx_hbook_run(trv_req *req, trv_resp *resp, const sbx_hbooking_new *b,
                   const char *refuse_code, const char *duplicate_code, int ok,
                   sbx_hrender render);

/* The cancel every supplier runs: cancels booking id of supplier s at
 * the fee its policies ask now, and answers render_cancel (200); again:
 * the same answer. A pending booking is 409; sandbox-cancel-fails 422
 * fail_code; a SUPPLIER_C restriction 409 cancellation_restricted. */
void sbx_hcancel_run(trv_req *req, trv_resp *resp, int s, const char *id,
                     const char *fail_code, sbx_hrender render_cancel);

/* Reads booking id of supplier s and answers render (200) or 404. */
void sbx_hread_run(trv_req *req, trv_resp *resp, int s, const char *id, sbx_hrender render);

/* Unique ids: "prefix" + 10 characters. */
char *sbx_hid(apr_pool_t *p, const char *prefix);

/* Fee / amount helpers for the wire formats. */
json_t *sbx_hjson_amount(apr_pool_t *p, apr_int64_t minor, const char *currency);

#endif
