/* The sandbox's hotel SUPPLIER_B against Hotelbeds' published shapes: the
 * answers of availability, checkrates, bookings (confirm, read, list),
 * cancellation (SIMULATION and CANCELLATION), the content API's pages and
 * the errors, each checked member by member (name and JSON type, money as
 * the decimal strings Hotelbeds writes) by a small schema written here from
 * the vendor's documentation:
 *
 *   Hotelbeds APItude, "Hotel Booking API" reference, version 1.0
 *   (developer.hotelbeds.com/documentation/hotels/booking-api/api-reference:
 *   AvailabilityRS, CheckRateRS, BookingRS, BookingListRS,
 *   BookingCancellationRS, ApiError, ApiAuditData), "Hotel Content API"
 *   reference, version 1.0 (HotelsRS, DestinationsRS: from, to, total) and
 *   "API Errors" (400 INVALID_DATA/INVALID_REQUEST; 403 "Developer Over
 *   Qps" with X-Mashery-Error-Code when throttled).
 *
 * A member the schema requires that is missing, or of another type, fails
 * the test; members the sandbox adds beyond Hotelbeds' are listed in
 * docs/suppliers.md. */
#include "e2e.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEY_B "sandbox-key-hotel-b"
#define SECRET_B "sandbox-secret-hotel-b"

/* ---- the wire ---- */

static e2e_resp *hb_call_h(const char *method, const char *path, const char *body,
                           const char *rid, const char *extra)
{
    char msg[256], sig[EVP_MAX_MD_SIZE * 2 + 1], h[3][300], full[2048];
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0, i;
    const char *hs[7];
    int k = 0;
    /* Api-key and X-Signature = SHA-256 hex of key + secret + Unix seconds. */
    snprintf(msg, sizeof(msg), "%s%s%ld", KEY_B, SECRET_B, (long)time(NULL));
    EVP_Digest(msg, strlen(msg), d, &n, EVP_sha256(), NULL);
    for (i = 0; i < n; i++) {
        sprintf(sig + 2 * i, "%02x", d[i]);
    }
    snprintf(h[0], sizeof(h[0]), "Api-key: %s", KEY_B);
    snprintf(h[1], sizeof(h[1]), "X-Signature: %s", sig);
    hs[k++] = h[0];
    hs[k++] = h[1];
    hs[k++] = "Accept-Encoding: gzip";
    hs[k++] = "Content-Type: application/json";
    if (rid) {
        snprintf(h[2], sizeof(h[2]), "x-request-id: %s", rid);
        hs[k++] = h[2];
    }
    if (extra) {
        hs[k++] = extra;
    }
    hs[k] = NULL;
    snprintf(full, sizeof(full), "/hotels/b%s", path);
    return e2e_call(e2e_sandbox_url(), method, full, hs, body);
}

static e2e_resp *hb_call(const char *method, const char *path, const char *body,
                         const char *rid)
{
    return hb_call_h(method, path, body, rid, NULL);
}

static e2e_resp *must(e2e_resp *r, long status)
{
    if (r->status != status) {
        fail_msg("expected %ld, got %ld: %.600s", status, r->status, r->body);
    }
    return r;
}

