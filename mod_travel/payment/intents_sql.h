/* The statements of a domain's authorization intents (payment/intents.h),
 * one initializer per domain: its statement labels start trv_<dom>_intent_
 * and name its tables. The tables have the same shape (sql/012 for
 * flights, sql/100 for hotels); bookings: the domain's bookings table with
 * status, book_phase, phase_owner and sdk_token; expiry: its column until
 * which a READY_FOR_COMPLETE booking can be completed. */
#ifndef TRV_PAYMENT_INTENTS_SQL_H
#define TRV_PAYMENT_INTENTS_SQL_H

/* Every column a trv_pintent holds, from an intent aliased i. */
#define TRV_PINTENT_COLS \
    "i.id, i.booking_id, i.idempotency_key, i.instrument, i.currency, " \
    "i.amount::text AS amount, i.status, i.provider_ref, i.outcome, i.book_attempt, " \
    "i.release_gen, CASE WHEN i.release_at > clock_timestamp() THEN " \
    "(extract(epoch FROM i.release_at - clock_timestamp()) * 1000000)::bigint::text " \
    "ELSE '0' END AS release_in"

/* An intent whose authorization is known (its void failed) is never
 * reused: the provider would replay the authorization as it was made,
 * though it may be voided by now. */
#define TRV_PINTENT_SQL(dom, intents, bookings, payments, expiry) { \
    {"trv_" dom "_intent_lock_step", \
     "SELECT id FROM " bookings " WHERE id = %s AND status = 'COMPLETE_IN_PROGRESS' " \
     "AND book_phase = 'authorizing' AND phase_owner IS NOT DISTINCT FROM %s FOR UPDATE"}, \
    {"trv_" dom "_intent_own", \
     "SELECT " TRV_PINTENT_COLS " FROM " intents " i WHERE i.booking_id = %s " \
     "AND i.status = 'PENDING' AND i.book_attempt = %s::int " \
     "AND i.idempotency_key IS NOT NULL ORDER BY i.created_at DESC, i.id DESC LIMIT 1"}, \
    {"trv_" dom "_intent_reuse", \
     "UPDATE " intents " i SET status = 'PENDING', book_attempt = %s::int, " \
     "release_at = NULL, updated_at = trv_now() " \
     "WHERE i.id = (SELECT id FROM " intents " WHERE booking_id = %s " \
     "AND instrument = %s AND currency = %s AND amount = %s::numeric " \
     "AND provider_ref IS NULL AND (status = 'UNRESOLVED' OR " \
     "(status = 'PENDING' AND book_attempt <> %s::int)) " \
     "ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE) " \
     "AND i.status IN ('UNRESOLVED', 'PENDING') RETURNING " TRV_PINTENT_COLS}, \
    {"trv_" dom "_intent_insert", \
     "INSERT INTO " intents " AS i (id, booking_id, idempotency_key, " \
     "instrument, currency, amount, status, book_attempt) " \
     "VALUES (%s, %s, %s, %s, %s, %s::numeric, 'PENDING', %s::int) " \
     "ON CONFLICT (idempotency_key) DO NOTHING RETURNING " TRV_PINTENT_COLS}, \
    {"trv_" dom "_intent_release_others", \
     "UPDATE " intents " i SET status = 'UNRESOLVED', " \
     "release_at = clock_timestamp(), release_gen = i.release_gen + 1, updated_at = trv_now() " \
     "WHERE i.booking_id = %s AND i.id IS DISTINCT FROM %s AND i.idempotency_key IS NOT NULL " \
     "AND i.status IN ('UNRESOLVED', 'PENDING') RETURNING i.id, i.release_gen"}, \
    {"trv_" dom "_intent_authorized", \
     "UPDATE " intents " SET status = 'AUTHORIZED', provider_ref = %s, " \
     "updated_at = trv_now() WHERE id = %s AND status = 'PENDING'"}, \
    {"trv_" dom "_intent_resolved", \
     "UPDATE " intents " SET status = 'RESOLVED', outcome = %s, " \
     "provider_ref = COALESCE(%s, provider_ref), release_at = NULL, resolved_at = trv_now(), " \
     "updated_at = trv_now() WHERE id = %s AND status <> 'RESOLVED'"}, \
    {"trv_" dom "_intent_unresolved", \
     "UPDATE " intents " i SET status = 'UNRESOLVED', " \
     "provider_ref = COALESCE(%s, i.provider_ref), " \
     "release_at = clock_timestamp() + %s::bigint * interval '1 microsecond', " \
     "release_gen = i.release_gen + 1, updated_at = trv_now() " \
     "WHERE i.id = %s AND i.status IN ('PENDING', 'AUTHORIZED', 'RELEASING') " \
     "RETURNING i.id, i.release_gen"}, \
    {"trv_" dom "_intent_of_auth", \
     "SELECT " TRV_PINTENT_COLS " FROM " intents " i WHERE i.booking_id = %s " \
     "AND i.provider_ref = %s ORDER BY i.created_at DESC, i.id DESC LIMIT 1"}, \
    {"trv_" dom "_intent_sdk_release", \
     "INSERT INTO " intents " AS i (id, booking_id, currency, amount, status, " \
     "book_attempt, provider_ref, release_at, release_gen) " \
     "VALUES (%s, %s, %s, %s::numeric, 'UNRESOLVED', %s::int, %s, clock_timestamp(), 1) " \
     "ON CONFLICT (booking_id) WHERE idempotency_key IS NULL DO UPDATE SET " \
     "provider_ref = COALESCE(EXCLUDED.provider_ref, i.provider_ref), " \
     "release_at = clock_timestamp(), release_gen = i.release_gen + 1, updated_at = trv_now() " \
     "WHERE i.status = 'UNRESOLVED' RETURNING i.id, i.release_gen"}, \
    {"trv_" dom "_intent_get", \
     "SELECT " TRV_PINTENT_COLS ", b.status IN ('FAILED', 'EXPIRED') AS booking_ended, " \
     "(b.status = 'READY_FOR_COMPLETE' AND b." expiry " <= trv_now()) AS booking_past_expiry, " \
     "b.sdk_token FROM " intents " i " \
     "JOIN " bookings " b ON b.id = i.booking_id WHERE i.id = %s"}, \
    {"trv_" dom "_intent_claim", \
     "UPDATE " intents " SET status = 'RELEASING', updated_at = trv_now() " \
     "WHERE id = %s AND status = 'UNRESOLVED' AND release_at <= clock_timestamp()"}, \
    {"trv_" dom "_intent_payment_voided", \
     "UPDATE " payments " SET status = 'VOIDED', updated_at = trv_now() " \
     "WHERE booking_id = %s AND provider_ref = %s AND status = 'AUTHORIZED'"}, \
}

#endif
