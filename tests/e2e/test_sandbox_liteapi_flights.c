/* The sandbox's flight SUPPLIER_B over real HTTP, judged against LiteAPI
 * Flights' published reference (API: Flights 3.0.0, docs.liteapi.travel):
 * X-API-Key and nothing else; answers in {"data": [...]} whose members
 * have the reference's names and types (money as JSON numbers beside a
 * currency); errors {"error": {code (a number), message, description,
 * key}}; rates -> verify -> prebook (a checkout that holds far flights,
 * with a payment intent) -> services (a new intent) -> bookings (paid by
 * the current intent's transactionId, once per prebook) -> read ->
 * cancellation quote -> cancel; airlines by IATA code; the test triggers. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEY_B "sandbox-key-b"
#define BASE "/suppliers/b/v3.0"

static e2e_resp *call_h(const char *method, const char *path, const char *auth,
                        const char *body)
{
    const char *h[3] = {"Content-Type: application/json", auth, NULL};
    return e2e_call(e2e_sandbox_url(), method, path, h, body);
}

static e2e_resp *call(const char *method, const char *path, const char *body)
{
    return call_h(method, path, "X-API-Key: " KEY_B, body);
}

static const char *s(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const json_t *data0(const e2e_resp *r)
{
    return json_array_get(json_object_get(r->json, "data"), 0);
}

static const char *date_in(int days, char *buf)
{
    time_t t = time(NULL) + (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 11, "%Y-%m-%d", &tm);
    return buf;
}

/* Each "name:t" of spec is a member of o of type t: s string, n number, i
 * integer, b boolean, o object, a array, S string or null, O object or
 * null. */
static void has(const json_t *o, const char *what, const char *spec)
{
    char buf[1024], *save = NULL, *tok;
    snprintf(buf, sizeof(buf), "%s", spec);
    for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(tok, ':');
        const json_t *v;
        int ok;
        *colon = '\0';
        v = json_object_get(o, tok);
        switch (colon[1]) {
        case 's': ok = json_is_string(v); break;
        case 'n': ok = json_is_number(v); break;
        case 'i': ok = json_is_integer(v); break;
        case 'b': ok = json_is_boolean(v); break;
        case 'o': ok = json_is_object(v); break;
        case 'a': ok = json_is_array(v); break;
        case 'S': ok = json_is_string(v) || json_is_null(v); break;
        default: ok = json_is_object(v) || json_is_null(v); break;
        }
        if (!ok) {
            char *text = json_dumps(o, JSON_COMPACT);
            fail_msg("%s.%s is not of type %c: %.1500s", what, tok, colon[1], text);
        }
    }
}

/* Money in cents from a JSON number (the sandbox's currencies here have two
 * decimals): checked, not computed with. */
static long long cents(const json_t *v)
{
    assert_true(json_is_number(v)); /* LiteAPI writes numbers, never strings */
    return llround(json_number_value(v) * 100.0);
}

static void lite_error(const e2e_resp *r, long status, long code, const char *key)
{
    const json_t *e = json_object_get(r->json, "error");
    if (r->status != status) {
        fail_msg("expected HTTP %ld, got %ld: %s", status, r->status, r->body);
    }
    has(e, "error", "code:i message:s description:s");
    if (code) {
        assert_int_equal(json_integer_value(json_object_get(e, "code")), code);
    }
    if (key) {
        assert_string_equal(s(e, "key"), key);
    }
}

static const json_t *data0_json(const json_t *doc)
{
    return json_array_get(json_object_get(doc, "data"), 0);
}

static void lite_error_json(const json_t *doc, const char *key)
{
    const json_t *e = json_object_get(doc, "error");
    has(e, "error", "code:i message:s description:s");
    assert_string_equal(s(e, "key"), key);
}

