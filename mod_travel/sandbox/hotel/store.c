/* What the hotel suppliers share: triggers, price factors and the price
 * control endpoint, and the bookings; see hotel.h.
 *
 *   POST   /sandbox/hotel-prices  {supplier, supplier_hotel_id, factor}
 *   DELETE /sandbox/hotel-prices  every factor goes */
#include "hotel.h"
#include "sandbox/changes.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static const trv_stmt factors_stmt = {"sbx_h_factors",
    "SELECT supplier_hotel_id, factor_permille FROM sandbox.hotel_price_factors "
    "WHERE supplier = %s"};
static const trv_stmt factor_set = {"sbx_h_factor_set",
    "INSERT INTO sandbox.hotel_price_factors (supplier, supplier_hotel_id, factor_permille) "
    "VALUES (%s, %s, %s::int) ON CONFLICT (supplier, supplier_hotel_id) DO UPDATE "
    "SET factor_permille = EXCLUDED.factor_permille, created_at = clock_timestamp()"};
static const trv_stmt factor_clear = {"sbx_h_factor_clear",
    "DELETE FROM sandbox.hotel_price_factors"};

static const trv_stmt insert_stmt = {"sbx_h_booking_insert",
    "INSERT INTO sandbox.hotel_bookings (id, supplier, client_reference, prebook_id, status, "
    "trigger, restricted, cancel_fails, currency, total_minor, doc, confirm_due_at) VALUES "
    "(%s, %s, %s, %s, %s, %s, %s::boolean, %s::boolean, %s, %s::bigint, %s::jsonb, "
    "clock_timestamp() + %s::bigint * interval '1 millisecond') "
    "ON CONFLICT DO NOTHING RETURNING id"};
/* The booking that holds the prebook or the client reference; the one of
 * the same prebook first (a retry of that book). */
static const trv_stmt dup_stmt = {"sbx_h_booking_dup",
    "SELECT id, prebook_id = %s AS same_prebook FROM sandbox.hotel_bookings "
    "WHERE supplier = %s AND (prebook_id = %s OR client_reference = %s) "
    "ORDER BY prebook_id = %s DESC NULLS LAST LIMIT 1"};
static const trv_stmt settle_stmt = {"sbx_h_booking_settle",
    "UPDATE sandbox.hotel_bookings SET status = 'confirmed', updated_at = confirm_due_at "
    "WHERE id = %s AND status = 'pending' AND confirm_due_at <= clock_timestamp()"};
static const trv_stmt get_stmt = {"sbx_h_booking_get",
    "SELECT id, status, client_reference, prebook_id, trigger, restricted, cancel_fails, "
    "currency, total_minor, doc::text AS doc, trv_ts(created_at) AS created_at, "
    "trv_ts(updated_at) AS updated_at, trv_ts(cancelled_at) AS cancelled_at, "
    "cancellation::text AS cancellation FROM sandbox.hotel_bookings "
    "WHERE id = %s AND supplier = %s"};
static const trv_stmt by_ref_stmt = {"sbx_h_booking_by_ref",
    "SELECT id FROM sandbox.hotel_bookings WHERE supplier = %s AND client_reference = %s "
    "ORDER BY created_at, id"};
static const trv_stmt cancel_stmt = {"sbx_h_booking_cancel",
    "UPDATE sandbox.hotel_bookings SET status = 'cancelled', cancelled_at = clock_timestamp(), "
    "updated_at = clock_timestamp(), cancellation = %s::jsonb "
    "WHERE id = %s AND status = 'confirmed' RETURNING id"};

static const char sup_letter[SBX_HOTEL_SUPPLIERS][2] = {"A", "B", "C"};

/* ---- triggers ---- */

void sbx_htrigger_guest(sbx_htrigger *t, const char *last_name)
{
    if (!last_name) {
        return;
    }
    if (strcasecmp(last_name, "Failbook") == 0) {
        t->failbook = 1;
    }
    else if (strcasecmp(last_name, "Async") == 0) {
        t->async = 1;
    }
    else if (strcasecmp(last_name, "Restricted") == 0) {
        t->restricted = 1;
    }
    else if (strcasecmp(last_name, "Tightened") == 0) {
        t->tightened = 1;
    }
}

void sbx_htrigger_reference(sbx_htrigger *t, const char *ref)
{
    if (!ref) {
        return;
    }
    if (strstr(ref, "sandbox-cancel-fails")) {
        t->cancel_fails = 1;
    }
    if (strstr(ref, "sandbox-unknown")) {
        t->unknown = 1;
    }
}