static const char *date_in(int days, char *buf)
{
    time_t t = time(NULL) + (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 11, "%Y-%m-%d", &tm);
    return buf;
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ---- the schema ---- */

/* Hotelbeds' money: a decimal string, "-"? digits "." two digits. */
static int is_decimal(const json_t *v)
{
    const char *s = json_string_value(v), *dot;
    if (!s) {
        return 0;
    }
    s += *s == '-';
    dot = strchr(s, '.');
    return dot && dot > s && strspn(s, "0123456789") == (size_t)(dot - s)
           && strlen(dot + 1) == 2 && strspn(dot + 1, "0123456789") == 2;
}

static int is_day(const json_t *v)
{
    const char *s = json_string_value(v);
    int y, m, d;
    char tail;
    return s && strlen(s) == 10 && sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3;
}

static int has_type(const json_t *v, const char *type)
{
    if (strcmp(type, "string") == 0) {
        return json_is_string(v);
    }
    if (strcmp(type, "integer") == 0) {
        return json_is_integer(v);
    }
    if (strcmp(type, "number") == 0) {
        return json_is_number(v);
    }
    if (strcmp(type, "boolean") == 0) {
        return json_is_boolean(v);
    }
    if (strcmp(type, "object") == 0) {
        return json_is_object(v);
    }
    if (strcmp(type, "array") == 0) {
        return json_is_array(v);
    }
    if (strcmp(type, "decimal") == 0) {
        return is_decimal(v);
    }
    if (strcmp(type, "day") == 0) {
        return is_day(v);
    }
    if (strncmp(type, "enum:", 5) == 0) {
        /* enum:A|B|C */
        const char *s = json_string_value(v), *p = type + 5;
        size_t n = s ? strlen(s) : 0;
        while (s && *p) {
            size_t len = strcspn(p, "|");
            if (len == n && strncmp(p, s, n) == 0) {
                return 1;
            }
            p += len + (p[len] == '|');
        }
        return 0;
    }
    fail_msg("unknown schema type %s", type);
    return 0;
}

/* Checks one rule "path type" (path "?"-prefixed when optional) against
 * doc: a path is member names joined by '.', "name[]" for every element of
 * an array (which must then have one). */
static void check_path(const char *what, const json_t *node, const char *path,
                       const char *type, int optional, const char *rule)
{
    char head[128];
    size_t len = strcspn(path, ".");
    int each = len >= 2 && path[len - 2] == '[' && path[len - 1] == ']';
    const json_t *v;
    snprintf(head, sizeof(head), "%.*s", (int)(each ? len - 2 : len), path);
    if (!json_is_object(node)) {
        fail_msg("%s: %s: not an object at %s", what, rule, head);
    }
    v = json_object_get(node, head);
    if (!v || (optional && json_is_null(v))) {
        if (!optional) {
            fail_msg("%s: %s: %s is missing", what, rule, head);
        }
        return;
    }
    if (each) {
        size_t i;
        const json_t *e;
        /* A required list has members; an optional one may be empty. */
        if (!json_is_array(v) || (!optional && json_array_size(v) == 0)) {
            fail_msg("%s: %s: %s is not a non-empty array", what, rule, head);
        }
        json_array_foreach(v, i, e) {
            if (!path[len]) {
                if (!has_type(e, type)) {
                    fail_msg("%s: %s: an element of %s is not %s", what, rule, head, type);
                }
            }
            else {
                check_path(what, e, path + len + 1, type, optional, rule);
            }
        }
        return;
    }
    if (!path[len]) {
        if (!has_type(v, type)) {
            char *dump = json_dumps(v, JSON_ENCODE_ANY);
            fail_msg("%s: %s: %s is %s, not %s", what, rule, head, dump, type);
        }
        return;
    }
    check_path(what, v, path + len + 1, type, optional, rule);
}

static void conforms(const char *what, const json_t *doc, const char *const *rules)
{
    for (; *rules; rules++) {
        char path[256];
        const char *sp = strchr(*rules, ' ');
        int optional = (*rules)[0] == '?';
        assert_non_null(sp);
        snprintf(path, sizeof(path), "%.*s", (int)(sp - *rules - optional), *rules + optional);
        check_path(what, doc, path, sp + 1, optional, *rules);
    }
}

/* ApiAuditData: every answer, error or not, carries one. */
#define AUDIT "auditData object", "auditData.timestamp string", "auditData.token string", \
              "auditData.environment string", "auditData.processTime string"

/* ApiRate in availability and checkrates. */
#define RATE(p) p "rateKey string", p "rateClass enum:NOR|NRF", p "rateType enum:BOOKABLE|RECHECK", \
    p "net decimal", p "allotment integer", p "paymentType enum:AT_WEB|AT_HOTEL", \
    p "packaging boolean", p "boardCode string", p "boardName string", \
    p "rooms integer", p "adults integer", p "children integer", "?" p "childrenAges string", \
    "?" p "cancellationPolicies[].amount decimal", "?" p "cancellationPolicies[].from string", \
    "?" p "taxes.allIncluded boolean", "?" p "taxes.taxes[].included boolean", \
    "?" p "taxes.taxes[].amount decimal", "?" p "taxes.taxes[].currency string", \
    "?" p "offers[].code string", "?" p "offers[].name string", "?" p "offers[].amount decimal", \
    "?" p "promotions[].code string", "?" p "dailyRates[].offset integer", \
    "?" p "dailyRates[].dailyNet decimal", "?" p "rateComments string", \
    "?" p "sellingRate decimal", "?" p "hotelMandatory boolean"

static const char *const availability_rs[] = {
    AUDIT, "hotels object", "hotels.checkIn day", "hotels.checkOut day", "hotels.total integer",
    "hotels.hotels[].code integer", "hotels.hotels[].name string",
    "hotels.hotels[].categoryCode string", "hotels.hotels[].destinationCode string",
    "hotels.hotels[].destinationName string", "hotels.hotels[].latitude number",
    "hotels.hotels[].longitude number", "hotels.hotels[].minRate decimal",
    "hotels.hotels[].maxRate decimal", "hotels.hotels[].currency string",
    "hotels.hotels[].rooms[].code string", "hotels.hotels[].rooms[].name string",
    RATE("hotels.hotels[].rooms[].rates[]."), NULL};

static const char *const checkrate_rs[] = {
    AUDIT, "hotel.checkIn day", "hotel.checkOut day", "hotel.code integer", "hotel.name string",
    "hotel.categoryCode string", "hotel.rooms[].code string", "hotel.rooms[].name string",
    RATE("hotel.rooms[].rates[]."), "hotel.totalNet decimal", "hotel.currency string",
    "hotel.paymentDataRequired boolean", "hotel.modificationPolicies.cancellation boolean",
    "hotel.modificationPolicies.modification boolean", NULL};

/* BookingRS, the booking read and BookingCancellationRS: one ApiBooking.
 * (Hotelbeds writes the booking-level totalNet and pendingAmount as JSON
 * numbers in some examples and strings in others: either is accepted,
 * as the adapter reads either; the sandbox writes strings.) */
#define BOOKING "booking.reference string", "booking.clientReference string", \
    "booking.creationDate day", "booking.status enum:PRECONFIRMED|CONFIRMED|CANCELLED", \
    "booking.modificationPolicies.cancellation boolean", \
    "booking.modificationPolicies.modification boolean", "booking.creationUser string", \
    "booking.holder.name string", "booking.holder.surname string", \
    "booking.hotel.checkIn day", "booking.hotel.checkOut day", "booking.hotel.code integer", \
    "booking.hotel.name string", "booking.hotel.totalNet decimal", \
    "booking.hotel.currency string", "booking.hotel.supplier.name string", \
    "booking.hotel.supplier.vatNumber string", \
    "booking.hotel.rooms[].status enum:PRECONFIRMED|CONFIRMED|CANCELLED", \
    "booking.hotel.rooms[].id integer", "booking.hotel.rooms[].code string", \
    "booking.hotel.rooms[].name string", "?booking.hotel.rooms[].supplierReference string", \
    "booking.hotel.rooms[].paxes[].roomId integer", \
    "booking.hotel.rooms[].paxes[].type enum:AD|CH", \
    "booking.hotel.rooms[].paxes[].name string", "booking.hotel.rooms[].paxes[].surname string", \
    "booking.hotel.rooms[].rates[].rateClass enum:NOR|NRF", \
    "booking.hotel.rooms[].rates[].net decimal", \
    "booking.hotel.rooms[].rates[].paymentType enum:AT_WEB|AT_HOTEL", \
    "booking.hotel.rooms[].rates[].packaging boolean", \
    "booking.hotel.rooms[].rates[].boardCode string", \
    "booking.hotel.rooms[].rates[].boardName string", \
    "?booking.hotel.rooms[].rates[].cancellationPolicies[].amount decimal", \
    "?booking.hotel.rooms[].rates[].cancellationPolicies[].from string", \
    "booking.hotel.rooms[].rates[].rooms integer", "booking.hotel.rooms[].rates[].adults integer", \
    "booking.hotel.rooms[].rates[].children integer", "booking.invoiceCompany.code string", \
    "booking.invoiceCompany.company string", "booking.currency string"

static const char *const booking_rs[] = {AUDIT, BOOKING, NULL};
static const char *const cancellation_rs[] = {
    AUDIT, BOOKING, "booking.cancellationReference string",
    "booking.hotel.cancellationAmount decimal", NULL};
static const char *const booking_list_rs[] = {
    AUDIT, "bookings.from integer", "bookings.to integer", "bookings.total integer",
    "bookings.bookings[].reference string", "bookings.bookings[].clientReference string", NULL};
static const char *const content_hotels_rs[] = {
    AUDIT, "from integer", "to integer", "total integer", "hotels[].code integer",
    "hotels[].name.content string", "hotels[].countryCode string",
    "hotels[].destinationCode string", "hotels[].coordinates.latitude number",
    "hotels[].coordinates.longitude number", "hotels[].categoryCode string",
    "?hotels[].postalCode string", "?hotels[].giataCode integer", "hotels[].city.content string",
    NULL};
static const char *const destinations_rs[] = {
    AUDIT, "from integer", "to integer", "total integer", "destinations[].code string",
    "destinations[].name.content string", "destinations[].countryCode string", NULL};
static const char *const error_rs[] = {AUDIT, "error.code string", "error.message string", NULL};

/* Booking-level money: a decimal string or a JSON number. */
static void money_member(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (!is_decimal(v) && !json_is_number(v)) {
        fail_msg("booking.%s is neither a decimal string nor a number", k);
    }
}

/* ---- the flow ---- */

static void availability_to_cancellation_match_hotelbeds(void **state)
{
    char body[1024], in[11], out[11], path[256], ref[64], reference[64];
    e2e_resp *r;
    json_t *rate = NULL, *h, *room, *bk;
    size_t i, j;
    (void)state;
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [{\"rooms\": 1, \"adults\": 2, \"children\": 1, \"paxes\": "
             "[{\"type\": \"CH\", \"age\": 8}]}], \"destination\": {\"code\": \"CDG\"}, "
             "\"filter\": {\"maxRatesPerRoom\": 2}}", date_in(45, in), date_in(47, out));
    r = must(hb_call("POST", "/hotel-api/1.0/hotels", body, NULL), 200);
    conforms("availability", r->json, availability_rs);
    {
        /* Asked with Accept-Encoding: gzip, Hotelbeds compresses. */
        char *ce = e2e_header(r, "Content-Encoding");
        assert_non_null(ce);
        assert_string_equal(ce, "gzip");
        free(ce);
    }
    json_array_foreach(json_object_get(json_object_get(r->json, "hotels"), "hotels"), i, h) {
        json_array_foreach(json_object_get(h, "rooms"), j, room) {
            const json_t *first = json_array_get(json_object_get(room, "rates"), 0);
            /* maxRatesPerRoom is a filter of Hotelbeds': at most 2 a room. */
            assert_true(json_array_size(json_object_get(room, "rates")) <= 2);
            if (!rate && strcmp(str(first, "rateClass"), "NOR") == 0) {
                rate = json_deep_copy(first);
            }
        }
    }
    e2e_free(r);
    assert_non_null(rate);

    snprintf(body, sizeof(body), "{\"rooms\": [{\"rateKey\": \"%s\"}]}", str(rate, "rateKey"));
    r = must(hb_call("POST", "/hotel-api/1.0/checkrates", body, NULL), 200);
    conforms("checkrates", r->json, checkrate_rs);
    assert_string_equal(str(json_object_get(r->json, "hotel"), "totalNet"), str(rate, "net"));
    e2e_free(r);

    /* BookingRQ: holder, rooms[{rateKey, paxes}], clientReference, remark,
     * tolerance. */
    snprintf(ref, sizeof(ref), "hbshape-%ld-%d", (long)time(NULL), rand() % 100000);
    bk = json_pack("{s:{s:s,s:s},s:[{s:s,s:[{s:i,s:s,s:s,s:s},{s:i,s:s,s:i,s:s,s:s}]}],"
                   "s:s,s:s,s:s}", "holder", "name", "Ada", "surname", "Byron", "rooms",
                   "rateKey", str(rate, "rateKey"), "paxes", "roomId", 1, "type", "AD", "name",
                   "Ada", "surname", "Byron", "roomId", 1, "type", "CH", "age", 8, "name",
                   "Kid", "surname", "Byron", "clientReference", ref, "remark",
                   "Late arrival", "tolerance", "2.00");
    {
        /* Hotelbeds documents no Idempotency-Key, and the sandbox ignores
         * one as Hotelbeds would: the same request again under the same
         * key is not answered with the first booking but judged by its
         * clientReference (mod_travel sends none: its protocol row). */
        char *text = json_dumps(bk, 0), key[128];
        e2e_resp *again;
        snprintf(key, sizeof(key), "Idempotency-Key: %s-key", ref);
        r = must(hb_call_h("POST", "/hotel-api/1.0/bookings", text, NULL, key), 200);
        again = hb_call_h("POST", "/hotel-api/1.0/bookings", text, NULL, key);
        assert_int_equal(again->status, 409);
        assert_string_equal(str(json_object_get(again->json, "error"), "code"),
                            "DUPLICATE_CLIENT_REFERENCE");
        e2e_free(again);
        free(text);
    }
    conforms("booking", r->json, booking_rs);
    money_member(json_object_get(r->json, "booking"), "totalNet");
    money_member(json_object_get(r->json, "booking"), "pendingAmount");
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CONFIRMED");
    assert_string_equal(str(json_object_get(r->json, "booking"), "remark"), "Late arrival");
    assert_string_equal(str(json_object_get(r->json, "booking"), "clientReference"), ref);
    snprintf(reference, sizeof(reference), "%s",
             str(json_object_get(r->json, "booking"), "reference"));
    e2e_free(r);
    json_decref(bk);

    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s", reference);
    r = must(hb_call("GET", path, NULL, NULL), 200);
    conforms("booking read", r->json, booking_rs);
    e2e_free(r);

    /* BookingListRS over a window of creation days. */
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings?start=%s&end=%s&filterType=CREATION"
             "&from=1&to=25&clientReference=%s", date_in(-1, in), date_in(1, out), ref);
    r = must(hb_call("GET", path, NULL, NULL), 200);
    conforms("booking list", r->json, booking_list_rs);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "bookings"),
                                                        "total")), 1);
    e2e_free(r);

    /* SIMULATION: the cancellation's answer, and nothing cancelled. */
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s?cancellationFlag=SIMULATION",
             reference);
    r = must(hb_call("DELETE", path, NULL, NULL), 200);
    conforms("cancellation simulation", r->json, cancellation_rs);
    e2e_free(r);
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s", reference);
    r = must(hb_call("GET", path, NULL, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CONFIRMED");
    e2e_free(r);

    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s?cancellationFlag=CANCELLATION",
             reference);
    r = must(hb_call("DELETE", path, NULL, NULL), 200);
    conforms("cancellation", r->json, cancellation_rs);
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CANCELLED");
    e2e_free(r);
    json_decref(rate);
}

