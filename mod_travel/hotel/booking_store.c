/* Hotel booking statements (booking_store.h). */
#include "booking_store.h"
#include "cancellation_store.h"
#include "core/json.h"
#include "lifecycle/moves.h"
#include "lifecycle/moves_sql.h"
#include "lifecycle/row.h"
#include "payment/payments_sql.h"

#include <apr_strings.h>
#include <string.h>

/* Every column a trv_hbooking holds, from a booking aliased b. */
#define HB_COLS \
    TRV_LIFECYCLE_ROW_COLS("offer_expires_at") ", " \
    "b.reference_id, b.hotel_id, b.supplier_hotel_id, b.hotel::text AS hotel, " \
    "b.check_in::text AS check_in, b.check_out::text AS check_out, " \
    "b.due_at_property::text AS due_at_property, b.promotions::text AS promotions, " \
    "b.loyalty::text AS loyalty, b.customer::text AS customer, " \
    "trv_ts(b.offer_expires_at) AS offer_expires_at, b.supplier_prebook_id, " \
    "b.supplier_booking_id, b.hotel_confirmation_code, b.hotel_remarks"

#define ROOM_COLS \
    "r.id, r.booking_id, r.position, r.name, r.board, r.board_name, r.adults, " \
    "r.children::text AS children, r.currency, r.total_amount::text AS total_amount, " \
    "r.due_at_property::text AS due_at_property, " \
    "r.cancellation_policy::text AS cancellation_policy, r.promotions::text AS promotions, " \
    "r.supplier_reference_number, r.hotel_confirmation_code, " \
    "trv_ts(r.canceled_at) AS canceled_at"

#define GUEST_COLS \
    "g.id, g.booking_id, g.room_id, g.position, g.first_name, g.last_name, g.type, g.is_lead"

trv_hb_status trv_hbooking_status(const trv_hbooking *b)
{
    return b->past_expiry ? TRV_HB_EXPIRED : b->status;
}

TRV_LIFECYCLE_ROW_ENUMS_ASSERT(trv_hbooking);

/* A trv_hbooking's own columns, HB_COLS' beyond the shared ones. */
#define T(f) TRV_LIFECYCLE_ROW_COL(trv_hbooking, TEXT, f)
#define J(f) TRV_LIFECYCLE_ROW_COL(trv_hbooking, JSON, f)
static const trv_lifecycle_row_col own_cols[] = {
    T(reference_id), T(hotel_id), T(supplier_hotel_id), J(hotel), T(check_in), T(check_out),
    J(due_at_property), J(promotions), J(loyalty), J(customer), T(offer_expires_at),
    T(supplier_prebook_id), T(supplier_booking_id), T(hotel_confirmation_code),
    T(hotel_remarks), {NULL}};
#undef T
#undef J

static const trv_lifecycle_row_shape row_shape =
    TRV_LIFECYCLE_ROW_SHAPE(trv_hbooking, &trv_hb_status_table, &trv_hb_phase_table, own_cols);

static trv_hroom room_at(apr_pool_t *p, const trv_rows *r, int i)
{
    trv_hroom m;
    memset(&m, 0, sizeof(m));
    m.id = trv_rows_get(r, i, "id");
    m.position = trv_rows_int(r, i, "position", 0);
    m.name = trv_rows_get(r, i, "name");
    m.board = trv_rows_get(r, i, "board");
    m.board_name = trv_rows_get(r, i, "board_name");
    m.adults = trv_rows_int(r, i, "adults", 0);
    m.children = trv_json_column(p, r, i, "children");
    m.currency = trv_rows_get(r, i, "currency");
    m.total_amount = trv_rows_get(r, i, "total_amount");
    m.due_at_property = trv_json_column(p, r, i, "due_at_property");
    m.cancellation_policy = trv_json_column(p, r, i, "cancellation_policy");
    m.promotions = trv_json_column(p, r, i, "promotions");
    m.supplier_reference_number = trv_rows_get(r, i, "supplier_reference_number");
    m.hotel_confirmation_code = trv_rows_get(r, i, "hotel_confirmation_code");
    m.canceled_at = trv_rows_get(r, i, "canceled_at");
    m.guests = apr_array_make(p, 2, sizeof(trv_hguest));
    return m;
}

