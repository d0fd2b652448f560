/* The statements of a domain's guarded booking moves (lifecycle/moves.h),
 * one initializer per domain, as payment/payments_sql.h makes a domain's
 * payment statements: labels trv_<dom>_..., over its bookings table
 * aliased b (and its reads by id and by key). What the domains' tables differ in is an argument:
 *   cols     every column its booking holds, from b (RETURNING)
 *   scope    the request's scope: "b.org_id = %s" (+ " AND b.user_id = %s")
 *   expires  the column READY_FOR_COMPLETE expires at
 *   refs     the supplier's references a phase move sets when given
 *            ("x = COALESCE(%s, b.x)", ...)
 *   touch    what each change sets beside ("" where a trigger keeps
 *            updated_at, ", updated_at = trv_now()" where the code does) */
#ifndef TRV_LIFECYCLE_MOVES_SQL_H
#define TRV_LIFECYCLE_MOVES_SQL_H

/* The UPDATE of a book attempt's revert (COMPLETE_IN_PROGRESS held by the
 * owner given -> READY_FOR_COMPLETE), up to RETURNING: the domain adds its
 * columns, and removes the attempt's uncaptured payment its own way (a
 * statement after it, or a CTE before it). Placeholders: id, owner. */
#define TRV_MOVES_REVERT_SQL(table, touch) \
    "UPDATE " table " b SET status = 'READY_FOR_COMPLETE', book_phase = NULL, " \
    "phase_owner = NULL, phase_deadline = NULL" touch " " \
    "WHERE b.id = %s AND b.status = 'COMPLETE_IN_PROGRESS' " \
    "AND b.phase_owner IS NOT DISTINCT FROM %s RETURNING "

#define TRV_MOVES_SQL(dom, table, cols, scope, expires, refs, touch) { \
    {"trv_" dom "_book_start", \
     "UPDATE " table " b SET status = 'COMPLETE_IN_PROGRESS', book_phase = %s, " \
     "phase_owner = %s, phase_deadline = clock_timestamp() + %s::bigint * " \
     "interval '1 microsecond', payment_instrument_id = %s, " \
     "book_attempt = b.book_attempt + 1, failure = NULL" touch " " \
     "WHERE b.id = %s AND " scope " " \
     "AND b.status = 'READY_FOR_COMPLETE' AND b." expires " > trv_now() " \
     "RETURNING " cols}, \
    {"trv_" dom "_book_phase", \
     "UPDATE " table " b SET book_phase = %s, phase_owner = %s, " \
     "phase_deadline = clock_timestamp() + %s::bigint * interval '1 microsecond', " \
     refs touch " " \
     "WHERE b.id = %s AND b.status = 'COMPLETE_IN_PROGRESS' AND b.book_phase = %s " \
     "AND b.phase_owner IS NOT DISTINCT FROM %s RETURNING " cols}, \
    {"trv_" dom "_book_failed", \
     "UPDATE " table " b SET status = 'FAILED', failure = %s::jsonb, " \
     "book_phase = NULL, phase_owner = NULL, phase_deadline = NULL" touch " " \
     "WHERE b.id = %s AND b.status = 'COMPLETE_IN_PROGRESS' RETURNING " cols}, \
    {"trv_" dom "_prebook_failed", \
     "UPDATE " table " b SET status = 'FAILED', failure = %s::jsonb" touch " " \
     "WHERE b.id = %s AND b.status = 'PREBOOK_IN_PROGRESS' RETURNING " cols}, \
    {"trv_" dom "_prebook_abandon", \
     "DELETE FROM " table " WHERE id = %s AND status = 'PREBOOK_IN_PROGRESS'"}, \
    {"trv_" dom "_expire_one", \
     "UPDATE " table " b SET status = 'EXPIRED'" touch " " \
     "WHERE b.id = %s AND b.status = 'READY_FOR_COMPLETE' AND b." expires " <= trv_now() " \
     "RETURNING " cols}, \
    {"trv_" dom "_synced", \
     "UPDATE " table " SET synced_at = clock_timestamp() WHERE id = %s"}, \
    {"trv_" dom "_expire_offer", \
     "UPDATE " table " b SET status = 'EXPIRED'" touch " " \
     "WHERE b.supplier = %s AND b.offer_reference = %s AND b.status = 'READY_FOR_COMPLETE' " \
     "AND b." expires " <= trv_now()"}, \
    {"trv_" dom "_booking_get", \
     "SELECT " cols " FROM " table " b WHERE b.id = %s AND " scope}, \
    {"trv_" dom "_booking_get_any", "SELECT " cols " FROM " table " b WHERE b.id = %s"}, \
    {"trv_" dom "_booking_by_key", \
     "SELECT " cols " FROM " table " b WHERE " scope " AND b.idempotency_key = %s"}}

#endif
