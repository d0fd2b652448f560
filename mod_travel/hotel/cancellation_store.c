/* Hotel cancellation statements (cancellation_store.h). */
#include "cancellation_store.h"
#include "cancel_jobs.h"
#include "core/json.h"
#include "core/money.h"
#include "payment/refunds_sql.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

#define CAN_COLS \
    "x.id, x.booking_id, x.status, x.attempt, x.currency, x.fee_amount::text AS fee_amount, " \
    "x.refund_amount::text AS refund_amount, x.refund_to::text AS refund_to, x.error_code, " \
    "x.error_message, trv_ts(x.created_at) AS created_at, trv_ts(x.canceled_at) AS canceled_at"

static trv_hcancel cancel_at(apr_pool_t *p, const trv_rows *r, int i)
{
    trv_hcancel x;
    const char *rt = trv_rows_get(r, i, "refund_to");
    memset(&x, 0, sizeof(x));
    x.id = trv_rows_get(r, i, "id");
    x.booking_id = trv_rows_get(r, i, "booking_id");
    x.status = trv_transit_or(&trv_hcancel_status_table, trv_rows_get(r, i, "status"), (int)x.status);
    x.attempt = trv_rows_int(r, i, "attempt", 0);
    x.currency = trv_rows_get(r, i, "currency");
    x.fee_amount = trv_rows_get(r, i, "fee_amount");
    x.refund_amount = trv_rows_get(r, i, "refund_amount");
    x.refund_to = rt ? trv_json_parse(p, rt, strlen(rt), NULL) : NULL;
    x.error_code = trv_rows_get(r, i, "error_code");
    x.error_message = trv_rows_get(r, i, "error_message");
    x.created_at = trv_rows_get(r, i, "created_at");
    x.canceled_at = trv_rows_get(r, i, "canceled_at");
    return x;
}

/* ---- start ---- */

/* The booking moves and its unfinished attempt is resumed or created in
 * one statement: two racing cancels meet on the booking's guarded UPDATE
 * (one gets it, the other nothing) and on the unfinished-attempt index. */
static const trv_stmt start_stmt = {"trv_hotel_cancel_start",
    "WITH b AS (UPDATE hotel_bookings SET status = 'CANCEL_IN_PROGRESS', "
    "  cancel_attempt = cancel_attempt + 1, failure = NULL "
    "  WHERE id = %s AND org_id = %s AND status = 'CONFIRMED' "
    "  RETURNING id, currency, cancel_attempt), "
    "resumed AS (UPDATE hotel_cancellations x SET status = 'IN_PROGRESS', "
    "  attempt = b.cancel_attempt, error_code = NULL, error_message = NULL, "
    "  updated_at = trv_now() FROM b WHERE x.booking_id = b.id AND x.status = 'FAILED' "
    "  RETURNING " CAN_COLS "), "
    "created AS (INSERT INTO hotel_cancellations AS x (id, booking_id, status, attempt, currency) "
    "  SELECT %s, b.id, 'IN_PROGRESS', b.cancel_attempt, b.currency FROM b "
    "  WHERE NOT EXISTS (SELECT 1 FROM resumed) RETURNING " CAN_COLS ") "
    "SELECT * FROM resumed UNION ALL SELECT * FROM created"};

apr_status_t trv_hcancellation_start(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                     const char *booking_id, const char *new_id, trv_hcancel **out)
{
    trv_rows *r;
    apr_status_t rv = trv_db_select(c, p, &start_stmt, &r,
                                    TRV_DB_ARGS(booking_id, org_id, new_id));
    *out = NULL;
    if (rv == APR_SUCCESS && r->n > 0) {
        *out = apr_palloc(p, sizeof(**out));
        **out = cancel_at(p, r, 0);
    }
    return rv;
}

/* ---- reads ---- */

static const trv_stmt list_stmt = {"trv_hotel_cancellations_of",
    "SELECT " CAN_COLS " FROM hotel_cancellations x WHERE x.booking_id = ANY (%s::text[]) "
    "ORDER BY x.booking_id, x.created_at, x.id"};