static trv_hguest guest_at(const trv_rows *r, int i)
{
    trv_hguest g;
    g.id = trv_rows_get(r, i, "id");
    g.room_id = trv_rows_get(r, i, "room_id");
    g.position = trv_rows_int(r, i, "position", 0);
    g.first_name = trv_rows_get(r, i, "first_name");
    g.last_name = trv_rows_get(r, i, "last_name");
    g.type = trv_rows_get(r, i, "type");
    g.is_lead = trv_rows_bool(r, i, "is_lead");
    return g;
}

static const char *us(apr_pool_t *p, apr_interval_time_t t)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)t);
}

/* ---- parts: rooms, guests, payments of one or many bookings ---- */

static const trv_stmt rooms_stmt = {"trv_hotel_rooms_of",
    "SELECT " ROOM_COLS " FROM hotel_booking_rooms r WHERE r.booking_id = ANY (%s::text[]) "
    "ORDER BY r.booking_id, r.position"};
static const trv_stmt guests_stmt = {"trv_hotel_guests_of",
    "SELECT " GUEST_COLS " FROM hotel_booking_guests g "
    "WHERE g.booking_id = ANY (%s::text[]) ORDER BY g.room_id, g.position"};

/* Fills rooms, guests and payments of the bookings in `by_id` (id ->
 * trv_hbooking*), whose ids are the text[] literal ids. */
static apr_status_t load_parts(trv_dbc *c, apr_pool_t *p, const char *ids, apr_hash_t *by_id)
{
    trv_rows *rows, *guests;
    apr_hash_t *room_by_id = apr_hash_make(p), *pays, *cans;
    apr_hash_index_t *hi;
    apr_status_t rv;
    int i;

    for (hi = apr_hash_first(p, by_id); hi; hi = apr_hash_next(hi)) {
        trv_hbooking *b = apr_hash_this_val(hi);
        b->rooms = apr_array_make(p, 2, sizeof(trv_hroom));
        b->payments = apr_array_make(p, 1, sizeof(trv_hpayment));
    }
    if ((rv = trv_db_select(c, p, &rooms_stmt, &rows, TRV_DB_ARGS(ids))) != APR_SUCCESS ||
        (rv = trv_db_select(c, p, &guests_stmt, &guests, TRV_DB_ARGS(ids))) != APR_SUCCESS ||
        (rv = trv_payments_of(&trv_hbooking_payments, c, p, ids, &pays)) != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->n; i++) {
        trv_hbooking *b = apr_hash_get(by_id, trv_rows_get(rows, i, "booking_id"),
                                       APR_HASH_KEY_STRING);
        if (b) {
            trv_hroom *m = apr_array_push(b->rooms);
            *m = room_at(p, rows, i);
            apr_hash_set(room_by_id, m->id, APR_HASH_KEY_STRING, m);
        }
    }
    for (i = 0; i < guests->n; i++) {
        trv_hroom *m = apr_hash_get(room_by_id, trv_rows_get(guests, i, "room_id"),
                                    APR_HASH_KEY_STRING);
        if (m) {
            APR_ARRAY_PUSH(m->guests, trv_hguest) = guest_at(guests, i);
        }
    }
    for (hi = apr_hash_first(p, by_id); hi; hi = apr_hash_next(hi)) {
        trv_hbooking *b = apr_hash_this_val(hi);
        b->payments = trv_payments_for(p, pays, b->id);
    }
    /* Cancellation attempts (cancellation_store.c): part of the booking as shown. */
    if ((rv = trv_hcancellation_list_many(c, p, ids, &cans)) != APR_SUCCESS) {
        return rv;
    }
    for (hi = apr_hash_first(p, by_id); hi; hi = apr_hash_next(hi)) {
        trv_hbooking *b = apr_hash_this_val(hi);
        b->cancellations = apr_hash_get(cans, b->id, APR_HASH_KEY_STRING);
        if (!b->cancellations) {
            b->cancellations = apr_array_make(p, 1, sizeof(trv_hcancel));
        }
    }
    return APR_SUCCESS;
}

apr_status_t trv_hbooking_load_parts(trv_dbc *c, apr_pool_t *p, trv_hbooking *b)
{
    apr_hash_t *one = apr_hash_make(p);
    apr_hash_set(one, b->id, APR_HASH_KEY_STRING, b);
    /* Ids are [A-Za-z0-9_-]: safe inside an array literal. */
    return load_parts(c, p, apr_psprintf(p, "{%s}", b->id), one);
}

/* A moved booking made whole (lifecycle/moves.h): its rooms, guests,
 * payments and cancellations. */
