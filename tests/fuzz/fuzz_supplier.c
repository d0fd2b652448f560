/* The suppliers' answers: whatever SUPPLIER_A's or SUPPLIER_B's API sends
 * back is read by the adapters (flight/suppliers/supplier_a.c, supplier_b.c and the
 * wire helpers) into offers, bags, priced prebooks, orders, quotes and
 * airlines. Input: byte 0 picks the adapter and the operation, byte 1 the
 * HTTP status, then the response bodies: the first call gets the text up
 * to the first "\n--next--\n", the next call the next piece, and so on
 * (the last piece answers any further calls). The HTTP client is a fake
 * that answers from the input; nothing leaves the process. Beyond not
 * crashing or leaking: an operation that reports success returns a value
 * that serializes, and one that fails carries an error code (the
 * supplier's own, which may be empty). */
#include "fuzz.h"

#include "core/json.h"
#include "flight/supplier.h"
#include "fake_http.h"

static const char *const passengers =
    "[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"birthday\":\"1990-12-10\","
    "\"type\":\"ADULT\",\"gender\":\"F\",\"loyalty_accounts\":[{\"airline_iata_code\":\"BA\","
    "\"membership_number\":\"BA12345\"}]},{\"first_name\":\"Tom\",\"last_name\":\"Lovelace\","
    "\"birthday\":\"2025-06-01\",\"type\":\"INFANT\",\"gender\":\"M\",\"loyalty_accounts\":[]}]";
static const char *const contact =
    "{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"email\":\"ada@example.com\","
    "\"phone_number\":\"2025550143\",\"phone_country_code\":\"1\"}";
static const char *const query =
    "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"2026-12-20\"},"
    "{\"origin\":\"JFK\",\"destination\":\"LHR\",\"date\":\"2026-12-27\"}],"
    "\"passengers\":{\"adults\":1,\"children\":0,\"infants\":1},\"limit\":20,"
    "\"cabin_class\":\"ECONOMY\"}";

static json_t *js(apr_pool_t *p, const char *text)
{
    json_t *v = trv_json_parse(p, text, strlen(text), NULL);
    FZ_ASSERT(v != NULL);
    return v;
}

/* A success returns something that can be stored and sent. */
static void outcome(apr_pool_t *p, trv_up_status st, const json_t *out, const trv_sup_err *err)
{
    if (st == TRV_UP_OK) {
        FZ_ASSERT(out != NULL && trv_json_dump(p, out) != NULL);
    }
    else {
        /* The supplier's own code when it gave one (even ""): callers
         * fall back to their own for an empty one. */
        FZ_ASSERT(err->code != NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    const trv_flight_supplier *sup;
    trv_flight_ctx ctx;
    trv_sup_err err;
    fake_http f;
    json_t *out = NULL, *out2 = NULL;
    int truncated = 0, op;
    trv_up_status st;
    const char *offer_ref;

    if (size < 2) {
        return 0;
    }
    p = fz_begin();
    sup = data[0] & 1 ? &trv_flight_supplier_b : &trv_flight_supplier_a;
    op = (data[0] >> 1) % 9;
    fake_http_init(&f, sup->name, data[1], fz_str(p, data + 2, size - 2));
    memset(&ctx, 0, sizeof(ctx));
    ctx.env = &f.env;
    ctx.pool = p;
    ctx.request_id = "req_fuzz";
    ctx.up = &f.up;
    memset(&err, 0, sizeof(err));
    offer_ref = sup == &trv_flight_supplier_a ? "off_0000fuzz" : "lfo_0000fuzz";

    switch (op) {
    case 0: {
        /* Its offers' text must be JSON the gateway can wrap and send. */
        apr_array_header_t *found = NULL;
        st = sup->search(&ctx, js(p, query), &found, &truncated, &err);
        if (st == TRV_UP_OK) {
            out = trv_json_bind(p, trv_foffer_text_tree(p, found));
        }
        break;
    }
    case 1:
        st = sup->bags(&ctx, offer_ref, &out, &err);
        break;
    case 2:
        st = sup->prebook(&ctx, offer_ref, js(p, passengers), js(p, contact),
                          /* B sells no bag before its checkout (it would refuse
                           * one unasked): its checkout's booked services are
                           * read from the answer alone. */
                          js(p, sup == &trv_flight_supplier_a ? "[{\"id\":\"bag_p0j0c\",\"quantity\":1}]"
                                                       : "[]"), &out, &err);
        break;
    case 3:
    case 4: {
        /* Book with what a prebook of this input returned as supplier_data
         * (or an empty object), paid by us (A) or by the supplier (B). */
        json_t *booking = js(p, "{\"id\":\"bkg_fuzz\",\"total_amount\":{\"amount\":512.3,"
                                "\"currency\":\"GBP\"},\"services\":[{\"id\":\"bag_p0j0c\","
                                "\"quantity\":1}]}");
        st = sup->prebook(&ctx, offer_ref, js(p, passengers), js(p, contact),
                          js(p, "[]"), &out2, &err);
        json_object_set(booking, "supplier_data",
                        st == TRV_UP_OK && json_object_get(out2, "supplier_data")
                            ? json_object_get(out2, "supplier_data")
                            : js(p, "{}"));
        json_object_set(booking, "passengers", js(p, passengers));
        json_object_set(booking, "contact", js(p, contact));
        memset(&err, 0, sizeof(err));
        st = sup->book(&ctx, booking, op == 3 ? js(p, "{\"authorization_id\":\"auth_1\"}") : NULL,
                       "idem_fuzz", &out, &err);
        break;
    }
    case 5:
        st = sup->read_order(&ctx, "ord_0000fuzz", &out, &err);
        break;
    case 6:
        st = sup->cancellation_quote(&ctx, "ord_0000fuzz", &out, &err);
        break;
    case 7:
        st = sup->cancel(&ctx, "ord_0000fuzz", "idem_fuzz", &out, &err);
        break;
    default:
        st = sup->airline(&ctx, "BA", &out, &err);
    }
    outcome(p, st, out, &err);
    (void)truncated;
    fz_end(p);
    return 0;
}