apr_status_t trv_hcancellation_list_many(trv_dbc *c, apr_pool_t *p, const char *ids,
                                         apr_hash_t **out)
{
    trv_rows *r;
    apr_status_t rv = trv_db_select(c, p, &list_stmt, &r, TRV_DB_ARGS(ids));
    int i;
    *out = apr_hash_make(p);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < r->n; i++) {
        trv_hcancel x = cancel_at(p, r, i);
        apr_array_header_t *a = apr_hash_get(*out, x.booking_id, APR_HASH_KEY_STRING);
        if (!a) {
            a = apr_array_make(p, 1, sizeof(trv_hcancel));
            apr_hash_set(*out, x.booking_id, APR_HASH_KEY_STRING, a);
        }
        APR_ARRAY_PUSH(a, trv_hcancel) = x;
    }
    return APR_SUCCESS;
}

apr_status_t trv_hcancellation_list(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                    apr_array_header_t **out)
{
    apr_hash_t *by;
    /* Ids are [A-Za-z0-9_-]: safe inside an array literal. */
    apr_status_t rv = trv_hcancellation_list_many(c, p, apr_psprintf(p, "{%s}", booking_id), &by);
    *out = rv == APR_SUCCESS ? apr_hash_get(by, booking_id, APR_HASH_KEY_STRING) : NULL;
    if (!*out) {
        *out = apr_array_make(p, 1, sizeof(trv_hcancel));
    }
    return rv;
}

static json_t *money_or_null(const char *amount, const char *currency)
{
    trv_money m;
    int e = currency ? trv_currency_exponent(currency) : -1;
    if (!amount || e < 0 || trv_money_parse_decimal(amount, e, &m.minor) != APR_SUCCESS) {
        return json_null();
    }
    memcpy(m.currency, currency, 4);
    return trv_money_json(&m);
}

json_t *trv_hcancellation_render(const apr_array_header_t *attempts)
{
    json_t *out = json_array();
    int i;
    for (i = 0; attempts && i < attempts->nelts; i++) {
        const trv_hcancel *x = &APR_ARRAY_IDX(attempts, i, trv_hcancel);
        json_array_append_new(out, json_pack(
            "{s:s,s:s,s:o,s:o,s:O,s:s,s:s?,s:s?}", "id", x->id,
            "status", trv_transit_text(&trv_hcancel_status_table, x->status),
            "fee", money_or_null(x->fee_amount, x->currency),
            "refund", money_or_null(x->refund_amount, x->currency),
            "refund_to", x->refund_to ? x->refund_to : json_null(),
            "created_at", x->created_at, "canceled_at", x->canceled_at,
            "error_code", x->error_code));
        /* json_pack's s? leaves a NULL string out: the API shows null. */
        if (!x->canceled_at) {
            json_object_set_new(json_array_get(out, (size_t)i), "canceled_at", json_null());
        }
        if (!x->error_code) {
            json_object_set_new(json_array_get(out, (size_t)i), "error_code", json_null());
        }
    }
    return out;
}

/* ---- outcomes ---- */

static const trv_stmt succeeded_stmt = {"trv_hotel_cancel_succeeded",
    "WITH b AS (UPDATE hotel_bookings SET status = 'CANCELED', canceled_at = trv_now() "
    "  WHERE id = %s AND status = 'CANCEL_IN_PROGRESS' AND cancel_attempt = %s::int "
    "  RETURNING id), "
    "x AS (UPDATE hotel_cancellations x SET status = 'SUCCEEDED', fee_amount = %s::numeric, "
    "  refund_amount = %s::numeric, refund_to = %s::jsonb, canceled_at = trv_now(), "
    "  updated_at = trv_now() FROM b WHERE x.booking_id = b.id AND x.status = 'IN_PROGRESS' "
    "  RETURNING x.id), "
    "r AS (UPDATE hotel_booking_rooms r SET canceled_at = trv_now() FROM b "
    "  WHERE r.booking_id = b.id AND r.canceled_at IS NULL RETURNING r.id) "
    "SELECT (SELECT id FROM x) AS id, (SELECT count(*) FROM r) AS rooms FROM b"};

