#include "api.h"
#include "store.h"
#include "core/clock.h"
#include "core/money.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <limits.h>
#include <string.h>

static const char *const statuses[] = {
    "CREATED", "PREBOOK_IN_PROGRESS", "READY_FOR_COMPLETE", "COMPLETE_IN_PROGRESS",
    "CONFIRMED", "CANCEL_IN_PROGRESS", "CANCELED", "FAILED", "EXPIRED", NULL};
static const char *const suppliers[] = {"SUPPLIER_A", "SUPPLIER_B", NULL};

static json_t *money_or_null(apr_pool_t *p, const char *amount, const char *currency)
{
    trv_money m;
    int exponent = trv_currency_exponent(currency);
    if (!amount || exponent < 0
        || trv_money_parse_decimal(amount, exponent, &m.minor) != APR_SUCCESS) {
        return json_null();
    }
    (void)p;
    memcpy(m.currency, currency, 4);
    return trv_money_json(&m);
}

/* A booking as the list shows it. */
static json_t *booking_summary(apr_pool_t *p, const trv_rows *r, int i)
{
    json_t *b = json_object();
    const char *ref = trv_rows_get(r, i, "supplier_reference");
    const char *pnr = trv_rows_get(r, i, "airline_pnr");
    json_object_set_new(b, "id", json_string(trv_rows_get(r, i, "id")));
    json_object_set_new(b, "supplier", json_string(trv_rows_get(r, i, "supplier")));
    json_object_set_new(b, "status", json_string(trv_rows_get(r, i, "status")));
    json_object_set_new(b, "total_amount",
                        money_or_null(p, trv_rows_get(r, i, "total_amount"),
                                      trv_rows_get(r, i, "currency")));
    if (ref) {
        json_object_set_new(b, "supplier_reference", json_string(ref));
    }
    if (pnr) {
        json_object_set_new(b, "airline_pnr", json_string(pnr));
    }
    json_object_set_new(b, "payments", json_array());
    json_object_set_new(b, "created_at", json_string(trv_rows_get(r, i, "created_at")));
    json_object_set_new(b, "updated_at", json_string(trv_rows_get(r, i, "updated_at")));
    return b;
}

static void list_bookings(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"limit", "offset", "status", "supplier",
        "created_from", "created_to", "supplier_reference", "sort_by", "sort_order",
        NULL};
    static const char *const sorts[] = {"created_at", "total_amount", NULL};
    static const char *const orders[] = {"asc", "desc", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    trv_flight_filter f;
    apr_time_t from = 0, to = 0;
    int has_from, has_to;
    trv_rows *rows;
    long total;
    trv_dbc *c;
    json_t *data;
    int i;

    memset(&f, 0, sizeof(f));
    trv_query_known(req->query, known, errs);
    f.limit = trv_query_int(req->query, "limit", 20, 1, 100, errs);
    f.offset = trv_query_int(req->query, "offset", 0, 0, LONG_MAX, errs);
    f.status = trv_query_enum(req->query, "status", statuses, NULL, errs);
    f.supplier = trv_query_enum(req->query, "supplier", suppliers, NULL, errs);
    f.supplier_reference = trv_query_str(req->query, "supplier_reference", 1, 200, errs);
    has_from = trv_query_instant(req->query, "created_from", 0, &from, errs);
    has_to = trv_query_instant(req->query, "created_to", 1, &to, errs);
    f.sort_by_total = strcmp(trv_query_enum(req->query, "sort_by", sorts, "created_at",
                                            errs), "total_amount") == 0;
    f.ascending = strcmp(trv_query_enum(req->query, "sort_order", orders, "desc", errs),
                         "asc") == 0;
    if (has_from && has_to && from > to) {
        trv_errs_add(errs, "created_from", "must not be after created_to");
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    f.org_id = req->org_id;
    f.user_id = req->user_id;
    f.created_from = has_from ? trv_time_format(req->pool, from) : NULL;
    f.created_to = has_to ? trv_time_format(req->pool, to) : NULL;

    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, 301, "listing flight bookings");
        return;
    }
    if (trv_flight_store_list(c, req->pool, &f, &rows, &total) != APR_SUCCESS) {
        trv_fail_db(req, resp, c, 302, "listing flight bookings");
        trv_db_close(req->env->db, c);
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    for (i = 0; i < rows->n; i++) {
        json_array_append_new(data, booking_summary(req->pool, rows, i));
    }
    trv_ok(req, resp, 200, data,
           json_pack("{s:{s:I,s:I,s:b,s:I}}", "pagination", "limit", (json_int_t)f.limit,
                     "offset", (json_int_t)f.offset, "has_more",
                     f.offset + rows->n < total, "total", (json_int_t)total));
}

static void get_booking(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_rows *row;
    trv_dbc *c;

    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, 303, "reading a flight booking");
        return;
    }
    if (trv_flight_store_get(c, req->pool, req->org_id, req->user_id, id, &row)
        != APR_SUCCESS) {
        trv_fail_db(req, resp, c, 304, "reading a flight booking");
        trv_db_close(req->env->db, c);
        return;
    }
    trv_db_close(req->env->db, c);
    if (row->n == 0) {
        trv_fail(req, resp, 404, "not_found", "No flight booking %s", id);
        return;
    }
    trv_ok(req, resp, 200, booking_summary(req->pool, row, 0), NULL);
}

const trv_route trv_flight_routes[] = {
    {"GET", "/v1/flight/bookings", list_bookings, 0},
    {"GET", "/v1/flight/bookings/{id:bkg}", get_booking, 0},
    {NULL, NULL, NULL, 0},
};
