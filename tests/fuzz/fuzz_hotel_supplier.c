/* The hotel suppliers' answers: whatever SUPPLIER_A's, SUPPLIER_B's or
 * SUPPLIER_C's hotel API sends back is read by the gateway's adapters
 * (hotel/suppliers/supplier_a.c, supplier_b.c, supplier_c.c and wire.c)
 * into found hotels with their cheapest price (search), priced offers, and
 * a booking as book's answer or a read of it states it (one parser).
 * The adapters take their HTTP client from the environment, so no
 * refactoring is needed to reach the parse step: the fake client of
 * fake_http.h answers from the input and nothing leaves the process.
 * Input: byte 0 picks the adapter and the operation (search a city,
 * search around a point, offers of three hotels, read a booking by its
 * id or, byte 2 odd, by its client reference), byte 1 the HTTP status,
 * byte 2 the stay (currency, one to three rooms, children, offers a
 * hotel), then the response bodies separated by "\n--next--\n" (a search
 * makes two to four calls). Beyond not crashing or leaking: a success
 * holds what the handlers rely on (ids, names, amounts within the money
 * range, one supplier's hotels grouped one hotel each, offers that serialize with a priced total, every amount they
 * show money in the stay's currency, one entry a room, at most the asked
 * number of offers a hotel, cheapest first; a booking's rooms' policies
 * null or with money penalties, the booking's only when every room has
 * one, each convertible to the shape a booking stores, hotel/policy.c);
 * a failure carries an error code and message. */
#include "fuzz.h"

#include "core/json.h"
#include "core/money.h"
#include "hotel/mapping.h"
#include "hotel/policy.h"
#include "hotel/supplier.h"
#include "fake_http.h"

static const char *const currencies[] = {"EUR", "GBP", "JPY", "KWD"};
static const char *const sids[3][3] = {
    {"lp19b4e", "lp2a7c1", "lp3f0d2"},   /* SUPPLIER_A's ids */
    {"100231", "100457", "101002"},      /* SUPPLIER_B's hotel codes */
    {"2093341", "2093342", "2093717"},   /* SUPPLIER_C's property ids */
};

static void stay_of(uint8_t b, trv_hotel_stay *stay)
{
    int i;
    memset(stay, 0, sizeof(*stay));
    stay->check_in = "2026-12-20";
    stay->check_out = "2026-12-23";
    stay->nights = 3;
    stay->n_rooms = 1 + ((b >> 2) & 3) % 3;
    for (i = 0; i < stay->n_rooms; i++) {
        stay->rooms[i].adults = 2 - (i == 2);
        if (i == 1) {
            stay->rooms[i].n_children = 2;
            stay->rooms[i].ages[0] = 5;
            stay->rooms[i].ages[1] = 11;
        }
    }
    memcpy(stay->currency, currencies[b & 3], 4);
    stay->nationality = "GB";
    stay->residence = "GB";
}

static int in_range(apr_int64_t minor)
{
    return minor >= -TRV_MONEY_MAX_MINOR && minor <= TRV_MONEY_MAX_MINOR;
}

/* What search does next with them: grouped into the service's hotels
 * (hotel/mapping.c). One supplier's hotels are never one hotel, whatever
 * codes, names and places it sends: one group each. */
static void check_found(apr_pool_t *p, const trv_hotel_supplier *sup,
                        const apr_array_header_t *found)
{
    apr_array_header_t *ptrs, *groups;
    int i;
    FZ_ASSERT(found != NULL);
    ptrs = apr_array_make(p, found->nelts + 1, sizeof(trv_hotel_found *));
    for (i = 0; i < found->nelts; i++) {
        const trv_hotel_found *f = &APR_ARRAY_IDX(found, i, trv_hotel_found);
        FZ_ASSERT(f->supplier && strcmp(f->supplier, sup->name) == 0);
        FZ_ASSERT(f->sid && f->name && f->country_code);
        FZ_ASSERT(!f->priced || in_range(f->total_minor));
        APR_ARRAY_PUSH(ptrs, const trv_hotel_found *) = f;
    }
    groups = trv_hotel_group_found(p, ptrs);
    FZ_ASSERT(groups->nelts == found->nelts);
    for (i = 0; i < groups->nelts; i++) {
        const trv_hotel_group *g = APR_ARRAY_IDX(groups, i, const trv_hotel_group *);
        const trv_hotel_found *only = APR_ARRAY_IDX(g->members, 0, const trv_hotel_found *);
        FZ_ASSERT(g->members->nelts == 1);
        FZ_ASSERT(g->cheapest == (only->priced ? only : NULL));
    }
}