static void content_pages_and_errors_match_hotelbeds(void **state)
{
    e2e_resp *r;
    char body[512], rid[96];
    (void)state;
    r = must(hb_call("GET", "/hotel-content-api/1.0/locations/destinations?fields=all&"
                     "language=ENG&countryCodes=FR&from=1&to=100", NULL, NULL), 200);
    conforms("destinations", r->json, destinations_rs);
    e2e_free(r);
    /* Pages by from..to (1-based, inclusive), the total beside them. */
    r = must(hb_call("GET", "/hotel-content-api/1.0/hotels?fields=all&language=ENG&"
                     "destinationCode=LHR&from=1&to=5", NULL, NULL), 200);
    conforms("content hotels", r->json, content_hotels_rs);
    assert_int_equal(json_integer_value(json_object_get(r->json, "from")), 1);
    assert_int_equal(json_integer_value(json_object_get(r->json, "to")), 5);
    assert_int_equal(json_array_size(json_object_get(r->json, "hotels")), 5);
    assert_true(json_integer_value(json_object_get(r->json, "total")) > 5);
    e2e_free(r);
    r = must(hb_call("GET", "/hotel-content-api/1.0/hotels?destinationCode=LHR&from=6&to=10",
                     NULL, NULL), 200);
    assert_int_equal(json_integer_value(json_object_get(r->json, "from")), 6);
    e2e_free(r);

    /* ApiError: {auditData, error: {code, message}}. */
    r = hb_call("DELETE", "/hotel-api/1.0/bookings/1-0000000?cancellationFlag=NEITHER", NULL,
                NULL);
    assert_true(r->status >= 400 && r->status < 500);
    conforms("an error", r->json, error_rs);
    e2e_free(r);
    r = hb_call("POST", "/hotel-api/1.0/checkrates", "{\"rooms\": [{\"rateKey\": \"forged\"}]}",
                NULL);
    assert_true(r->status >= 400 && r->status < 500);
    conforms("an error", r->json, error_rs);
    e2e_free(r);

    /* Throttled: Hotelbeds' gateway answers 403 "Developer Over Qps",
     * named by X-Mashery-Error-Code (the sandbox's 429 fault). */
    snprintf(rid, sizeof(rid), "hbqps-%ld-%d", (long)time(NULL), rand() % 100000);
    snprintf(body, sizeof(body), "{\"api\": \"hotel_b\", \"request_id_prefix\": \"%s\", "
             "\"status\": 429, \"times\": 1}", rid);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults",
                 (const char *const[]){"Content-Type: application/json", NULL}, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    r = hb_call("GET", "/hotel-content-api/1.0/locations/destinations?countryCodes=FR", NULL,
                rid);
    assert_int_equal(r->status, 403);
    conforms("throttled", r->json, error_rs);
    assert_string_equal(str(json_object_get(r->json, "error"), "message"), "Developer Over Qps");
    {
        char *h = e2e_header(r, "X-Mashery-Error-Code");
        assert_non_null(h);
        assert_string_equal(h, "ERR_403_DEVELOPER_OVER_QPS");
        free(h);
    }
    e2e_free(r);
}

