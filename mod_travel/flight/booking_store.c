#include "booking_store.h"
#include "enqueue.h"
#include "payment/payments_sql.h"
#include "payment/refunds_sql.h"
#include "core/json.h"
#include "lifecycle/moves.h"
#include "lifecycle/moves_sql.h"
#include "lifecycle/row.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* Every column a trv_fbooking holds, from a booking aliased b. */
#define FB_COLS \
    TRV_LIFECYCLE_ROW_COLS("expires_at") ", " \
    "b.fare_amount::text AS fare_amount, b.fare_tax_amount::text AS fare_tax_amount, " \
    "b.services_amount::text AS services_amount, trv_ts(b.expires_at) AS expires_at, " \
    "b.passengers::text AS passengers, b.journeys::text AS journeys, " \
    "b.services::text AS services, b.fare_conditions::text AS fare_conditions, " \
    "b.hold::text AS hold, b.cancellation::text AS cancellation, " \
    "b.airline_initiated_changes::text AS changes, b.supplier_reference, b.airline_pnr, " \
    "(b.status = 'CONFIRMED' AND (b.synced_at IS NULL OR " \
    "b.synced_at < clock_timestamp() - interval '5 seconds')) AS sync_due"

TRV_LIFECYCLE_ROW_ENUMS_ASSERT(trv_fbooking);

/* A trv_fbooking's own columns, FB_COLS' beyond the shared ones. */
#define T(f) TRV_LIFECYCLE_ROW_COL(trv_fbooking, TEXT, f)
#define J(f) TRV_LIFECYCLE_ROW_COL(trv_fbooking, JSON, f)
static const trv_lifecycle_row_col own_cols[] = {
    T(fare_amount), T(fare_tax_amount), T(services_amount), T(expires_at), J(passengers),
    J(journeys), J(services), J(fare_conditions), J(hold), J(cancellation), J(changes),
    T(supplier_reference), T(airline_pnr), TRV_LIFECYCLE_ROW_COL(trv_fbooking, BOOL, sync_due),
    {NULL}};
#undef T
#undef J

static const trv_lifecycle_row_shape row_shape =
    TRV_LIFECYCLE_ROW_SHAPE(trv_fbooking, &trv_fb_status_table, &trv_fb_phase_table, own_cols);

apr_status_t trv_fbooking_load_payments(trv_dbc *c, apr_pool_t *p, trv_fbooking *b)
{
    apr_hash_t *pays;
    /* Ids are [A-Za-z0-9_-]: safe inside an array literal. */
    apr_status_t rv = trv_payments_of(&trv_fbooking_payments, c, p,
                                      apr_psprintf(p, "{%s}", b->id), &pays);
    b->payments = trv_payments_for(p, pays, b->id);
    return rv;
}

/* A moved booking made whole (lifecycle/moves.h): its payments. */
static apr_status_t whole(trv_dbc *c, apr_pool_t *p, void *b)
{
    return trv_fbooking_load_payments(c, p, b);
}

/* The guarded moves every domain makes (lifecycle/moves.h) over
 * flight_bookings: scoped to the organization and user, expiring at
 * expires_at, a phase move setting the order's references. */
static const trv_lifecycle_moves_sql moves_sql = TRV_MOVES_SQL("flight", "flight_bookings",
    FB_COLS, "b.org_id = %s AND b.user_id = %s", "expires_at",
    "supplier_reference = COALESCE(%s, b.supplier_reference), "
    "airline_pnr = COALESCE(%s, b.airline_pnr)", ", updated_at = trv_now()");

static const trv_lifecycle_moves moves = {&moves_sql, &trv_fb_phase_table, 1, 2, 0, &row_shape,
                                          whole};

/* Runs a statement returning booking rows: *out the first (with its
 * payments when whole) or NULL. */
TRV_LIFECYCLE_MOVES_ONE(one_booking, trv_fbooking, moves)

/* trv_fbooking_prebook_failed ... _synced over them (booking_store.h). */
TRV_LIFECYCLE_MOVES_TYPED(trv_fbooking, trv_fbooking, trv_fb_phase, moves, TRV_LIFECYCLE_DEFINED,
                          TRV_LIFECYCLE_SCOPE_USER, user_id)

/* ---- list ---- */

static const trv_stmt many_stmt = {"trv_flight_get_many",
    "SELECT " FB_COLS " FROM flight_bookings b WHERE b.id = ANY (%s::text[])"};