/* Every amount an offer shows is money in the stay's currency: "amount"
 * (penalties, promotions) always, "total", "due_at_property" and
 * "minimum_selling_price" (rooms) when not null. */
static void check_amounts(const json_t *v, const char *currency)
{
    const char *k, *why;
    json_t *e;
    size_t i;
    trv_money m;
    if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            check_amounts(e, currency);
        }
        return;
    }
    json_object_foreach((json_t *)v, k, e) {
        if (strcmp(k, "amount") == 0
            || ((strcmp(k, "total") == 0 || strcmp(k, "due_at_property") == 0
                 || strcmp(k, "minimum_selling_price") == 0)
                && !json_is_null(e))) {
            FZ_ASSERT(trv_money_from_json(e, &m, &why) == APR_SUCCESS);
            FZ_ASSERT(strcmp(m.currency, currency) == 0);
        }
        else {
            check_amounts(e, currency);
        }
    }
}

/* No room is priced below the least its hotel lets it be sold for. */
static void check_floors(const json_t *doc)
{
    const json_t *room;
    const char *why;
    trv_money total, floor;
    size_t i;
    json_array_foreach(json_object_get(doc, "rooms"), i, room) {
        const json_t *f = json_object_get(room, "minimum_selling_price");
        if (f && !json_is_null(f)) {
            FZ_ASSERT(trv_money_from_json(json_object_get(room, "total"), &total, &why)
                      == APR_SUCCESS);
            FZ_ASSERT(trv_money_from_json(f, &floor, &why) == APR_SUCCESS);
            FZ_ASSERT(total.minor >= floor.minor);
        }
    }
}

static void check_offers(apr_pool_t *p, const trv_hotel_stay *stay, int max,
                         const apr_array_header_t *offers)
{
    int i, run = 0;
    FZ_ASSERT(offers != NULL);
    for (i = 0; i < offers->nelts; i++) {
        const trv_hotel_offer *o = &APR_ARRAY_IDX(offers, i, trv_hotel_offer);
        const trv_hotel_offer *prev = i ? o - 1 : NULL;
        const json_t *total = json_object_get(o->doc, "total");
        trv_money m;
        const char *why;
        FZ_ASSERT(o->sid && o->ref && o->doc);
        FZ_ASSERT(in_range(o->total_minor));
        FZ_ASSERT(trv_json_dump(p, o->doc) != NULL);
        /* The total shown is the total sealed into the reference. */
        FZ_ASSERT(trv_money_from_json(total, &m, &why) == APR_SUCCESS);
        FZ_ASSERT(m.minor == o->total_minor && strcmp(m.currency, stay->currency) == 0);
        FZ_ASSERT(json_array_size(json_object_get(o->doc, "rooms")) == (size_t)stay->n_rooms);
        check_amounts(o->doc, stay->currency);
        run = prev && strcmp(prev->sid, o->sid) == 0 ? run + 1 : 0;
        FZ_ASSERT(run < max);
        FZ_ASSERT(!run || prev->total_minor <= o->total_minor);
        check_floors(o->doc);
    }
}

/* A policy in the neutral shape: refundable, penalties of money from an
 * instant; and what book.c stores of it. */