static void check_offer(const json_t *o)
{
    const json_t *d = json_object_get(json_object_get(o, "pricing"), "display");
    has(o, "offer", "offerId:s expiration:s pricing:o fare:o terms:o provider:o baggage:o "
        "segmentFares:a");
    has(d, "pricing.display", "base:n currency:s fees:n taxes:n total:n");
    assert_int_equal(cents(json_object_get(d, "total")),
                     cents(json_object_get(d, "base")) + cents(json_object_get(d, "taxes"))
                         + cents(json_object_get(d, "fees")));
    has(json_object_get(o, "fare"), "fare", "family:s mixedCabin:b seatsRemaining:i");
    has(json_object_get(o, "terms"), "terms", "changeable:b refundable:b summary:a "
        "changeFee:O refundFee:O hasChangeFee:b hasRefundFee:b");
    has(json_object_get(o, "baggage"), "baggage", "hasCarryOnBag:b hasCheckedBag:b included:a");
    has(json_array_get(json_object_get(o, "segmentFares"), 0), "segmentFares[0]",
        "bookingCode:s cabin:s fareBasisCode:s fareFamily:s segmentKey:s");
}

static void check_segment(const json_t *g)
{
    has(g, "segment", "segmentKey:s departureTime:s arrivalTime:s carrier:o originCode:s "
        "destinationCode:s direction:s duration:o flight:o");
    has(json_object_get(g, "carrier"), "carrier", "marketingCode:s marketingName:s "
        "operatingCode:s operatingName:s");
    has(json_object_get(g, "duration"), "duration", "iso8601:s minutes:i");
    has(json_object_get(g, "flight"), "flight", "marketingNumber:s operatingNumber:s");
}

/* POST /flights/rates, one leg: the first offer of brand (any when NULL). */
static json_t *rate(const char *from, const char *to, int days, int adults, const char *brand)
{
    char body[1024], d[11];
    e2e_resp *r;
    const json_t *js;
    json_t *out = NULL;
    size_t i;
    snprintf(body, sizeof(body), "{\"legs\":[{\"origin\":\"%s\",\"destination\":\"%s\","
             "\"date\":\"%s\"}],\"adults\":%d,\"currency\":\"USD\",\"cabinClass\":\"ECONOMY\"}",
             from, to, date_in(days, d), adults);
    r = call("POST", BASE "/flights/rates", body);
    assert_int_equal(r->status, 200);
    js = json_object_get(data0(r), "journeys");
    assert_true(json_array_size(js) > 0);
    for (i = 0; i < json_array_size(js) && !out; i++) {
        const json_t *o = json_array_get(json_object_get(json_array_get(js, i), "offers"), 0);
        if (!brand || strcmp(s(json_object_get(o, "fare"), "family"), brand) == 0) {
            out = json_incref(json_array_get(js, i));
        }
    }
    e2e_free(r);
    if (!out) {
        fail_msg("no %s offer %s-%s", brand, from, to);
    }
    return out;
}

static const char *offer_of(const json_t *journey)
{
    return s(json_array_get(json_object_get(journey, "offers"), 0), "offerId");
}

static json_t *prebook(const json_t *journey, const char *last_name, long want)
{
    char body[2048];
    e2e_resp *r;
    json_t *out;
    snprintf(body, sizeof(body), "{\"offerId\":\"%s\",\"usePaymentSdk\":true,\"contact\":"
             "{\"firstName\":\"Bo\",\"lastName\":\"%s\",\"email\":\"bo@example.com\","
             "\"phoneCountryCode\":\"44\",\"phoneNumber\":\"2071234567\"},\"passengers\":"
             "[{\"firstName\":\"Bo\",\"lastName\":\"%s\",\"birthday\":\"1980-02-02\","
             "\"gender\":\"M\",\"passengerType\":0}]}", offer_of(journey), last_name, last_name);
    r = call("POST", BASE "/flights/prebooks", body);
    if (r->status != want) {
        fail_msg("prebook: expected %ld, got %ld: %s", want, r->status, r->body);
    }
    out = json_incref(r->json);
    e2e_free(r);
    return out;
}

