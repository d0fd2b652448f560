#include "intents.h"
#include "enqueue.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <stdlib.h>

/* Every column a trv_fintent holds, from an intent aliased i. */
#define INT_COLS \
    "i.id, i.booking_id, i.idempotency_key, i.instrument, i.currency, " \
    "i.amount::text AS amount, i.status, i.provider_ref, i.outcome, i.book_attempt, " \
    "i.release_gen, CASE WHEN i.release_at > clock_timestamp() THEN " \
    "(extract(epoch FROM i.release_at - clock_timestamp()) * 1000000)::bigint::text " \
    "ELSE '0' END AS release_in"

static trv_fintent *intent_at(apr_pool_t *p, const trv_rows *r, int i)
{
    trv_fintent *in = apr_pcalloc(p, sizeof(*in));
    const char *rel = trv_rows_get(r, i, "release_in");
    in->id = trv_rows_get(r, i, "id");
    in->booking_id = trv_rows_get(r, i, "booking_id");
    in->key = trv_rows_get(r, i, "idempotency_key");
    in->instrument = trv_rows_get(r, i, "instrument");
    in->currency = trv_rows_get(r, i, "currency");
    in->amount = trv_rows_get(r, i, "amount");
    in->status = trv_rows_get(r, i, "status");
    in->provider_ref = trv_rows_get(r, i, "provider_ref");
    in->outcome = trv_rows_get(r, i, "outcome");
    in->book_attempt = trv_rows_int(r, i, "book_attempt", 0);
    in->release_gen = trv_rows_int(r, i, "release_gen", 0);
    in->release_in = rel ? (apr_interval_time_t)apr_atoi64(rel) : 0;
    in->booking_status = trv_rows_get(r, i, "booking_status");
    in->booking_past_expiry = trv_rows_bool(r, i, "booking_past_expiry");
    in->sdk_token = trv_rows_get(r, i, "sdk_token");
    return in;
}

static apr_status_t one_intent(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                               trv_fintent **out, int nargs, const char *const *args)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, st, &rows, nargs, args);
    *out = rv == APR_SUCCESS && rows->n > 0 ? intent_at(p, rows, 0) : NULL;
    return rv;
}

static const char *us(apr_pool_t *p, apr_interval_time_t t)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)(t > 0 ? t : 0));
}

static const trv_stmt lock_step_stmt = {"trv_flight_intent_lock_step",
    "SELECT id FROM flight_bookings WHERE id = %s AND status = 'COMPLETE_IN_PROGRESS' "
    "AND book_phase = 'authorizing' AND phase_owner IS NOT DISTINCT FROM %s FOR UPDATE"};

apr_status_t trv_fintent_lock_step(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                   const char *owner, int *held)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &lock_step_stmt, &rows,
                                    TRV_DB_ARGS(booking_id, owner));
    *held = rv == APR_SUCCESS && rows->n == 1;
    return rv;
}

static const trv_stmt own_stmt = {"trv_flight_intent_own",
    "SELECT " INT_COLS " FROM flight_authorization_intents i WHERE i.booking_id = %s "
    "AND i.status = 'PENDING' AND i.book_attempt = %s::int "
    "AND i.idempotency_key IS NOT NULL ORDER BY i.created_at DESC, i.id DESC LIMIT 1"};

apr_status_t trv_fintent_own(trv_dbc *c, apr_pool_t *p, const char *booking_id, int attempt,
                             trv_fintent **out)
{
    return one_intent(c, p, &own_stmt, out, TRV_DB_ARGS(booking_id, apr_itoa(p, attempt)));
}

/* An intent whose authorization is known (its void failed) is never
 * reused: the provider would replay the authorization as it was made,
 * though it may be voided by now. */
static const trv_stmt reuse_stmt = {"trv_flight_intent_reuse",
    "UPDATE flight_authorization_intents i SET status = 'PENDING', book_attempt = %s::int, "
    "release_at = NULL, updated_at = trv_now() "
    "WHERE i.id = (SELECT id FROM flight_authorization_intents WHERE booking_id = %s "
    "AND instrument = %s AND currency = %s AND amount = %s::numeric "
    "AND provider_ref IS NULL AND (status = 'UNRESOLVED' OR "
    "(status = 'PENDING' AND book_attempt <> %s::int)) "
    "ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE) "
    "AND i.status IN ('UNRESOLVED', 'PENDING') RETURNING " INT_COLS};