static void check_policy(apr_pool_t *p, const json_t *pol)
{
    const json_t *pen;
    const char *why;
    trv_money m;
    size_t k;
    json_t *doc;
    FZ_ASSERT(json_is_boolean(json_object_get(pol, "refundable")));
    FZ_ASSERT(json_is_array(json_object_get(pol, "penalties")));
    json_array_foreach(json_object_get(pol, "penalties"), k, pen) {
        FZ_ASSERT(trv_json_str(pen, "from") != NULL);
        FZ_ASSERT(trv_money_from_json(json_object_get(pen, "amount"), &m, &why) == APR_SUCCESS);
    }
    doc = trv_json_bind(p, trv_hotel_policy_doc(pol));
    FZ_ASSERT(json_is_object(doc) && trv_json_dump(p, doc) != NULL);
}

/* A booking read (book's answer has the same parser): each room's policy
 * null or a policy; the booking's one only when every room has one. */
static void check_booked(apr_pool_t *p, const trv_hotel_booked *b)
{
    const json_t *r, *pol;
    size_t i;
    int all = json_array_size(b->rooms) > 0;
    FZ_ASSERT(b->status && b->booking_id && json_is_array(b->rooms));
    FZ_ASSERT(strcmp(b->status, "CONFIRMED") == 0 || strcmp(b->status, "PENDING") == 0
              || strcmp(b->status, "CANCELED") == 0);
    json_array_foreach(b->rooms, i, r) {
        pol = json_object_get(r, "cancellation_policy");
        FZ_ASSERT(!pol || json_is_null(pol) || json_is_object(pol));
        if (json_is_object(pol)) {
            check_policy(p, pol);
        }
        else {
            all = 0;
        }
    }
    FZ_ASSERT(!b->cancellation_policy || all);
    if (b->cancellation_policy) {
        check_policy(p, b->cancellation_policy);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const trv_hotel_supplier *const adapters[3] = {
        &trv_hotel_supplier_a, &trv_hotel_supplier_b, &trv_hotel_supplier_c};
    apr_pool_t *p;
    const trv_hotel_supplier *sup;
    trv_hotel_ctx ctx;
    trv_hotel_err err;
    trv_hotel_stay stay;
    trv_hotel_area area;
    apr_array_header_t *out = NULL;
    fake_http f;
    trv_up_status st;
    int which, op, max;

    if (size < 3) {
        return 0;
    }
    p = fz_begin();
    which = data[0] % 3;
    op = (data[0] / 3) % 4;
    sup = adapters[which];
    stay_of(data[2], &stay);
    max = 1 + (data[2] >> 4) % 5;
    fake_http_init(&f, sup->name, data[1], fz_str(p, data + 3, size - 3));
    f.up.api_secret = "sandbox-secret";
    memset(&ctx, 0, sizeof(ctx));
    ctx.env = &f.env;
    ctx.pool = p;
    ctx.request_id = "req_fuzz";
    ctx.up = &f.up;
    memset(&err, 0, sizeof(err));
    memset(&area, 0, sizeof(area));
    if (op == 0) {
        area.city = "London";
        area.country_code = "GB";
    }
    else {
        area.by_point = 1;
        area.latitude = 51.5074;
        area.longitude = -0.1278;
        area.radius_m = 5000;
    }
    if (op < 2) {
        st = sup->search(&ctx, &area, &stay, &out, &err);
        if (st == TRV_UP_OK) {
            check_found(p, sup, out);
        }
    }
    else if (op == 2) {
        st = sup->offers(&ctx, &stay, sids[which], 3, max, &out, &err);
        if (st == TRV_UP_OK) {
            check_offers(p, &stay, max, out);
        }
    }
    else {
        trv_hotel_booked bk;
        st = sup->retrieve(&ctx, data[2] & 1 ? NULL : "bk1", "bkg_1/trip-42", &bk, &err);
        if (st == TRV_UP_OK) {
            check_booked(p, &bk);
        }
    }
    if (st != TRV_UP_OK) {
        FZ_ASSERT(err.code != NULL && err.message != NULL);
    }
    fz_end(p);
    return 0;
}