static apr_status_t whole(trv_dbc *c, apr_pool_t *p, void *b)
{
    return trv_hbooking_load_parts(c, p, b);
}

/* The guarded moves every domain makes (lifecycle/moves.h) over
 * hotel_bookings: scoped to the organization, expiring at the offer's
 * expiry, a phase move setting the supplier's booking id; updated_at is
 * the table's trigger's (sql/100). */
static const trv_lifecycle_moves_sql moves_sql = TRV_MOVES_SQL("hotel", "hotel_bookings",
    HB_COLS, "b.org_id = %s", "offer_expires_at",
    "supplier_booking_id = coalesce(%s, b.supplier_booking_id)", "");

static const trv_lifecycle_moves moves = {&moves_sql, &trv_hb_phase_table, 0, 1, 1, &row_shape,
                                          whole};

/* Runs a statement returning booking rows: *out the first, whole, or NULL. */
TRV_LIFECYCLE_MOVES_ONE(one_booking, trv_hbooking, moves)

/* trv_hbooking_prebook_failed ... _synced over them (booking_store.h). */
TRV_LIFECYCLE_MOVES_TYPED(trv_hbooking, trv_hbooking, trv_hb_phase, moves, TRV_LIFECYCLE_DEFINED,
                          , NULL)

/* Runs a statement that changes a booking and returns its row; *out is
 * the booking read again, whole, or NULL. Read again because a change to
 * its rooms in the same statement raises the revision after RETURNING was
 * computed (the parts' triggers run at the statement's end): the revision
 * returned must be the one a rendering of what is returned belongs to. */
static apr_status_t moved_booking(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                                  trv_hbooking **out, int nargs, const char *const *args)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, st, &rows, nargs, args);
    *out = NULL;
    if (rv != APR_SUCCESS || rows->n == 0) {
        return rv;
    }
    return trv_hbooking_get_any(c, p, trv_rows_get(rows, 0, "id"), out);
}

/* ---- reads ---- */

static const trv_stmt many_stmt = {"trv_hotel_booking_get_many",
    "SELECT " HB_COLS " FROM hotel_bookings b WHERE b.id = ANY (%s::text[])"};

apr_status_t trv_hbooking_load_many(trv_dbc *c, apr_pool_t *p, const char *ids,
                                    apr_hash_t **out)
{
    trv_rows *rows;
    apr_status_t rv;
    int i;
    *out = apr_hash_make(p);
    if ((rv = trv_db_select(c, p, &many_stmt, &rows, TRV_DB_ARGS(ids))) != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->n; i++) {
        trv_hbooking *b = trv_lifecycle_row_at(p, rows, i, &row_shape);
        apr_hash_set(*out, b->id, APR_HASH_KEY_STRING, b);
    }
    return load_parts(c, p, ids, *out);
}

/* The stored rendering as the list's statements read it (booking_query.c). */
apr_status_t trv_hbooking_get_doc(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                  const char *id, const char **doc)
{
    return trv_list_page_doc(&trv_hbooking_list, c, p, org_id, NULL, id, doc);
}

/* trv_hbooking_keep_docs and _keep_head (booking_store.h). */
TRV_LIST_PAGE_KEEP_TYPED(trv_hbooking, trv_hbooking_list, TRV_LIFECYCLE_DEFINED, , NULL)

/* ---- prebook ---- */

/* One statement: the booking, its rooms and their guests go in together or
 * not at all (a taken key inserts no booking, and so no rooms). */