static e2e_resp *price_factor(json_int_t code, const char *factor)
{
    char ctl[256];
    snprintf(ctl, sizeof(ctl), "{\"supplier\": \"SUPPLIER_B\", \"supplier_hotel_id\": "
             "\"%lld\", \"factor\": %s}", (long long)code, factor);
    return e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices",
                    (const char *const[]){"Content-Type: application/json", NULL}, ctl);
}

/* BookingRQ's tolerance: a rateKey whose price rose 1 % since it was quoted
 * is refused with tolerance 0.50 and booked, at the new price, with 2.00. */
static void tolerance_books_a_small_rise(void **state)
{
    char body[1024], in[11], out[11], ref[64];
    e2e_resp *r;
    json_t *rate, *bk;
    json_int_t code;
    char *text;
    (void)state;
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [{\"rooms\": 1, \"adults\": 2, \"children\": 0}], "
             "\"destination\": {\"code\": \"LHR\"}, \"filter\": {\"maxRatesPerRoom\": 1}}",
             date_in(55, in), date_in(58, out));
    r = must(hb_call("POST", "/hotel-api/1.0/hotels", body, NULL), 200);
    {
        const json_t *h = json_array_get(json_object_get(json_object_get(r->json, "hotels"),
                                                         "hotels"), 3);
        code = json_integer_value(json_object_get(h, "code"));
        rate = json_deep_copy(json_array_get(json_object_get(json_array_get(
            json_object_get(h, "rooms"), 0), "rates"), 0));
    }
    e2e_free(r);
    assert_non_null(rate);
    r = price_factor(code, "1.01");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    snprintf(ref, sizeof(ref), "hbtol-%ld-%d", (long)time(NULL), rand() % 100000);
    bk = json_pack("{s:{s:s,s:s},s:[{s:s,s:[{s:i,s:s,s:s,s:s}]}],s:s,s:s}", "holder", "name",
                   "Ada", "surname", "Byron", "rooms", "rateKey", str(rate, "rateKey"), "paxes",
                   "roomId", 1, "type", "AD", "name", "Ada", "surname", "Byron",
                   "clientReference", ref, "tolerance", "0.50");
    text = json_dumps(bk, 0);
    r = hb_call("POST", "/hotel-api/1.0/bookings", text, NULL);
    free(text);
    assert_int_equal(r->status, 409);
    conforms("a refused price", r->json, error_rs);
    e2e_free(r);
    json_object_set_new(bk, "tolerance", json_string("2.00"));
    text = json_dumps(bk, 0);
    r = hb_call("POST", "/hotel-api/1.0/bookings", text, NULL);
    free(text);
    /* The prices back before asserting: other tests quote this hotel. */
    e2e_free(price_factor(code, "1"));
    must(r, 200);
    conforms("booking", r->json, booking_rs);
    assert_string_not_equal(str(json_object_get(json_object_get(r->json, "booking"), "hotel"),
                                "totalNet"), str(rate, "net"));
    e2e_free(r);
    json_decref(bk);
    json_decref(rate);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(availability_to_cancellation_match_hotelbeds),
        cmocka_unit_test(content_pages_and_errors_match_hotelbeds),
        cmocka_unit_test(tolerance_books_a_small_rise),
    };
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    return e2e_run("sandbox_hotelbeds", tests, sizeof(tests) / sizeof(tests[0]));
}