static const char *trigger_text(apr_pool_t *p, const sbx_htrigger *t)
{
    const char *s = apr_pstrcat(p, t->failbook ? "failbook " : "", t->async ? "async " : "",
                                t->restricted ? "restricted " : "",
                                t->tightened ? "tightened " : "",
                                t->cancel_fails ? "cancel-fails " : "",
                                t->unknown ? "unknown " : "", NULL);
    return *s ? apr_pstrndup(p, s, strlen(s) - 1) : NULL;
}

int sbx_need_hotels(trv_req *req, trv_resp *resp)
{
    if (SBX(req)->hotels) {
        return 1;
    }
    sbx_error(req, resp, 503, "service_unavailable",
              "The sandbox has no hotel data: set TravelSandboxData");
    return 0;
}

/* ---- price factors ---- */

int sbx_hfactors(trv_req *req, trv_resp *resp, int s, apr_hash_t **out)
{
    /* Per supplier: it had no factor at that version (changes.h). */
    static sbx_none_memo none_at[3];
    apr_uint32_t v = sbx_changes_now();
    trv_dbc *c;
    trv_rows *rows;
    int i;
    *out = apr_hash_make(req->pool);
    if (sbx_changes_none(&none_at[s], v)) {
        return 0;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1700, "reading hotel price factors");
        return -1;
    }
    if (trv_db_select(c, req->pool, &factors_stmt, &rows, TRV_DB_ARGS(sup_letter[s]))
        != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1701, "reading hotel price factors");
        return -1;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        sbx_changes_note_none(&none_at[s], v);
    }
    for (i = 0; i < rows->n; i++) {
        apr_hash_set(*out, trv_rows_get(rows, i, "supplier_hotel_id"), APR_HASH_KEY_STRING,
                     (void *)(intptr_t)trv_rows_int(rows, i, "factor_permille", 1000));
    }
    return 0;
}

int sbx_hfactor_of(apr_hash_t *f, const char *sid)
{
    void *v = f && sid ? apr_hash_get(f, sid, APR_HASH_KEY_STRING) : NULL;
    return v ? (int)(intptr_t)v : 1000;
}

/* factor: a number 0.1..10, or its decimal string; permille. */
static int factor_permille(const json_t *v, int *out)
{
    apr_int64_t m;
    if (json_is_string(v)) {
        if (sbx_amount_parse(v, "KWD", &m) != 0) {   /* three decimals */
            return -1;
        }
    }
    else if (json_is_integer(v)) {
        /* Range first: a huge integer times 1000 would overflow. */
        if (json_integer_value(v) < 0 || json_integer_value(v) > SBX_FACTOR_MAX / 1000) {
            return -1;
        }
        m = (apr_int64_t)json_integer_value(v) * 1000;
    }
    else if (json_is_real(v)) {
        /* A control knob, not money: rounded to thousandths (range first:
         * llround of a huge double has no defined result). */
        if (!(json_real_value(v) >= 0.0 && json_real_value(v) <= SBX_FACTOR_MAX / 1000.0)) {
            return -1;
        }
        m = (apr_int64_t)llround(json_real_value(v) * 1000.0);
    }
    else {
        return -1;
    }
    if (m < SBX_FACTOR_MIN || m > SBX_FACTOR_MAX) {
        return -1;
    }
    *out = (int)m;
    return 0;
}

static void set_prices(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"supplier", "supplier_hotel_id", "factor", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const json_t *b = req->json, *sidv;
    const char *sid = NULL;
    int s = -1, pm = 0, hotel;
    trv_dbc *c;

    if (!json_is_object(b)) {
        trv_fail(req, resp, 400, "bad_request", "A JSON object body is required");
        return;
    }
    trv_json_known(b, NULL, known, errs);
    s = sbx_hsupplier_parse(trv_json_str(b, "supplier"));
    if (s < 0) {
        trv_errs_add(errs, "supplier", "must be SUPPLIER_A, SUPPLIER_B or SUPPLIER_C");
    }
    sidv = json_object_get(b, "supplier_hotel_id");
    if (json_is_string(sidv) && trv_printable(json_string_value(sidv), 1, 40)) {
        sid = json_string_value(sidv);
    }
    else if (json_is_integer(sidv) && json_integer_value(sidv) > 0) {
        sid = apr_psprintf(req->pool, "%" APR_INT64_T_FMT, (apr_int64_t)json_integer_value(sidv));
    }
    else {
        trv_errs_add(errs, "supplier_hotel_id", "is required: the supplier's hotel id");
    }
    if (factor_permille(json_object_get(b, "factor"), &pm) != 0) {
        trv_errs_add(errs, "factor", "must be a number from 0.1 to 10");
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!SBX(req)->hotels) {
        trv_fail(req, resp, 503, "unavailable", "The sandbox has no hotel data");
        return;
    }
    hotel = sbx_hotel_by_sid(SBX(req)->hotels, s, sid);
    if (hotel < 0) {
        trv_fail(req, resp, 404, "not_found", "SUPPLIER_%s sells no hotel %s",
                 sup_letter[s], sid);
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1702, "setting a hotel price factor");
        return;
    }
    if (trv_db_exec(c, req->pool, &factor_set, NULL,
                    TRV_DB_ARGS(sup_letter[s], sid, apr_itoa(req->pool, pm))) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1703, "setting a hotel price factor");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_changes_made();
    trv_ok(req, resp, 200, json_pack("{s:s,s:s,s:s,s:s}", "supplier", sbx_hsupplier_name(s),
                                     "supplier_hotel_id", sid, "factor",
                                     sbx_amount(req->pool, pm, "KWD"), "hotel_name",
                                     SBX(req)->hotels->hotels[hotel].name), NULL);
}