static const trv_stmt insert_stmt = {"trv_hotel_prebook_insert",
    "WITH b AS (INSERT INTO hotel_bookings (" TRV_LIFECYCLE_ROW_NEW_COLS ", reference_id, "
    "hotel_id, supplier_hotel_id, hotel, check_in, check_out, currency, total_amount, "
    "offer_expires_at, contact, loyalty, customer) VALUES (" TRV_LIFECYCLE_ROW_NEW_VALUES
    ", %s, %s, %s, %s::jsonb, %s::date, %s::date, %s, %s::numeric, %s::timestamptz, "
    "%s::jsonb, %s::jsonb, %s::jsonb) "
    "ON CONFLICT (org_id, idempotency_key) DO NOTHING RETURNING id), "
    "x AS (SELECT e.value AS room FROM jsonb_array_elements(%s::jsonb) e), "
    "r AS (INSERT INTO hotel_booking_rooms (id, booking_id, position, name, board, "
    "board_name, adults, children, currency, total_amount, due_at_property, "
    "cancellation_policy, promotions) "
    "SELECT x.room->>'id', b.id, (x.room->>'position')::int, x.room->>'name', "
    "x.room->>'board', x.room->>'board_name', (x.room->>'adults')::int, "
    "coalesce(x.room->'children', '[]'), x.room->>'currency', "
    "(x.room->>'total_amount')::numeric, nullif(x.room->'due_at_property', 'null'), "
    "nullif(x.room->'cancellation_policy', 'null'), nullif(x.room->'promotions', 'null') "
    "FROM b, x RETURNING id), "
    "g AS (INSERT INTO hotel_booking_guests (id, booking_id, room_id, position, first_name, "
    "last_name, type, is_lead) "
    "SELECT gu.value->>'id', b.id, x.room->>'id', (gu.value->>'position')::int, "
    "gu.value->>'first_name', gu.value->>'last_name', gu.value->>'type', "
    "coalesce((gu.value->>'is_lead')::boolean, false) "
    "FROM b, x, jsonb_array_elements(x.room->'guests') gu RETURNING id) "
    "SELECT b.id, (SELECT count(*) FROM r) AS rooms, (SELECT count(*) FROM g) AS guests "
    "FROM b"};

apr_status_t trv_hbooking_insert_prebook(trv_dbc *c, apr_pool_t *p, const trv_hprebook_row *r,
                                         int *inserted)
{
    return trv_lifecycle_row_insert(c, p, &insert_stmt, &r->head, inserted,
        TRV_DB_ARGS(r->reference_id, r->hotel_id, r->supplier_hotel_id, r->hotel, r->check_in,
                    r->check_out, r->currency, r->total_amount, r->offer_expires_at,
                    r->contact, r->loyalty, r->customer, r->rooms));
}

/* The rooms' new terms and the booking's in one statement. */
static const trv_stmt prebook_done_stmt = {"trv_hotel_prebook_done",
    "WITH r AS (UPDATE hotel_booking_rooms m SET name = coalesce(x.name, m.name), "
    "board = coalesce(x.board, m.board), board_name = coalesce(x.board_name, m.board_name), "
    "currency = coalesce(x.currency, m.currency), total_amount = x.total_amount, "
    "due_at_property = nullif(x.due_at_property, 'null'), "
    "cancellation_policy = nullif(x.cancellation_policy, 'null'), "
    "promotions = nullif(x.promotions, 'null') "
    "FROM jsonb_to_recordset(coalesce(%s::jsonb, '[]')) AS x(position int, name text, "
    "board text, board_name text, currency text, total_amount numeric, due_at_property jsonb, "
    "cancellation_policy jsonb, promotions jsonb) "
    "WHERE m.booking_id = %s AND m.position = x.position RETURNING m.id) "
    "UPDATE hotel_bookings b SET status = 'READY_FOR_COMPLETE', currency = %s, "
    "total_amount = %s::numeric, offer_expires_at = %s::timestamptz, "
    "due_at_property = %s::jsonb, cancellation_policy = %s::jsonb, promotions = %s::jsonb, "
    "hotel = coalesce(%s::jsonb, b.hotel), supplier_prebook_id = %s, "
    "supplier_data = %s::jsonb, sdk_token = %s "
    "WHERE b.id = %s AND b.status = 'PREBOOK_IN_PROGRESS' RETURNING b.id"};

apr_status_t trv_hbooking_prebook_done(trv_dbc *c, apr_pool_t *p, const char *id,
                                       const trv_hpriced *pr, trv_hbooking **out)
{
    return moved_booking(c, p, &prebook_done_stmt, out,
        TRV_DB_ARGS(pr->rooms, id, pr->currency, pr->total_amount, pr->offer_expires_at,
                    pr->due_at_property, pr->cancellation_policy, pr->promotions, pr->hotel,
                    pr->supplier_prebook_id, pr->supplier_data, pr->sdk_token, id));
}

/* A prebook whose request died (kill -9) holds its key: once every call it
 * could make has timed out (created more than `age` ago), it goes. */
static const trv_stmt prebook_stale_stmt = {"trv_hotel_prebook_abandon_stale",
    "DELETE FROM hotel_bookings WHERE id = %s AND status = 'PREBOOK_IN_PROGRESS' "
    "AND created_at < clock_timestamp() - %s::bigint * interval '1 microsecond'"};

