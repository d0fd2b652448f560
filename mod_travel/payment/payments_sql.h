/* The statements of a domain's payments table (payment/payments.h), one
 * initializer per domain: labels trv_<dom>_payment(s)_..., the table named.
 * The tables have the same columns (sql/010 flight_payments, sql/100
 * hotel_payments) but for the key that keeps a booking to one charge:
 * charge_key is its ON CONFLICT target ("(booking_id)", or a hotel's
 * partial index "(booking_id) WHERE kind = 'BOOK'"). */
#ifndef TRV_PAYMENT_PAYMENTS_SQL_H
#define TRV_PAYMENT_PAYMENTS_SQL_H

/* Every column a trv_payment_record holds. */
#define TRV_PAYMENTS_COLS \
    "id, booking_id, status, currency, amount::text AS amount, collected_by, provider_ref, " \
    "card::text AS card, trv_ts(created_at) AS created_at"

#define TRV_PAYMENTS_SQL(dom, payments, charge_key) { \
    {"trv_" dom "_payment_insert", \
     "INSERT INTO " payments " (id, booking_id, status, currency, amount, collected_by, " \
     "provider_ref, card, captured_at) VALUES (%s, %s, %s, %s, %s::numeric, %s, %s, " \
     "%s::jsonb, CASE WHEN %s = 'CAPTURED' THEN trv_now() END) " \
     "ON CONFLICT " charge_key " DO NOTHING RETURNING id"}, \
    {"trv_" dom "_payment_captured", \
     "UPDATE " payments " SET status = 'CAPTURED', captured_at = trv_now(), " \
     "card = COALESCE(%s::jsonb, card), updated_at = trv_now() " \
     "WHERE id = %s AND status = 'AUTHORIZED'"}, \
    {"trv_" dom "_payment_voided", \
     "UPDATE " payments " SET status = 'VOIDED', updated_at = trv_now() " \
     "WHERE id = %s AND status = 'AUTHORIZED'"}, \
    {"trv_" dom "_payment_card", \
     "UPDATE " payments " SET card = %s::jsonb, updated_at = trv_now() " \
     "WHERE id = %s AND card IS NULL"}, \
    {"trv_" dom "_payment_get", \
     "SELECT " TRV_PAYMENTS_COLS " FROM " payments " WHERE id = %s"}, \
    {"trv_" dom "_payments_of", \
     "SELECT " TRV_PAYMENTS_COLS " FROM " payments " WHERE booking_id = ANY (%s::text[]) " \
     "ORDER BY created_at, id"}}

#endif
