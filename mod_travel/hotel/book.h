/* Completing a hotel booking (book): the steps of COMPLETE_IN_PROGRESS on
 * the shared book runner (lifecycle/book.h), run by the request that
 * started them and, when that request died or the supplier confirms
 * later, by the hotel.booking.complete job.
 *
 *   authorizing  the service authorizes the booking's total (a saved
 *                instrument, or the payment SDK's session); the supplier
 *                is not asked yet (SUPPLIER_A, SUPPLIER_B)
 *   ordering     the supplier's book call is out (idempotency key
 *                <booking>:book, client reference <booking>/<reference_id>)
 *   confirming   the supplier holds the booking and confirms it later
 *                (Async): read until confirmed, then captured
 *   unknown      book got no answer (500 result_unknown): the booking is
 *                read at the supplier by its client reference, never
 *                bought again
 *
 * Charged once: one payment row per booking (a unique index), the
 * authorization and the capture under the booking's keys, and only the
 * owner of a step moves it (guarded updates). A merchant-of-record
 * supplier (TRV_SUP_COLLECTS_PAYMENT, SUPPLIER_C) charges the card itself,
 * which the payment provider forwards to it from the booking's saved
 * instrument (vault and forward): the service records what it collected
 * and never sees the card number. */
#ifndef TRV_HOTEL_BOOK_H
#define TRV_HOTEL_BOOK_H

#include "booking.h"
#include "supplier.h"
#include "core/env.h"
#include "core/log.h"
#include "lifecycle/book.h"

/* The hotel's part of the book runner (lifecycle/book.h): its rows, its
 * supplier order and the reads of confirming and unknown. Run it with
 * trv_lifecycle_book_init(&run, &trv_hbook_lifecycle, ...) and
 * trv_lifecycle_book_continue (run->b: whole, rooms and payments, held by
 * run->owner). */
extern const trv_lifecycle_book_domain trv_hbook_lifecycle;

/* Whether the service collects the payment (else the supplier does). */
int trv_hbook_service_pays(const trv_env *env, const trv_hbooking *b);
/* How long the step of this phase may take (its calls' timeouts). */
apr_interval_time_t trv_hbook_budget(const trv_env *env, const trv_hbooking *b,
                                     trv_hb_phase phase);
/* The client reference the supplier keeps: the booking id and as much of
 * the caller's reference_id as fits 64 characters. */
const char *trv_hbook_client_reference(apr_pool_t *p, const trv_hbooking *b);


#endif
