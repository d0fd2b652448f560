/* POST /v1/hotel/offers: bookable prices of up to 10 hotels for one stay.
 * Hotels are named by the service's ids (hotel_ids[]) or by one supplier's
 * own ids (supplier + supplier_hotel_ids[]), never both. Each hotel is
 * priced by one supplier: the one named, or for an htl_ id the first
 * configured supplier row (registry order) that sells it. Up to
 * max_offers_per_hotel (1..25, default 5) offers a hotel, cheapest first;
 * hotels times max_offers_per_hotel at most 250 and within the supplier's
 * limits (422 naming the limit otherwise).
 *
 * Offers are not stored. Each offer_reference seals, under the server's
 * key and for the organization, what prebook needs without asking anyone:
 * the supplier and its reference of the offer, the hotel, the stay (dates,
 * rooms and guests), the market (nationality, residence, currency), the
 * total and the expiry. The suppliers are asked at once (fanout.h), no
 * database connection held meanwhile. */
#include "handlers.h"
#include "deadline.h"
#include "core/fanout.h"
#include "input.h"
#include "seal.h"
#include "hotel_store.h"
#include "supplier.h"
#include "customer.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/json_write.h"
#include "core/metrics.h"
#include "core/validate.h"

#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

#define MAX_HOTELS 10
#define MAX_PER_HOTEL 25
#define DEFAULT_PER_HOTEL 5
#define MAX_OFFERS 250

/* One hotel to price. */
typedef struct target {
    const char *hotel_id;            /* NULL when no search has seen the hotel */
    const trv_supplier *row;         /* who prices it; NULL: nobody configured sells it */
    const char *sid;
} target;

static const unsigned char *secret(const trv_req *req)
{
    return req->env->cfg && req->env->cfg->have_secret_key ? req->env->cfg->secret_key : NULL;
}

/* The configured suppliers' bound rows, in line order. */
static const trv_supplier *rows(const trv_req *req)
{
    return trv_hotel_supplier_rows(req->env);
}

static int configured(const trv_req *req, const trv_supplier *row)
{
    return trv_config_hotel_upstream(req->env->cfg, row->name) != NULL;
}

/* A supplier's id: letters, digits, - and _ (what the three send). */
static int sid_ok(const char *s)
{
    size_t n = strlen(s), i;
    if (n < 1 || n > 64) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (!(apr_isalnum(s[i]) || s[i] == '-' || s[i] == '_')) {
            return 0;
        }
    }
    return 1;
}

/* A list of 1..MAX_HOTELS distinct strings each passing ok. */
static const char **read_ids(trv_req *req, const char *field, int (*ok)(const char *),
                             const char *what, int *n, trv_errs *errs)
{
    const json_t *list = json_object_get(req->json, field), *v;
    const char **out;
    size_t i, k;
    *n = 0;
    if (!json_is_array(list) || json_array_size(list) < 1) {
        trv_errs_add(errs, field, "must list 1 to %d %s", MAX_HOTELS, what);
        return NULL;
    }
    if (json_array_size(list) > MAX_HOTELS) {
        trv_errs_add(errs, field, "lists %d hotels: at most %d hotels per offers request",
                     (int)json_array_size(list), MAX_HOTELS);
        return NULL;
    }
    out = apr_pcalloc(req->pool, sizeof(char *) * (json_array_size(list) + 1));
    json_array_foreach(list, i, v) {
        const char *at = apr_psprintf(req->pool, "%s[%d]", field, (int)i);
        if (!json_is_string(v) || !ok(json_string_value(v))) {
            trv_errs_add(errs, at, "must be %s", what);
            continue;
        }
        for (k = 0; k < i; k++) {
            if (out[k] && strcmp(out[k], json_string_value(v)) == 0) {
                trv_errs_add(errs, at, "is listed twice");
            }
        }
        out[i] = json_string_value(v);
    }
    *n = (int)json_array_size(list);
    return out;
}

static int htl_ok(const char *s)
{
    return trv_id_valid(s, "htl");
}