static json_t *book(const json_t *pb, long want)
{
    char body[1024];
    const json_t *p = json_array_get(json_object_get(pb, "data"), 0);
    e2e_resp *r;
    json_t *out;
    snprintf(body, sizeof(body), "{\"prebookId\":\"%s\",\"payment\":{\"method\":"
             "\"TRANSACTION_ID\",\"transactionId\":\"%s\"}}", s(p, "prebookId"),
             s(p, "transactionId"));
    r = call("POST", BASE "/flights/bookings", body);
    if (r->status != want) {
        fail_msg("book: expected %ld, got %ld: %s", want, r->status, r->body);
    }
    out = json_incref(r->json);
    e2e_free(r);
    return out;
}

static const json_t *booking_of(const json_t *answer)
{
    return json_object_get(json_array_get(json_object_get(answer, "data"), 0), "booking");
}

static json_t *booked(const char *brand, const char *last_name, int days)
{
    json_t *j = rate("LHR", "DUB", days, 1, brand), *pb = prebook(j, last_name, 200);
    json_t *b = book(pb, 201);
    json_decref(j);
    json_decref(pb);
    return b;
}

/* ---- tests ---- */

static void only_the_x_api_key_opens_it(void **state)
{
    e2e_resp *r;
    (void)state;
    r = call_h("GET", BASE "/data/flights/airlines/iatas/BA", NULL, NULL);
    lite_error(r, 401, 401, NULL);
    e2e_free(r);
    r = call_h("GET", BASE "/data/flights/airlines/iatas/BA", "X-API-Key: not-the-key", NULL);
    assert_int_equal(r->status, 401);
    e2e_free(r);
    /* The right key as a bearer token is not LiteAPI's scheme. */
    r = call_h("GET", BASE "/data/flights/airlines/iatas/BA", "Authorization: Bearer " KEY_B,
               NULL);
    assert_int_equal(r->status, 401);
    e2e_free(r);
    r = call("GET", BASE "/data/flights/airlines/iatas/DL", NULL);
    assert_int_equal(r->status, 200);
    has(json_object_get(data0(r), "airline"), "airline",
        "iata:s icao:s name:s country:s logo:s active:b");
    assert_string_equal(s(json_object_get(data0(r), "airline"), "name"), "Delta Air Lines");
    assert_string_equal(s(json_object_get(data0(r), "airline"), "alliance"), "SkyTeam");
    e2e_free(r);
    /* A carrier of airlines.dat that flies no listed route still exists. */
    r = call("GET", BASE "/data/flights/airlines/iatas/1T", NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(json_object_get(data0(r), "airline"), "name"), "1Time Airline");
    e2e_free(r);
    r = call("GET", BASE "/data/flights/airlines/iatas/9Z", NULL);
    lite_error(r, 404, 0, "pathParam.iataCode");
    e2e_free(r);
}

static void rates_have_the_published_shape(void **state)
{
    char body[1024], d[11], d2[11];
    e2e_resp *r;
    const json_t *j, *segs;
    size_t k;
    (void)state;
    r = call("POST", BASE "/flights/rates", "{\"adults\":1,\"currency\":\"USD\"}");
    lite_error(r, 400, 41002, "bodyRequest.legs");
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"legs\":[{\"origin\":\"CDG\",\"destination\":\"FCO\","
             "\"date\":\"%s\"}],\"adults\":1}", date_in(20, d));
    r = call("POST", BASE "/flights/rates", body);
    lite_error(r, 400, 41002, "bodyRequest.currency");
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"legs\":[{\"origin\":\"CDG\",\"destination\":\"FCO\","
             "\"date\":\"%s\"}],\"adults\":1,\"infants\":2,\"currency\":\"USD\"}",
             date_in(20, d));
    r = call("POST", BASE "/flights/rates", body);
    lite_error(r, 400, 41012, "bodyRequest.infants");
    e2e_free(r);
    /* A round trip: two directions in one journey. */
    snprintf(body, sizeof(body), "{\"legs\":[{\"origin\":\"CDG\",\"destination\":\"FCO\","
             "\"date\":\"%s\"},{\"origin\":\"FCO\",\"destination\":\"CDG\",\"date\":\"%s\"}],"
             "\"adults\":1,\"currency\":\"EUR\",\"cabinClass\":\"ECONOMY\"}", date_in(20, d),
             date_in(27, d2));
    r = call("POST", BASE "/flights/rates", body);
    assert_int_equal(r->status, 200);
    has(data0(r), "data[0]", "journeys:a sortMetadata:o");
    j = json_array_get(json_object_get(data0(r), "journeys"), 0);
    has(j, "journey", "journeyKey:s isCheapest:b cheapestOffer:o offers:a segments:a "
        "parameters:o timestamp:s legDurations:a totalDuration:o connections:a");
    check_offer(json_object_get(j, "cheapestOffer"));
    segs = json_object_get(j, "segments");
    for (k = 0; k < json_array_size(segs); k++) {
        check_segment(json_array_get(segs, k));
    }
    assert_string_equal(s(json_array_get(segs, 0), "direction"), "OUTBOUND");
    assert_string_equal(s(json_array_get(segs, json_array_size(segs) - 1), "direction"),
                        "INBOUND");
    assert_int_equal(json_array_size(json_object_get(j, "legDurations")), 2);
    assert_string_equal(s(json_object_get(json_object_get(data0(r), "sortMetadata"), "best"),
                          "offerId"), offer_of(j));
    e2e_free(r);
}