apr_status_t trv_fintent_reuse(trv_dbc *c, apr_pool_t *p, const char *booking_id, int attempt,
                               const char *instrument, const char *currency,
                               const char *amount, trv_fintent **out)
{
    const char *a = apr_itoa(p, attempt);
    return one_intent(c, p, &reuse_stmt, out,
                      TRV_DB_ARGS(a, booking_id, instrument, currency, amount, a));
}

static const trv_stmt insert_stmt = {"trv_flight_intent_insert",
    "INSERT INTO flight_authorization_intents AS i (id, booking_id, idempotency_key, "
    "instrument, currency, amount, status, book_attempt) "
    "VALUES (%s, %s, %s, %s, %s, %s::numeric, 'PENDING', %s::int) "
    "ON CONFLICT (idempotency_key) DO NOTHING RETURNING " INT_COLS};

apr_status_t trv_fintent_insert(trv_dbc *c, apr_pool_t *p, const char *booking_id, int attempt,
                                const char *instrument, const char *currency,
                                const char *amount, trv_fintent **out)
{
    return one_intent(c, p, &insert_stmt, out,
        TRV_DB_ARGS(trv_id_new(p, "pai"), booking_id,
                    apr_psprintf(p, "%s:authorize:%d", booking_id, attempt), instrument,
                    currency, amount, apr_itoa(p, attempt)));
}

static const trv_stmt release_others_stmt = {"trv_flight_intent_release_others",
    "UPDATE flight_authorization_intents i SET status = 'UNRESOLVED', "
    "release_at = clock_timestamp(), release_gen = i.release_gen + 1, updated_at = trv_now() "
    "WHERE i.booking_id = %s AND i.id IS DISTINCT FROM %s AND i.idempotency_key IS NOT NULL "
    "AND i.status IN ('UNRESOLVED', 'PENDING') RETURNING i.id, i.release_gen"};

apr_status_t trv_fintent_release_others(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char *except_id, apr_array_header_t **out)
{
    trv_rows *rows;
    int i;
    apr_status_t rv = trv_db_select(c, p, &release_others_stmt, &rows,
                                    TRV_DB_ARGS(booking_id, except_id));
    *out = apr_array_make(p, 1, sizeof(trv_frelease));
    for (i = 0; rv == APR_SUCCESS && i < rows->n; i++) {
        trv_frelease *rel = apr_array_push(*out);
        rel->id = trv_rows_get(rows, i, "id");
        rel->gen = trv_rows_int(rows, i, "release_gen", 0);
        rel->delay = 0;
    }
    return rv;
}

static const trv_stmt authorized_stmt = {"trv_flight_intent_authorized",
    "UPDATE flight_authorization_intents SET status = 'AUTHORIZED', provider_ref = %s, "
    "updated_at = trv_now() WHERE id = %s AND status = 'PENDING'"};

apr_status_t trv_fintent_authorized(trv_dbc *c, apr_pool_t *p, const char *id,
                                    const char *provider_ref, int *updated)
{
    return trv_db_exec(c, p, &authorized_stmt, updated, TRV_DB_ARGS(provider_ref, id));
}

static const trv_stmt resolved_stmt = {"trv_flight_intent_resolved",
    "UPDATE flight_authorization_intents SET status = 'RESOLVED', outcome = %s, "
    "provider_ref = COALESCE(%s, provider_ref), release_at = NULL, resolved_at = trv_now(), "
    "updated_at = trv_now() WHERE id = %s AND status <> 'RESOLVED'"};

apr_status_t trv_fintent_resolved(trv_dbc *c, apr_pool_t *p, const char *id,
                                  const char *outcome, const char *provider_ref)
{
    return trv_db_exec(c, p, &resolved_stmt, NULL, TRV_DB_ARGS(outcome, provider_ref, id));
}

static const trv_stmt unresolved_stmt = {"trv_flight_intent_unresolved",
    "UPDATE flight_authorization_intents i SET status = 'UNRESOLVED', "
    "provider_ref = COALESCE(%s, i.provider_ref), "
    "release_at = clock_timestamp() + %s::bigint * interval '1 microsecond', "
    "release_gen = i.release_gen + 1, updated_at = trv_now() "
    "WHERE i.id = %s AND i.status IN ('PENDING', 'AUTHORIZED', 'RELEASING') "
    "RETURNING i.id, i.release_gen"};