static int read_targets_input(trv_req *req, const trv_supplier **only, const char ***ids,
                              int *n, long *per_hotel, trv_hotel_stay *stay, trv_errs *errs)
{
    static const char *const known[] = {"hotel_ids", "supplier", "supplier_hotel_ids",
                                        "check_in", "check_out", "occupancy",
                                        "guest_nationality", "guest_residence", "currency",
                                        "max_offers_per_hotel", NULL};
    const json_t *max = json_object_get(req->json, "max_offers_per_hotel");
    int by_htl = json_object_get(req->json, "hotel_ids") != NULL;
    int by_sup = json_object_get(req->json, "supplier") || json_object_get(req->json,
                                                                            "supplier_hotel_ids");
    const char *sup;

    trv_json_known(req->json, NULL, known, errs);
    *only = NULL;
    *ids = NULL;
    if (by_htl == by_sup) {
        trv_errs_add(errs, by_htl ? "hotel_ids" : "hotel_ids",
                     "give hotel_ids, or supplier and supplier_hotel_ids, not both");
    }
    else if (by_htl) {
        *ids = read_ids(req, "hotel_ids", htl_ok, "hotel ids (htl_...)", n, errs);
    }
    else {
        sup = trv_json_req_str(req->json, "supplier", "supplier", 1, 1, 32, errs);
        if (sup && !(*only = trv_supplier_find(rows(req), sup))) {
            const trv_supplier *row;
            const char *names = "";
            for (row = rows(req); row && row->name; row++) {
                names = apr_pstrcat(req->pool, names, *names ? ", " : "", row->name, NULL);
            }
            trv_errs_add(errs, "supplier", "must be one of %s", names);
        }
        *ids = read_ids(req, "supplier_hotel_ids", sid_ok,
                        "the supplier's hotel ids (letters, digits, - and _)", n, errs);
    }
    *per_hotel = DEFAULT_PER_HOTEL;
    if (max && (!json_is_integer(max) || json_integer_value(max) < 1
                || json_integer_value(max) > MAX_PER_HOTEL)) {
        trv_errs_add(errs, "max_offers_per_hotel", "must be an integer from 1 to %d",
                     MAX_PER_HOTEL);
    }
    else if (max) {
        *per_hotel = (long)json_integer_value(max);
    }
    if (*ids && *n * *per_hotel > MAX_OFFERS) {
        trv_errs_add(errs, "max_offers_per_hotel", "%d hotels times %ld offers is more than %d "
                     "offers per request", *n, *per_hotel, MAX_OFFERS);
    }
    trv_hotel_read_stay(req->pool, req->json, (long)(apr_time_sec(apr_time_now()) / 86400),
                        stay, errs);
    return !trv_errs_any(errs);
}

/* The supplier's own limits for the hotels it is given. */
static void check_row_limits(const trv_supplier *row, int hotels, long per_hotel,
                             const trv_hotel_stay *stay, const char *field, trv_errs *errs)
{
    const trv_supplier_limits *l = &row->limits;
    if (l->max_hotels_per_offers_request > 0 && hotels > l->max_hotels_per_offers_request) {
        trv_errs_add(errs, field, "%s prices at most %d hotels per offers request", row->name,
                     l->max_hotels_per_offers_request);
    }
    if (l->max_offers_per_request > 0 && hotels * per_hotel > l->max_offers_per_request) {
        trv_errs_add(errs, "max_offers_per_hotel", "%s returns at most %d offers per request",
                     row->name, l->max_offers_per_request);
    }
    trv_hotel_check_nights(stay, row, errs);
}

static const char *occupancy_text(apr_pool_t *p, const trv_hotel_stay *stay)
{
    const char *s = "";
    int i, k;
    for (i = 0; i < stay->n_rooms; i++) {
        s = apr_psprintf(p, "%s%s%d", s, i ? ";" : "", stay->rooms[i].adults);
        for (k = 0; k < stay->rooms[i].n_children; k++) {
            s = apr_psprintf(p, "%s%c%d", s, k ? ',' : '-', stay->rooms[i].ages[k]);
        }
    }
    return s;
}

/* One offer written as the answer's next value: its document's members
 * (the adapter's), then the sealed reference and who sells it. Written as
 * text, not added to the adapter's tree and the tree printed: the five
 * members' values and hashtable inserts, and the whole answer's tree
 * walked twice more (printed, then freed), were 3 % of the request's
 * instructions (docs/performance.md, "The eleventh pass"). The document
 * is read, never changed, so an offer shown twice needs no copy. */