static void verify_prebook_services_and_book(void **state)
{
    json_t *far = rate("LHR", "DUB", 40, 1, "Standard"), *near = rate("LHR", "DUB", 1, 1, NULL);
    json_t *pf, *pn, *b, *again;
    const json_t *p, *bk, *svc;
    char body[2048], path[256];
    long long before;
    e2e_resp *r;
    (void)state;
    /* verify: the offer now. Its baggage is what the fare includes,
     * exactly the reference's members: LiteAPI sells bags only in the
     * checkout (servicesAttachable, below), never at verify. */
    snprintf(body, sizeof(body), "{\"offerId\":\"%s\"}", offer_of(far));
    r = call("POST", BASE "/flights/verify", body);
    assert_int_equal(r->status, 200);
    has(json_object_get(data0(r), "journey"), "journey", "journeyKey:s expiration:s pricing:o "
        "baggage:o fare:o passengers:o segments:a segmentFares:a terms:o");
    {
        const json_t *bag = json_object_get(json_object_get(data0(r), "journey"), "baggage");
        const char *k;
        const json_t *v;
        has(bag, "baggage", "hasCarryOnBag:b hasCheckedBag:b included:a");
        json_object_foreach((json_t *)bag, k, v) {
            if (strcmp(k, "hasCarryOnBag") && strcmp(k, "hasCheckedBag") && strcmp(k, "included")) {
                fail_msg("verify's baggage has %s, which LiteAPI's does not", k);
            }
        }
    }
    e2e_free(r);
    r = call("POST", BASE "/flights/verify", "{\"offerId\":\"nonsense\"}");
    lite_error(r, 400, 43007, "bodyRequest.offerId");
    e2e_free(r);

    /* prebook: only with the payment SDK (no credit line here), the
     * passengers in the offer's order. */
    snprintf(body, sizeof(body), "{\"offerId\":\"%s\",\"contact\":{\"firstName\":\"Bo\","
             "\"lastName\":\"Smith\",\"email\":\"bo@example.com\",\"phoneNumber\":\"1\"},"
             "\"passengers\":[{\"firstName\":\"Bo\",\"lastName\":\"Smith\",\"birthday\":"
             "\"1980-02-02\",\"passengerType\":0}]}", offer_of(far));
    r = call("POST", BASE "/flights/prebooks", body);
    lite_error(r, 400, 0, "bodyRequest.usePaymentSdk");
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"offerId\":\"%s\",\"usePaymentSdk\":true,\"contact\":"
             "{\"firstName\":\"Bo\",\"lastName\":\"Smith\",\"email\":\"bo@example.com\","
             "\"phoneNumber\":\"1\"},\"passengers\":[{\"firstName\":\"Bo\",\"lastName\":"
             "\"Smith\",\"birthday\":\"1980-02-02\",\"passengerType\":1}]}", offer_of(far));
    r = call("POST", BASE "/flights/prebooks", body);
    lite_error(r, 400, 0, "bodyRequest.passengers[0].passengerType");
    e2e_free(r);

    pf = prebook(far, "Smith", 200);
    pn = prebook(near, "Smith", 200);
    p = json_array_get(json_object_get(pf, "data"), 0);
    has(p, "prebook", "prebookId:s booking:o servicesAttachable:o price:n currency:s "
        "transactionId:s secretKey:s offerId:s paymentTypes:a");
    has(json_object_get(p, "booking"), "booking", "bookingId:s status:s offerId:s "
        "paymentStatus:s journey:o passengers:a contact:o pricing:o selectedServices:a "
        "bookedServices:a");
    assert_non_null(strstr(s(p, "secretKey"), "_secret_"));
    assert_int_equal(strncmp(s(p, "transactionId"), "tr_", 3), 0);
    /* The booking's baggage is the fare's, as at verify; the bags for sale
     * are servicesAttachable's. */
    assert_null(json_object_get(json_object_get(json_object_get(json_object_get(p, "booking"),
                                                                "journey"), "baggage"), "paid"));
    assert_true(json_array_size(json_object_get(json_array_get(json_object_get(json_object_get(
        p, "servicesAttachable"), "groups"), 0), "services")) > 0);
    /* Far flights are held until the ticketing limit; near ones are not. */
    assert_true(json_is_string(json_object_get(json_object_get(p, "booking"),
                                               "ticketLimitTime")));
    assert_true(json_is_null(json_object_get(json_object_get(json_array_get(
        json_object_get(pn, "data"), 0), "booking"), "ticketLimitTime")));
    snprintf(path, sizeof(path), BASE "/flights/prebooks/%s", s(p, "prebookId"));
    r = call("GET", path, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(data0(r), "transactionId"), s(p, "transactionId"));
    e2e_free(r);

    /* A bag: the price rises by its price, and a new intent is made. */
    svc = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(p,
          "servicesAttachable"), "groups"), 0), "services"), 0);
    has(svc, "service", "serviceId:s name:s passengerType:s segmentKey:s pricing:o bagType:s "
        "pieces:i weightKg:n");
    before = cents(json_object_get(p, "price"));
    snprintf(body, sizeof(body), "{\"selectedServices\":[{\"passengerIndex\":0,\"serviceId\":"
             "\"%s\",\"quantity\":1}]}", s(svc, "serviceId"));
    snprintf(path, sizeof(path), BASE "/flights/prebooks/%s/services", s(p, "prebookId"));
    r = call("POST", path, body);
    assert_int_equal(r->status, 200);
    assert_int_equal(cents(json_object_get(data0(r), "price")),
                     before + cents(json_object_get(json_object_get(json_object_get(svc,
                                        "pricing"), "display"), "amount")));
    assert_string_not_equal(s(data0(r), "transactionId"), s(p, "transactionId"));
    assert_int_equal(json_array_size(json_object_get(json_object_get(data0(r), "booking"),
                                                     "selectedServices")), 1);
    /* The old intent no longer pays for the checkout. */
    b = book(pf, 400);
    lite_error_json(b, "bodyRequest.payment.transactionId");
    json_decref(b);
    json_decref(pf);
    pf = json_incref(r->json);
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"prebookId\":\"%s\",\"payment\":{\"method\":\"CREDIT\"}}",
             s(data0_json(pf), "prebookId"));
    r = call("POST", BASE "/flights/bookings", body);
    /* No published code for it (the reference's 45040 is a rejected card). */
    lite_error(r, 403, 45090, "bodyRequest.payment.method");
    e2e_free(r);

    b = book(pf, 201);
    bk = booking_of(b);
    has(bk, "booking", "bookingId:s bookingRef:s status:s timestamp:s offerId:s paymentStatus:s "
        "journey:o passengers:a contact:o order:o airlineLocators:a pricing:o payment:o "
        "selectedServices:a bookedServices:a ticketData:o paymentInput:o");
    assert_string_equal(s(bk, "status"), "TICKETED");
    assert_string_equal(s(bk, "paymentStatus"), "completed");
    assert_int_equal(cents(json_object_get(json_object_get(bk, "payment"), "amount")),
                     cents(json_object_get(data0_json(pf), "price")));
    assert_string_equal(s(json_object_get(bk, "paymentInput"), "method"), "TRANSACTION_ID");
    has(json_array_get(json_object_get(bk, "airlineLocators"), 0), "airlineLocators[0]",
        "airlineCode:s airlinePnr:s");
    /* Booking a prebook again answers its booking (200, with a message). */
    again = book(pf, 200);
    assert_string_equal(s(booking_of(again), "bookingId"), s(bk, "bookingId"));
    assert_non_null(s(json_array_get(json_object_get(again, "data"), 0), "message"));
    snprintf(path, sizeof(path), BASE "/flights/bookings/%s", s(bk, "bookingId"));
    r = call("GET", path, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(json_object_get(data0(r), "booking"), "status"), "TICKETED");
    e2e_free(r);
    r = call("GET", BASE "/flights/bookings/bo_nope", NULL);
    lite_error(r, 404, 47002, "pathParam.bookingId");
    e2e_free(r);
    json_decref(again);
    json_decref(b);
    json_decref(pf);
    json_decref(pn);
    json_decref(far);
    json_decref(near);
}

