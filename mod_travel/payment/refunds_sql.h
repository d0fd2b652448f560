/* The statements of a domain's refunds table (payment/refunds.h), one
 * initializer per domain: labels trv_<dom>_refund(s)_..., the tables named.
 * The tables have the same shape (sql/010 flight_refunds, sql/110
 * hotel_refunds) but for the cancellation a hotel refund belongs to:
 * cancellation is that column (f.cancellation_id) or NULL::text, insert
 * the domain's own INSERT (its columns and its one-refund-per-... key). */
#ifndef TRV_PAYMENT_REFUNDS_SQL_H
#define TRV_PAYMENT_REFUNDS_SQL_H

#define TRV_REFUNDS_SQL(dom, refunds, payments, cancellation, insert) { \
    {"trv_" dom "_refund_insert", insert}, \
    {"trv_" dom "_refunds_pending", \
     "SELECT f.id, f.booking_id, " cancellation " AS cancellation_id, f.payment_id, " \
     "f.currency, f.amount::text AS amount, y.provider_ref FROM " refunds " f " \
     "JOIN " payments " y ON y.id = f.payment_id " \
     "WHERE f.booking_id = %s AND f.status = 'PENDING' ORDER BY f.created_at, f.id"}, \
    {"trv_" dom "_refund_result", \
     "UPDATE " refunds " SET status = %s, provider_ref = coalesce(%s, provider_ref), " \
     "last_error = %s, attempts = attempts + 1, updated_at = trv_now() " \
     "WHERE id = %s AND status = 'PENDING'"}, \
    {"trv_" dom "_refunds_restart", \
     "UPDATE " refunds " SET status = 'PENDING', last_error = NULL, updated_at = trv_now() " \
     "WHERE booking_id = %s AND status = 'FAILED'"}}

#endif