static void render(trv_jtext *out, trv_req *req, const trv_hotel_stay *stay,
                   const char *occupancy, const target *t, const trv_hotel_offer *o)
{
    const char *key;
    json_t *v;
    const char *payload = apr_psprintf(
        req->pool, "1|%s|%s|%s|%s|%s|%s|%s|%s|%s|%" APR_INT64_T_FMT "|%" APR_INT64_T_FMT "|%s",
        t->row->name, o->sid, t->hotel_id ? t->hotel_id : "", stay->check_in, stay->check_out,
        occupancy, stay->nationality, stay->residence, stay->currency,
        o->total_minor, (apr_int64_t)apr_time_sec(o->expires_at), o->ref);
    trv_jtext_obj(out);
    json_object_foreach(o->doc, key, v) {
        trv_jtext_key(out, key);
        trv_json_write_to(out, v);
    }
    trv_jtext_kstr(out, "offer_reference",
                   trv_hotel_seal(req->pool, secret(req), req->org_id, "hotel-offer", payload));
    trv_jtext_kstr(out, "hotel_id", t->hotel_id);
    trv_jtext_kstr(out, "supplier", t->row->name);
    trv_jtext_kstr(out, "supplier_hotel_id", o->sid);
    trv_jtext_kstr(out, "expires_at", trv_time_format(req->pool, o->expires_at));
    trv_jtext_end(out);
}

/* Fills the targets: who prices each hotel. */
static int resolve(trv_req *req, trv_resp *resp, const trv_supplier *only,
                   const char *const *ids, int n, target *tg, trv_errs *errs)
{
    trv_rows *r;
    int i, k;
    if (only) {
        if (!trv_hhotel_ids_of(req, resp, only->name, ids, n, &r)) {
            return 0;
        }
        for (i = 0; i < n; i++) {
            tg[i].row = only;
            tg[i].sid = ids[i];
            for (k = 0; k < r->n; k++) {
                if (strcmp(trv_rows_get(r, k, "supplier_hotel_id"), ids[i]) == 0) {
                    tg[i].hotel_id = trv_rows_get(r, k, "hotel_id");
                }
            }
        }
        return 1;
    }
    if (!trv_hhotel_sellers(req, resp, ids, n, &r)) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        const trv_supplier *row;
        int known = 0;
        tg[i].hotel_id = ids[i];
        /* Registry order: the first configured supplier that sells it. */
        for (row = rows(req); row && row->name && !tg[i].row; row++) {
            for (k = 0; k < r->n; k++) {
                if (strcmp(trv_rows_get(r, k, "hotel_id"), ids[i]) != 0) {
                    continue;
                }
                known = 1;
                if (strcmp(trv_rows_get(r, k, "supplier"), row->name) == 0
                    && configured(req, row)) {
                    tg[i].row = row;
                    tg[i].sid = trv_rows_get(r, k, "supplier_hotel_id");
                }
            }
        }
        if (!known) {
            trv_errs_add(errs, apr_psprintf(req->pool, "hotel_ids[%d]", i),
                         "is not a hotel id this service gave (search first)");
        }
    }
    return 1;
}

/* One supplier's hotels priced, on its own thread (fanout.h). */
typedef struct price_job {
    const trv_supplier *row;
    const trv_hotel_supplier *adapter;
    trv_hotel_ctx ctx;
    const trv_hotel_stay *stay;
    const char **sids;
    int count, per_hotel;
    apr_array_header_t *offers;
    trv_hotel_err err;
    trv_up_status st;
} price_job;

static void price_one(void *baton)
{
    price_job *j = baton;
    trv_metrics_upstream_event(j->ctx.env->metrics,
                               apr_pstrcat(j->ctx.pool, "hotel ", j->row->name, NULL),
                               TRV_METRIC_SEARCH);
    j->st = j->adapter->offers(&j->ctx, j->stay, j->sids, j->count, j->per_hotel, &j->offers,
                               &j->err);
}