/* The device confirms a prebook's intent (LiteAPI's payment SDK) with its
 * secretKey; status of the answer. */
static long confirm_intent(const json_t *pb, const char *secret)
{
    const char *key = secret ? secret : s(data0_json(pb), "secretKey");
    char path[512], body[512], *pi = strdup(s(data0_json(pb), "secretKey"));
    e2e_resp *r;
    long st;
    *strstr(pi, "_secret_") = '\0';
    snprintf(path, sizeof(path), "/suppliers/b/payment/v1/payment_intents/%s/confirm", pi);
    snprintf(body, sizeof(body), "{\"client_secret\":\"%s\"}", key);
    /* No X-API-Key: the traveller's device holds none. */
    r = call_h("POST", path, NULL, body);
    st = r->status;
    if (st == 200) {
        assert_string_equal(s(r->json, "status"), "succeeded");
        assert_string_equal(s(r->json, "id"), pi);
    }
    e2e_free(r);
    free(pi);
    return st;
}

/* With a passenger named Sdkpay the checkout's intents wait for the SDK's
 * confirmation, as LiteAPI's do: book before it is 402 and books nothing;
 * a wrong secret confirms nothing; a services attach makes a new intent
 * that needs confirming again. */
static void intents_wait_for_the_sdk(void **state)
{
    json_t *j = rate("LHR", "DUB", 40, 1, NULL), *pb = prebook(j, "Sdkpay", 200), *b, *pb2;
    char wrong[256], body[512], path[512];
    const json_t *svc;
    e2e_resp *r;
    (void)state;
    b = book(pb, 402);
    lite_error_json(b, "bodyRequest.payment.transactionId");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(b, "error"), "code")),
                     45031);
    json_decref(b);
    snprintf(wrong, sizeof(wrong), "%sx", s(data0_json(pb), "secretKey"));
    assert_int_equal(confirm_intent(pb, wrong), 404);
    b = book(pb, 402);
    json_decref(b);

    /* A bag: a new intent, unconfirmed; the old one's confirmation is
     * refused and pays nothing. */
    svc = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(
          data0_json(pb), "servicesAttachable"), "groups"), 0), "services"), 0);
    snprintf(body, sizeof(body), "{\"selectedServices\":[{\"passengerIndex\":0,"
             "\"serviceId\":\"%s\",\"quantity\":1}]}", s(svc, "serviceId"));
    snprintf(path, sizeof(path), BASE "/flights/prebooks/%s/services",
             s(data0_json(pb), "prebookId"));
    r = call("POST", path, body);
    assert_int_equal(r->status, 200);
    pb2 = json_incref(r->json);
    e2e_free(r);
    assert_int_equal(confirm_intent(pb, NULL), 404);
    b = book(pb2, 402);
    json_decref(b);
    assert_int_equal(confirm_intent(pb2, NULL), 200);
    b = book(pb2, 201);
    assert_string_equal(s(booking_of(b), "status"), "TICKETED");
    json_decref(b);
    json_decref(pb2);
    json_decref(pb);
    json_decref(j);
}