apr_status_t trv_fintent_unresolved(trv_dbc *c, apr_pool_t *p, const char *id,
                                    const char *provider_ref, apr_interval_time_t after,
                                    trv_frelease *rel)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &unresolved_stmt, &rows,
                                    TRV_DB_ARGS(provider_ref, us(p, after), id));
    rel->id = rv == APR_SUCCESS && rows->n ? trv_rows_get(rows, 0, "id") : NULL;
    rel->gen = rel->id ? trv_rows_int(rows, 0, "release_gen", 0) : 0;
    rel->delay = after > 0 ? after : 0;
    return rv;
}

static const trv_stmt of_auth_stmt = {"trv_flight_intent_of_auth",
    "SELECT " INT_COLS " FROM flight_authorization_intents i WHERE i.booking_id = %s "
    "AND i.provider_ref = %s ORDER BY i.created_at DESC, i.id DESC LIMIT 1"};

apr_status_t trv_fintent_of_auth(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                 const char *provider_ref, trv_fintent **out)
{
    return one_intent(c, p, &of_auth_stmt, out, TRV_DB_ARGS(booking_id, provider_ref));
}

static const trv_stmt sdk_release_stmt = {"trv_flight_intent_sdk_release",
    "INSERT INTO flight_authorization_intents AS i (id, booking_id, currency, amount, status, "
    "book_attempt, provider_ref, release_at, release_gen) "
    "VALUES (%s, %s, %s, %s::numeric, 'UNRESOLVED', %s::int, %s, clock_timestamp(), 1) "
    "ON CONFLICT (booking_id) WHERE idempotency_key IS NULL DO UPDATE SET "
    "provider_ref = COALESCE(EXCLUDED.provider_ref, i.provider_ref), "
    "release_at = clock_timestamp(), release_gen = i.release_gen + 1, updated_at = trv_now() "
    "WHERE i.status = 'UNRESOLVED' RETURNING i.id, i.release_gen"};

apr_status_t trv_fintent_sdk_release(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                     int attempt, const char *currency, const char *amount,
                                     const char *provider_ref, trv_frelease *rel)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &sdk_release_stmt, &rows,
        TRV_DB_ARGS(trv_id_new(p, "pai"), booking_id, currency, amount, apr_itoa(p, attempt),
                    provider_ref));
    rel->id = rv == APR_SUCCESS && rows->n ? trv_rows_get(rows, 0, "id") : NULL;
    rel->gen = rel->id ? trv_rows_int(rows, 0, "release_gen", 0) : 0;
    rel->delay = 0;
    return rv;
}

static const trv_stmt get_stmt = {"trv_flight_intent_get",
    "SELECT " INT_COLS ", b.status AS booking_status, "
    "(b.status = 'READY_FOR_COMPLETE' AND b.expires_at <= trv_now()) AS booking_past_expiry, "
    "b.sdk_token FROM flight_authorization_intents i "
    "JOIN flight_bookings b ON b.id = i.booking_id WHERE i.id = %s"};

apr_status_t trv_fintent_get(trv_dbc *c, apr_pool_t *p, const char *id, trv_fintent **out)
{
    return one_intent(c, p, &get_stmt, out, TRV_DB_ARGS(id));
}

static const trv_stmt claim_stmt = {"trv_flight_intent_claim",
    "UPDATE flight_authorization_intents SET status = 'RELEASING', updated_at = trv_now() "
    "WHERE id = %s AND status = 'UNRESOLVED' AND release_at <= clock_timestamp()"};

apr_status_t trv_fintent_claim(trv_dbc *c, apr_pool_t *p, const char *id, int *claimed)
{
    return trv_db_exec(c, p, &claim_stmt, claimed, TRV_DB_ARGS(id));
}

static const trv_stmt payment_voided_stmt = {"trv_flight_intent_payment_voided",
    "UPDATE flight_payments SET status = 'VOIDED', updated_at = trv_now() "
    "WHERE booking_id = %s AND provider_ref = %s AND status = 'AUTHORIZED'"};

apr_status_t trv_fintent_payment_voided(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char *provider_ref)
{
    return trv_db_exec(c, p, &payment_voided_stmt, NULL, TRV_DB_ARGS(booking_id, provider_ref));
}

apr_status_t trv_fintent_schedule(trv_dbc *c, apr_pool_t *p, const trv_frelease *rel,
                                  const char *request_id)
{
    if (!rel->id) {
        return APR_SUCCESS;
    }
    return trv_fjob_enqueue(c, p, TRV_FJOB_RELEASE, rel->id, rel->gen, request_id,
                            rel->delay);
}