void trv_hotel_offers(trv_req *req, trv_resp *resp)
{
    trv_errs *errs = trv_errs_new(req->pool);
    const trv_supplier *only, *row;
    const char **ids;
    trv_hotel_stay stay;
    trv_hcustomer customer;
    long per_hotel;
    target *tg;
    trv_jtext data;
    const char *text;
    apr_hash_t *priced = apr_hash_make(req->pool);
    trv_hotel_part parts[16];
    json_t *unanswered;
    const char *occupancy;
    apr_time_t deadline;
    void *batons[16];
    int n = 0, i, k, nb;

    trv_hcustomer_read(req, &customer, errs);
    if (!read_targets_input(req, &only, &ids, &n, &per_hotel, &stay, errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    tg = apr_pcalloc(req->pool, sizeof(target) * (apr_size_t)n);
    if (!resolve(req, resp, only, ids, n, tg, errs)) {
        return;
    }
    for (row = rows(req); row && row->name; row++) {
        int count = 0;
        for (i = 0; i < n; i++) {
            count += tg[i].row == row;
        }
        if (count) {
            check_row_limits(row, count, per_hotel, &stay,
                             only ? "supplier_hotel_ids" : "hotel_ids", errs);
        }
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (only && !configured(req, only)) {
        trv_fail(req, resp, 503, "unavailable", "%s is not configured on this server",
                 only->name);
        return;
    }
    /* One call per supplier, all at once, holding no connection, until
     * the search deadline: hotels of a supplier that did not answer by
     * then have no offers, and meta names it (deadline.h). */
    deadline = trv_hotel_deadline(req->env);
    nb = 0;
    for (row = rows(req); row && row->name; row++) {
        price_job *j = apr_pcalloc(req->pool, sizeof(*j));
        apr_pool_t *cp;
        j->sids = apr_pcalloc(req->pool, sizeof(char *) * (apr_size_t)n);
        for (i = 0; i < n; i++) {
            if (tg[i].row == row) {
                j->sids[j->count++] = tg[i].sid;
            }
        }
        if (!j->count || !(cp = trv_call_pool(req->pool))
            || !(j->adapter = trv_hotel_supplier_for(req->env, cp, req->request_id, row,
                                                     &j->ctx))) {
            continue;
        }
        j->ctx.deadline = deadline;
        trv_hcustomer_apply(&j->ctx, &customer);
        j->row = row;
        j->stay = &stay;
        j->per_hotel = (int)per_hotel;
        batons[nb++] = j;
    }
    trv_fanout(req->pool, nb, price_one, batons);
    for (i = 0; i < nb; i++) {
        price_job *j = batons[i];
        parts[i].supplier = j->row->name;
        parts[i].st = j->st;
        parts[i].message = j->err.message;
    }
    if (!trv_hotel_parts_settle(req, resp, parts, nb, 0, &unanswered)) {
        return;
    }
    for (i = 0; i < nb; i++) {
        price_job *j = batons[i];
        if (j->st == TRV_UP_OK) {
            apr_hash_set(priced, j->row->name, APR_HASH_KEY_STRING, j->offers);
        }
    }
    /* In the order the hotels were named, each hotel's cheapest first. */
    occupancy = occupancy_text(req->pool, &stay);
    trv_jtext_init(&data, req->pool, 64 * 1024);
    trv_jtext_arr(&data);
    for (i = 0; i < n; i++) {
        apr_array_header_t *offers = tg[i].row
            ? apr_hash_get(priced, tg[i].row->name, APR_HASH_KEY_STRING) : NULL;
        for (k = 0; offers && k < offers->nelts; k++) {
            const trv_hotel_offer *o = &APR_ARRAY_IDX(offers, k, trv_hotel_offer);
            if (strcmp(o->sid, tg[i].sid) == 0) {
                render(&data, req, &stay, occupancy, &tg[i], o);
            }
        }
    }
    trv_jtext_end(&data);
    if (!(text = trv_jtext_done(&data, NULL))) {
        json_decref(unanswered);
        trv_fail(req, resp, 500, "internal_error", "An internal error occurred");
        return;
    }
    trv_ok_text(req, resp, 200, text, unanswered ? json_pack("{s:o}", "unanswered_suppliers",
                                                             unanswered) : NULL);
}