static void clear_prices(trv_req *req, trv_resp *resp)
{
    trv_dbc *c;
    int n = 0;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1704, "clearing hotel price factors");
        return;
    }
    if (trv_db_exec(c, req->pool, &factor_clear, &n, 0, NULL) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1705, "clearing hotel price factors");
        return;
    }
    trv_db_close(req->env->db, c);
    trv_ok(req, resp, 200, json_pack("{s:i}", "deleted", n), NULL);
}

const trv_route sbx_hotel_control_routes[] = {
    {"POST", "/sandbox/hotel-prices", set_prices, TRV_ROUTE_PUBLIC},
    {"DELETE", "/sandbox/hotel-prices", clear_prices, TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};

/* ---- the booking document ---- */

json_t *sbx_hbooking_doc(apr_pool_t *p, const sbx_hotels *h, const sbx_hquote *q,
                         const sbx_hprice *prices, const json_t *rooms_guests,
                         const json_t *holder)
{
    const sbx_hotel *x = &h->hotels[q->hotel];
    const sbx_room_type *rt = sbx_room_type_get(q->room);
    const sbx_board *bd = sbx_board_get(q->board);
    json_t *rooms = json_array();
    apr_int64_t total = 0, due = 0, vat = 0;
    int k, n;
    for (k = 0; k < q->n_rooms; k++) {
        const sbx_hprice *r = &prices[k];
        json_t *nightly = json_array(), *ages = json_array(), *pens = json_array();
        for (n = 0; n < q->nights; n++) {
            json_array_append_new(nightly, json_integer(r->nightly[n]));
        }
        for (n = 0; n < q->occ[k].n_children; n++) {
            json_array_append_new(ages, json_integer(q->occ[k].ages[n]));
        }
        for (n = 0; n < r->n_penalties; n++) {
            json_array_append_new(pens, json_pack("{s:I,s:I}", "from",
                                                  (json_int_t)r->penalties[n].from, "amount",
                                                  (json_int_t)r->penalties[n].amount));
        }
        json_array_append_new(rooms, json_pack(
            "{s:s,s:i,s:o,s:O,s:o,s:I,s:I,s:I,s:I,s:I,s:o,s:b,s:o,s:o}",
            "occupancy", sbx_occ_format(p, &q->occ[k]), "adults", q->occ[k].adults,
            "child_ages", ages, "guests", json_array_get(rooms_guests, (size_t)k),
            "nightly", nightly, "gross", (json_int_t)r->gross,
            "discount", (json_int_t)r->discount, "total", (json_int_t)r->total,
            "vat", (json_int_t)r->vat, "due_at_property", (json_int_t)r->due_at_property,
            "promotion", r->promo_code ? json_pack("{s:s,s:s,s:i}", "code", r->promo_code,
                                                   "name", r->promo_name, "percent",
                                                   r->promo_percent) : json_null(),
            "refundable", r->refundable,
            "deadline", r->deadline ? json_integer(r->deadline) : json_null(),
            "penalties", pens));
        total += r->total;
        due += r->due_at_property;
        vat += r->vat;
    }
    return json_pack("{s:i,s:s,s:i,s:s,s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:s,s:I,s:I,s:I,"
                     "s:O,s:o}",
                     "hotel", q->hotel, "hotel_name", x->name, "supplier", q->supplier,
                     "supplier_hotel_id", sbx_hotel_sid(p, q->supplier, q->hotel),
                     "room", q->room, "room_code", rt->code, "room_name", rt->name,
                     "board", bd->code, "board_name", bd->name,
                     "plan", q->plan == SBX_PLAN_NONREFUNDABLE ? "NRF" : "RFN",
                     "checkin", sbx_day_format(p, q->checkin),
                     "checkout", sbx_day_format(p, q->checkin + q->nights),
                     "nights", q->nights, "currency", q->currency, "total", (json_int_t)total,
                     "due_at_property", (json_int_t)due, "vat", (json_int_t)vat,
                     "holder", holder, "rooms", rooms);
}

void sbx_hdoc_tighten(json_t *doc, apr_int64_t now)
{
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(doc, "rooms"), i, r) {
        json_object_set_new(r, "refundable", json_false());
        json_object_set_new(r, "deadline", json_null());
        json_object_set_new(r, "penalties", json_pack("[{s:I,s:O}]", "from", (json_int_t)now,
                                                      "amount", json_object_get(r, "total")));
    }
    json_object_set_new(doc, "plan", json_string("NRF"));
}