apr_status_t trv_hbooking_prebook_abandon_stale(trv_dbc *c, apr_pool_t *p, const char *id,
                                                apr_interval_time_t age, int *deleted)
{
    return trv_db_exec(c, p, &prebook_stale_stmt, deleted, TRV_DB_ARGS(id, us(p, age)));
}

/* ---- book ---- */

static const trv_stmt revert_stmt = {"trv_hotel_book_revert",
    "WITH d AS (DELETE FROM hotel_payments WHERE booking_id = %s AND status <> 'CAPTURED' "
    "AND EXISTS (SELECT 1 FROM hotel_bookings WHERE id = %s "
    "AND status = 'COMPLETE_IN_PROGRESS' AND phase_owner IS NOT DISTINCT FROM %s)) "
    TRV_MOVES_REVERT_SQL("hotel_bookings", "") HB_COLS};

apr_status_t trv_hbooking_book_revert(trv_dbc *c, apr_pool_t *p, const char *id,
                                      const char *owner, trv_hbooking **out)
{
    return one_booking(c, p, &revert_stmt, 1, out, TRV_DB_ARGS(id, id, owner, id, owner));
}

static const trv_stmt confirm_stmt = {"trv_hotel_confirm",
    "WITH r AS (UPDATE hotel_booking_rooms m SET "
    "supplier_reference_number = coalesce(x.supplier_reference_number, "
    "m.supplier_reference_number), "
    "hotel_confirmation_code = coalesce(x.hotel_confirmation_code, m.hotel_confirmation_code), "
    "cancellation_policy = coalesce(nullif(x.cancellation_policy, 'null'), "
    "m.cancellation_policy) "
    "FROM jsonb_to_recordset(coalesce(%s::jsonb, '[]')) AS x(position int, "
    "supplier_reference_number text, hotel_confirmation_code text, "
    "cancellation_policy jsonb) "
    "WHERE m.booking_id = %s AND m.position = x.position RETURNING m.id) "
    "UPDATE hotel_bookings b SET status = 'CONFIRMED', "
    "cancellation_policy = coalesce(%s::jsonb, b.cancellation_policy), "
    "supplier_booking_id = coalesce(%s, b.supplier_booking_id), "
    "hotel_confirmation_code = coalesce(%s, b.hotel_confirmation_code), "
    "hotel_remarks = coalesce(%s, b.hotel_remarks), confirmed_at = trv_now(), "
    "book_phase = NULL, phase_owner = NULL, phase_deadline = NULL, failure = NULL, "
    "synced_at = clock_timestamp() "
    "WHERE b.id = %s AND b.status = 'COMPLETE_IN_PROGRESS' RETURNING b.id"};

apr_status_t trv_hbooking_confirm(trv_dbc *c, apr_pool_t *p, const char *id,
                                  const trv_hconfirmed *cf, trv_hbooking **out)
{
    return moved_booking(c, p, &confirm_stmt, out,
                       TRV_DB_ARGS(cf->rooms, id, cf->cancellation_policy,
                                   cf->supplier_booking_id,
                                   cf->hotel_confirmation_code, cf->hotel_remarks, id));
}

/* ---- payments ---- */

/* hotel_payments (sql/100): one charge (kind BOOK) per booking; the logic
 * is payment/payments.c's. */
static const trv_payments_sql payments_sql = TRV_PAYMENTS_SQL("hotel", "hotel_payments",
    "(booking_id) WHERE kind = 'BOOK'");

const trv_payments_kind trv_hbooking_payments = {&payments_sql};

/* ---- the hotel a booking names ---- */

static const trv_stmt hotel_stmt = {"trv_hotel_booking_hotel",
    "SELECT jsonb_build_object('id', h.id, 'name', h.name, 'address', "
    "jsonb_build_object('city', h.city, 'postal_code', nullif(h.postal_code, ''), "
    "'country_code', h.country_code))::text AS hotel FROM hotels h WHERE h.id = %s"};

apr_status_t trv_hbooking_hotel(trv_dbc *c, apr_pool_t *p, const char *hotel_id,
                                const char **hotel_json)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &hotel_stmt, &rows, TRV_DB_ARGS(hotel_id));
    *hotel_json = rv == APR_SUCCESS && rows->n == 1 ? trv_rows_get(rows, 0, "hotel") : NULL;
    return rv;
}