apr_status_t trv_hcancellation_succeeded(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                         int attempt, const char *fee, const char *refund,
                                         const char *refund_to, const char **cancellation_id)
{
    trv_rows *r;
    apr_status_t rv = trv_db_select(c, p, &succeeded_stmt, &r,
                                    TRV_DB_ARGS(booking_id, apr_itoa(p, attempt), fee, refund,
                                                refund_to));
    *cancellation_id = rv == APR_SUCCESS && r->n > 0 ? trv_rows_get(r, 0, "id") : NULL;
    return rv;
}

static const trv_stmt failed_stmt = {"trv_hotel_cancel_failed",
    "WITH b AS (UPDATE hotel_bookings SET status = 'CONFIRMED' "
    "  WHERE id = %s AND status = 'CANCEL_IN_PROGRESS' AND cancel_attempt = %s::int "
    "  RETURNING id) "
    "UPDATE hotel_cancellations x SET status = 'FAILED', error_code = %s, error_message = %s, "
    "  updated_at = trv_now() FROM b WHERE x.booking_id = b.id AND x.status = 'IN_PROGRESS' "
    "RETURNING x.id"};

apr_status_t trv_hcancellation_failed(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                      int attempt, const char *code, const char *message,
                                      int *moved)
{
    trv_rows *r;
    apr_status_t rv = trv_db_select(c, p, &failed_stmt, &r,
                                    TRV_DB_ARGS(booking_id, apr_itoa(p, attempt), code,
                                                message));
    *moved = rv == APR_SUCCESS && r->n > 0;
    return rv;
}

static const trv_stmt refunded_stmt = {"trv_hotel_cancel_refunded",
    "SELECT coalesce(sum(refund_amount), 0)::text AS sum FROM hotel_cancellations "
    "WHERE booking_id = %s AND status = 'SUCCEEDED'"};

apr_status_t trv_hcancellation_refunded(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char **sum)
{
    trv_rows *r;
    apr_status_t rv = trv_db_select(c, p, &refunded_stmt, &r, TRV_DB_ARGS(booking_id));
    *sum = rv == APR_SUCCESS && r->n > 0 ? trv_rows_get(r, 0, "sum") : "0";
    return rv;
}

/* ---- restrictions ---- */

static const trv_stmt restrict_stmt = {"trv_hotel_restrict",
    "INSERT INTO hotel_booking_restrictions (booking_id, code, description) VALUES (%s, %s, %s) "
    "ON CONFLICT (booking_id, code) DO UPDATE SET description = EXCLUDED.description, "
    "lifted_at = NULL"};

apr_status_t trv_hcancellation_restrict(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char *code, const char *description)
{
    return trv_db_exec(c, p, &restrict_stmt, NULL, TRV_DB_ARGS(booking_id, code, description));
}

static const trv_stmt restricted_stmt = {"trv_hotel_restricted",
    "SELECT EXISTS (SELECT 1 FROM hotel_booking_restrictions WHERE booking_id = %s "
    "AND lifted_at IS NULL) AS restricted"};

apr_status_t trv_hcancellation_restricted(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                          int *restricted)
{
    trv_rows *r;
    apr_status_t rv = trv_db_select(c, p, &restricted_stmt, &r, TRV_DB_ARGS(booking_id));
    *restricted = rv == APR_SUCCESS && r->n > 0 && trv_rows_bool(r, 0, "restricted");
    return rv;
}

/* ---- refunds ---- */

/* hotel_refunds: one refund per payment and cancellation attempt; the
 * logic is payment/refunds.c's. */
static const trv_refunds_sql refunds_sql = TRV_REFUNDS_SQL("hotel", "hotel_refunds",
    "hotel_payments", "f.cancellation_id",
    "INSERT INTO hotel_refunds (id, booking_id, cancellation_id, payment_id, currency, amount, "
    "status) VALUES (%s, %s, %s, %s, %s, %s::numeric, 'PENDING') "
    "ON CONFLICT (cancellation_id, payment_id) DO NOTHING");

const trv_refunds_kind trv_hcancellation_refunds = {"hotel booking", &refunds_sql, &trv_hjob_refund,
                                              1};