apr_status_t trv_fbooking_load_many(trv_dbc *c, apr_pool_t *p, const char *ids,
                                    apr_hash_t **out)
{
    trv_rows *rows;
    apr_hash_t *pays;
    apr_hash_index_t *hi;
    apr_status_t rv;
    int i;

    *out = apr_hash_make(p);
    rv = trv_db_select(c, p, &many_stmt, &rows, TRV_DB_ARGS(ids));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->n; i++) {
        trv_fbooking *b = trv_lifecycle_row_at(p, rows, i, &row_shape);
        apr_hash_set(*out, b->id, APR_HASH_KEY_STRING, b);
    }
    rv = trv_payments_of(&trv_fbooking_payments, c, p, ids, &pays);
    for (hi = apr_hash_first(p, *out); hi; hi = apr_hash_next(hi)) {
        trv_fbooking *b = apr_hash_this_val(hi);
        b->payments = trv_payments_for(p, pays, b->id);
    }
    return rv;
}

/* trv_fbooking_keep_docs and _keep_head (booking_store.h). */
TRV_LIST_PAGE_KEEP_TYPED(trv_fbooking, trv_fbooking_list, TRV_LIFECYCLE_DEFINED,
                         TRV_LIFECYCLE_SCOPE_USER, user_id)

/* ---- prebook ---- */

/* No conflict target: a taken key and a taken offer (of a supplier that
 * sells an offer once) both end in DO NOTHING, and the caller tells them
 * apart by reading the key. */
static const trv_stmt insert_stmt = {"trv_flight_prebook_insert",
    "INSERT INTO flight_bookings (" TRV_LIFECYCLE_ROW_NEW_COLS ", contact, passengers, "
    "offer_once) VALUES (" TRV_LIFECYCLE_ROW_NEW_VALUES ", %s::jsonb, %s::jsonb, %s::boolean) "
    "ON CONFLICT DO NOTHING RETURNING id"};

apr_status_t trv_fbooking_insert_prebook(trv_dbc *c, apr_pool_t *p, const trv_fprebook_row *r,
                                         int *inserted)
{
    return trv_lifecycle_row_insert(c, p, &insert_stmt, &r->head, inserted,
        TRV_DB_ARGS(r->contact, r->passengers, r->offer_once ? "true" : "false"));
}

apr_status_t trv_fbooking_expire_offer(trv_dbc *c, apr_pool_t *p, const char *supplier,
                                       const char *offer_reference)
{
    return trv_lifecycle_moves_expire_offer(&moves, c, p, supplier, offer_reference);
}

static const trv_stmt prebook_done_stmt = {"trv_flight_prebook_done",
    "UPDATE flight_bookings b SET status = 'READY_FOR_COMPLETE', currency = %s, "
    "total_amount = %s::numeric, fare_amount = %s::numeric, fare_tax_amount = %s::numeric, "
    "services_amount = %s::numeric, expires_at = %s::timestamptz, "
    "member_price = %s::boolean, hold = %s::jsonb, passengers = %s::jsonb, "
    "journeys = %s::jsonb, services = %s::jsonb, fare_conditions = %s::jsonb, "
    "cancellation_policy = %s::jsonb, supplier_data = %s::jsonb, sdk_token = %s, "
    "updated_at = trv_now() WHERE b.id = %s AND b.status = 'PREBOOK_IN_PROGRESS' "
    "RETURNING " FB_COLS};

apr_status_t trv_fbooking_prebook_done(trv_dbc *c, apr_pool_t *p, const char *id,
                                       const trv_fpriced *pr, trv_fbooking **out)
{
    return one_booking(c, p, &prebook_done_stmt, 1, out,
        TRV_DB_ARGS(pr->currency, pr->total_amount, pr->fare_amount, pr->fare_tax_amount,
                    pr->services_amount, pr->expires_at, pr->member_price ? "true" : "false",
                    pr->hold, pr->passengers, pr->journeys, pr->services,
                    pr->fare_conditions, pr->cancellation_policy, pr->supplier_data,
                    pr->sdk_token, id));
}

/* ---- book ---- */

static const trv_stmt revert_stmt = {"trv_flight_book_revert",
    TRV_MOVES_REVERT_SQL("flight_bookings", ", updated_at = trv_now()") FB_COLS};
/* A READY_FOR_COMPLETE booking has no payment: the attempt's payment row
 * goes (its authorization voided, or kept by an SDK session, or settled
 * by its authorization intent: intents.h). */
static const trv_stmt drop_uncaptured_stmt = {"trv_flight_payment_drop_uncaptured",
    "DELETE FROM flight_payments WHERE booking_id = %s AND status <> 'CAPTURED'"};

apr_status_t trv_fbooking_book_revert(trv_dbc *c, apr_pool_t *p, const char *id,
                                      const char *owner, trv_fbooking **out)
{
    apr_status_t rv = one_booking(c, p, &revert_stmt, 0, out, TRV_DB_ARGS(id, owner));
    if (rv == APR_SUCCESS && *out) {
        rv = trv_db_exec(c, p, &drop_uncaptured_stmt, NULL, TRV_DB_ARGS(id));
    }
    return rv == APR_SUCCESS && *out ? trv_fbooking_load_payments(c, p, *out) : rv;
}