static void triggers_quotes_and_cancellations(void **state)
{
    json_t *fail = booked("Standard", "Failticket", 41), *basic = booked("Basic", "Smith", 42);
    json_t *flex = booked("Flex", "Smith", 43), *noc = booked("Flex", "Nocancel", 44);
    char path[256];
    const char *json_hdr[] = {"Content-Type: application/json", NULL};
    e2e_resp *r, *q;
    const json_t *d;
    (void)state;
    /* Ticketing failed: the booking is cancelled and nothing charged. */
    assert_string_equal(s(booking_of(fail), "status"), "CANCELLED");
    assert_string_equal(s(booking_of(fail), "paymentStatus"), "failed");
    /* Basic fares: LiteAPI cannot quote them (confidence unknown). */
    snprintf(path, sizeof(path), BASE "/flights/bookings/%s/cancellations",
             s(booking_of(basic), "bookingId"));
    r = call("GET", path, NULL);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(data0(r), "confidence"), "unknown");
    e2e_free(r);
    snprintf(path, sizeof(path), BASE "/flights/bookings/%s/cancellations",
             s(booking_of(flex), "bookingId"));
    q = call("GET", path, NULL);
    assert_int_equal(q->status, 200);
    has(data0(q), "quote", "confidence:s isRefundable:b isVoidable:b refund:o penalty:o "
        "destination:s");
    r = call("POST", path, NULL);
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    has(d, "cancellation", "bookingId:s status:s cancellation_fee:n refund_amount:n currency:s");
    assert_int_equal(strncmp(s(d, "status"), "CANCELLED", 9), 0);
    assert_int_equal(cents(json_object_get(d, "refund_amount")),
                     cents(json_object_get(json_object_get(json_object_get(data0(q), "refund"),
                                                           "display"), "amount")));
    e2e_free(r);
    e2e_free(q);
    /* Again: the same outcome; the booking reads cancelled. */
    r = call("POST", path, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    snprintf(path, sizeof(path), BASE "/flights/bookings/%s", s(booking_of(flex), "bookingId"));
    r = call("GET", path, NULL);
    assert_string_equal(s(json_object_get(data0(r), "booking"), "status"), "CANCELLED");
    assert_string_equal(s(json_object_get(data0(r), "booking"), "paymentStatus"), "completed");
    e2e_free(r);
    snprintf(path, sizeof(path), BASE "/flights/bookings/%s/cancellations",
             s(booking_of(noc), "bookingId"));
    r = call("POST", path, NULL);
    lite_error(r, 400, 46010, "pathParam.bookingId");
    e2e_free(r);
    /* The control endpoint only retimes ticketed bookings. */
    snprintf(path, sizeof(path), "/sandbox/orders/%s/airline-initiated-changes",
             s(booking_of(fail), "bookingId"));
    r = e2e_call(e2e_sandbox_url(), "POST", path, json_hdr, "{}");
    assert_int_equal(r->status, 409);
    e2e_free(r);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/orders/bo_nope/airline-initiated-changes",
                 json_hdr, "{}");
    assert_int_equal(r->status, 404);
    e2e_free(r);
    json_decref(fail);
    json_decref(basic);
    json_decref(flex);
    json_decref(noc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_the_x_api_key_opens_it),
        cmocka_unit_test(rates_have_the_published_shape),
        cmocka_unit_test(verify_prebook_services_and_book),
        cmocka_unit_test(triggers_quotes_and_cancellations),
        cmocka_unit_test(intents_wait_for_the_sdk),
    };
    return E2E_RUN("sandbox LiteAPI Flights (SUPPLIER_B)", tests);
}
