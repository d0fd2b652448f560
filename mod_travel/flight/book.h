/* Book: pay and ticket a READY_FOR_COMPLETE booking on the shared book
 * runner (lifecycle/book.h), so that whoever finds the booking mid-way (the
 * request that started it, or the flight.booking.complete job after that
 * request died) can carry on from where it stands:
 *
 *   authorizing  the payment provider authorizes the instrument (or the
 *                SDK payment is looked up); SUPPLIER_A only
 *   ordering     the supplier issues the order (book), then the
 *                authorization is captured
 *   ticketing    the supplier is still ticketing: the job polls the order
 *   unknown      the supplier did not answer book: the outcome is unknown
 *                and the service never sends book again; the job looks
 *                the order up (the adapter's find_order: Duffel's order
 *                list, by the booking id in its metadata) and settles the
 *                booking as book's answer would have
 *
 * Every call out carries an idempotency key derived from the booking id and
 * the attempt (sent to the supplier only where its protocol row says the
 * vendor honours one), so a step run twice (a takeover, a lease that ran
 * out) makes one authorization, one order and one capture. The authorize key is
 * recorded before the call (an authorization intent, intents.h) and kept
 * while its outcome is unknown: the next attempt with the same instrument
 * authorizes with it again, and an intent nobody uses is voided by the
 * flight.payment.release job, so an unanswered authorize never leaves an
 * authorization held. No database connection is held during a call out. */
#ifndef TRV_FLIGHT_BOOK_H
#define TRV_FLIGHT_BOOK_H

#include "booking.h"
#include "core/env.h"
#include "lifecycle/book.h"

/* The flight's part of the book runner (lifecycle/book.h): its rows,
 * its supplier order (ordering -> ticketing, or unknown). Run it with
 * trv_lifecycle_book_init(&run, &trv_book_lifecycle, ...) and
 * trv_lifecycle_book_continue. */
extern const trv_lifecycle_book_domain trv_book_lifecycle;

/* The ticketing poll (job): reads the order and finishes the booking when
 * the supplier is done; TRV_LIFECYCLE_BOOK_RETRY while it is still
 * ticketing. */
trv_lifecycle_book_outcome trv_fbook_poll_ticketing(trv_lifecycle_book_run *run);

/* Whether the booking's supplier adapter can look up the order an
 * unanswered book made (find_order), so an unknown booking is settled by
 * the flight.booking.complete job instead of an operator. */
int trv_fbook_finds_orders(const trv_env *env, const trv_fbooking *b);

/* How long after the offer's expires_at an order made from it may still
 * appear in the supplier's order list: the book request was sent before
 * expiry, and the supplier may finish it late, list it late, or keep a
 * clock a little ahead of ours. */
#define TRV_FBOOK_LATE_ORDER_GRACE apr_time_from_sec(300)

/* For a booking whose book answer was lost: how long from now until a
 * lookup that finds no order proves none was made (its offer expired at
 * expires_at, plus TRV_FBOOK_LATE_ORDER_GRACE); 0 when that time has
 * come, -1 when the booking has no expiry to go by. */
apr_interval_time_t trv_fbook_order_settled_in(const trv_fbooking *b, apr_time_t now);

/* A book step's deadline for this booking's supplier. */
apr_interval_time_t trv_fbook_phase_budget(const trv_env *env, const trv_fbooking *b,
                                           trv_fb_phase phase);

/* Whether the service collects the payment, or the supplier does (its row
 * has TRV_SUP_COLLECTS_PAYMENT). */
int trv_fbook_service_pays(const trv_env *env, const trv_fbooking *b);

#endif