static const trv_stmt confirm_stmt = {"trv_flight_confirm",
    "UPDATE flight_bookings b SET status = 'CONFIRMED', "
    "supplier_reference = COALESCE(%s, b.supplier_reference), "
    "airline_pnr = COALESCE(%s, b.airline_pnr), confirmed_at = trv_now(), "
    "book_phase = NULL, phase_owner = NULL, phase_deadline = NULL, failure = NULL, "
    "synced_at = clock_timestamp(), updated_at = trv_now() "
    "WHERE b.id = %s AND b.status = 'COMPLETE_IN_PROGRESS' RETURNING " FB_COLS};

apr_status_t trv_fbooking_confirm(trv_dbc *c, apr_pool_t *p, const char *id,
                                  const char *supplier_reference, const char *airline_pnr,
                                  trv_fbooking **out)
{
    return one_booking(c, p, &confirm_stmt, 0, out,
                       TRV_DB_ARGS(supplier_reference, airline_pnr, id));
}

/* ---- cancel ---- */

static const trv_stmt cancel_start_stmt = {"trv_flight_cancel_start",
    "UPDATE flight_bookings b SET status = 'CANCEL_IN_PROGRESS', "
    "cancel_attempt = b.cancel_attempt + 1, failure = NULL, updated_at = trv_now() "
    "WHERE b.id = %s AND b.org_id = %s AND b.user_id = %s AND b.status = 'CONFIRMED' "
    "RETURNING " FB_COLS};

apr_status_t trv_fbooking_cancel_start(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                       const char *user_id, const char *id, trv_fbooking **out)
{
    return one_booking(c, p, &cancel_start_stmt, 1, out, TRV_DB_ARGS(id, org_id, user_id));
}

static const trv_stmt canceled_stmt = {"trv_flight_canceled",
    "UPDATE flight_bookings b SET status = 'CANCELED', canceled_at = trv_now(), "
    "cancellation = %s::jsonb, updated_at = trv_now() "
    "WHERE b.id = %s AND b.status = 'CANCEL_IN_PROGRESS' AND b.cancel_attempt = %s::int "
    "RETURNING " FB_COLS};

apr_status_t trv_fbooking_canceled(trv_dbc *c, apr_pool_t *p, const char *id, int attempt,
                                   const char *cancellation_json, trv_fbooking **out)
{
    return one_booking(c, p, &canceled_stmt, 0, out,
                       TRV_DB_ARGS(cancellation_json, id, apr_itoa(p, attempt)));
}

static const trv_stmt cancel_rejected_stmt = {"trv_flight_cancel_rejected",
    "UPDATE flight_bookings b SET status = 'CONFIRMED', failure = %s::jsonb, "
    "updated_at = trv_now() "
    "WHERE b.id = %s AND b.status = 'CANCEL_IN_PROGRESS' AND b.cancel_attempt = %s::int "
    "RETURNING " FB_COLS};

apr_status_t trv_fbooking_cancel_rejected(trv_dbc *c, apr_pool_t *p, const char *id,
                                          int attempt, const char *failure_json,
                                          trv_fbooking **out)
{
    return one_booking(c, p, &cancel_rejected_stmt, 0, out,
                       TRV_DB_ARGS(failure_json, id, apr_itoa(p, attempt)));
}

/* ---- order sync ---- */

static const trv_stmt set_changes_stmt = {"trv_flight_set_changes",
    "UPDATE flight_bookings b SET airline_initiated_changes = %s::jsonb, "
    "synced_at = clock_timestamp(), updated_at = trv_now() WHERE b.id = %s "
    "RETURNING " FB_COLS};

apr_status_t trv_fbooking_set_changes(trv_dbc *c, apr_pool_t *p, const char *id,
                                      const char *changes_json, trv_fbooking **out)
{
    return one_booking(c, p, &set_changes_stmt, 0, out, TRV_DB_ARGS(changes_json, id));
}

/* ---- payments ---- */

/* flight_payments (sql/010): one charge per booking; the logic is
 * payment/payments.c's. */
static const trv_payments_sql payments_sql = TRV_PAYMENTS_SQL("flight", "flight_payments",
                                                              "(booking_id)");

const trv_payments_kind trv_fbooking_payments = {&payments_sql};

/* ---- refunds ---- */

/* flight_refunds: one refund per payment (sql/010); the logic is
 * payment/refunds.c's. */
static const trv_refunds_sql refunds_sql = TRV_REFUNDS_SQL("flight", "flight_refunds",
    "flight_payments", "NULL::text",
    "INSERT INTO flight_refunds (id, booking_id, payment_id, currency, amount, status) "
    "VALUES (%s, %s, %s, %s, %s::numeric, 'PENDING') ON CONFLICT (payment_id) DO NOTHING");

const trv_refunds_kind trv_fbooking_refunds = {"booking", &refunds_sql, &trv_fjob_refund, 0};