void sbx_hdoc_cancel_terms(const json_t *doc, apr_int64_t t, apr_int64_t *fee,
                           apr_int64_t *refund)
{
    const json_t *rooms = json_object_get(doc, "rooms"), *r;
    size_t i, k;
    *fee = *refund = 0;
    json_array_foreach(rooms, i, r) {
        apr_int64_t total = json_integer_value(json_object_get(r, "total")), f = 0;
        const json_t *pen;
        json_array_foreach(json_object_get(r, "penalties"), k, pen) {
            apr_int64_t a = json_integer_value(json_object_get(pen, "amount"));
            if (t >= json_integer_value(json_object_get(pen, "from")) && a > f) {
                f = a;
            }
        }
        *fee += f;
        *refund += total - f;
    }
}

/* ---- bookings ---- */

apr_status_t sbx_hbooking_insert(trv_dbc *c, apr_pool_t *p, const sbx_hbooking_new *b,
                                 const char **duplicate_of, int *same_prebook)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &insert_stmt, &rows, TRV_DB_ARGS(
        b->id, sup_letter[b->supplier], b->client_reference, b->prebook_id,
        b->confirm_in > 0 ? "pending" : "confirmed", trigger_text(p, b->trigger),
        b->trigger->restricted && b->supplier == 2 ? "t" : "f",
        b->trigger->cancel_fails ? "t" : "f", b->currency,
        apr_psprintf(p, "%" APR_INT64_T_FMT, b->total), trv_json_dump(p, b->doc),
        apr_psprintf(p, "%" APR_INT64_T_FMT,
                     b->confirm_in > 0 ? (apr_int64_t)apr_time_as_msec(b->confirm_in) : 0)));
    *duplicate_of = NULL;
    *same_prebook = 0;
    if (rv == APR_SUCCESS && rows->n == 0) {
        if (trv_db_select(c, p, &dup_stmt, &rows, TRV_DB_ARGS(b->prebook_id,
                                                              sup_letter[b->supplier],
                                                              b->prebook_id,
                                                              b->client_reference,
                                                              b->prebook_id))
            != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        *duplicate_of = rows->n ? trv_rows_get(rows, 0, "id") : "";
        *same_prebook = rows->n && trv_rows_bool(rows, 0, "same_prebook");
    }
    return rv;
}

apr_status_t sbx_hbooking_get(trv_dbc *c, apr_pool_t *p, int s, const char *id,
                              trv_rows **rows)
{
    if (trv_db_exec(c, p, &settle_stmt, NULL, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return trv_db_select(c, p, &get_stmt, rows, TRV_DB_ARGS(id, sup_letter[s]));
}

apr_status_t sbx_hbooking_by_reference(trv_dbc *c, apr_pool_t *p, int s, const char *ref,
                                       trv_rows **rows)
{
    return trv_db_select(c, p, &by_ref_stmt, rows, TRV_DB_ARGS(sup_letter[s], ref));
}

apr_status_t sbx_hbooking_cancel(trv_dbc *c, apr_pool_t *p, const char *id,
                                 const json_t *cancellation, int *done)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &cancel_stmt, &rows,
                                    TRV_DB_ARGS(trv_json_dump(p, cancellation), id));
    *done = rv == APR_SUCCESS && rows->n == 1;
    return rv;
}

int sbx_hbooking_load(trv_req *req, trv_resp *resp, trv_dbc *c, int s, const char *id,
                      trv_rows **rows, json_t **doc)
{
    const char *d;
    if (sbx_hbooking_get(c, req->pool, s, id, rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1706, "reading a hotel booking");
        return 0;
    }
    if ((*rows)->n == 0) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No booking %s", id);
        return 0;
    }
    d = trv_rows_get(*rows, 0, "doc");
    *doc = trv_json_parse(req->pool, d, strlen(d), NULL);
    if (!*doc) {
        sbx_db_fail(req, resp, c, 1707, "reading a hotel booking");
        return 0;
    }
    return 1;
}

char *sbx_hid(apr_pool_t *p, const char *prefix)
{
    char s[11];
    sbx_random_chars(s, 10, "abcdefghijklmnopqrstuvwxyz0123456789");
    return apr_pstrcat(p, prefix, s, NULL);
}

json_t *sbx_hjson_amount(apr_pool_t *p, apr_int64_t minor, const char *currency)
{
    return json_string(sbx_amount(p, minor, currency));
}
