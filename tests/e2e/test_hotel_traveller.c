/* The traveller behind a hotel request reaches the supplier that asks for
 * one (Expedia Rapid, hotel SUPPLIER_C: Customer-Ip, Customer-Session-Id,
 * language), over real HTTP through the gateway: what the client states in
 * x-travel-customer-ip, x-travel-customer-session and Accept-Language is
 * what the sandbox's Rapid received (sandbox.rapid_travellers, by request
 * id), on search, offers and prebook, and prebook's traveller on the
 * booking's later calls (book, the cancellation estimate) whatever those
 * requests carry; without a stated IP the connection's address is the
 * traveller's; a malformed header is refused and changes nothing. */
#include "hotel_e2e.h"

#include <unistd.h>

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-traveller", NULL);
    return 0;
}

/* A request id of this test's own. */
static const char *rid(const char *what)
{
    static char buf[8][128];
    static int n;
    char *b = buf[n++ % 8];
    snprintf(b, 128, "trav-%s-%ld-%d", what, (long)getpid(), rand());
    return b;
}

/* POST path with the key, request id and the traveller headers given
 * (NULL: left out), from the local address source (NULL: any). */
static e2e_resp *post(const char *source, const char *path, const char *body, const char *r,
                      const char *ip, const char *session, const char *lang, const char *idem)
{
    char h[6][400];
    const char *hs[8];
    int n = 0;
    snprintf(h[0], 400, "x-api-key: %s", key);
    hs[n++] = h[0];
    hs[n++] = "Content-Type: application/json";
    snprintf(h[1], 400, "x-request-id: %s", r);
    hs[n++] = h[1];
    if (ip) {
        snprintf(h[2], 400, "x-travel-customer-ip: %s", ip);
        hs[n++] = h[2];
    }
    if (session) {
        snprintf(h[3], 400, "x-travel-customer-session: %s", session);
        hs[n++] = h[3];
    }
    if (lang) {
        snprintf(h[4], 400, "Accept-Language: %s", lang);
        hs[n++] = h[4];
    }
    if (idem) {
        snprintf(h[5], 400, "x-idempotency-key: %s", idem);
        hs[n++] = h[5];
    }
    hs[n] = NULL;
    return e2e_call_from(source, e2e_url(), "POST", path, hs, body);
}

/* The stay of this test: days ahead of its own, so that no other test's
 * search (or this one's cache) answers for the supplier. */
static char *stay(int days)
{
    char *s = malloc(512);
    snprintf(s, 512, "\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}],"
             "\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\"",
             fe_date(days), fe_date(days + 2));
    return s;
}

/* How many calls with request id r reached the sandbox's Rapid, and how
 * many of them carried exactly this traveller (language NULL: any; a call
 * without a language parameter, such as a price check, counts). */
static long calls(const char *r)
{
    return e2e_sql_long("SELECT count(*) FROM sandbox.rapid_travellers WHERE request_id = $1",
                        1, (const char *const[]){r});
}

static long calls_as(const char *r, const char *ip, const char *session, const char *lang)
{
    return e2e_sql_long("SELECT count(*) FROM sandbox.rapid_travellers WHERE request_id = $1 "
                        "AND customer_ip = $2 AND customer_session_id = $3 "
                        "AND ($4::text IS NULL OR language IS NULL OR language = $4)",
                        4, (const char *const[]){r, ip, session, lang});
}

static long calls_with_language(const char *r, const char *lang)
{
    return e2e_sql_long("SELECT count(*) FROM sandbox.rapid_travellers WHERE request_id = $1 "
                        "AND language = $2", 2, (const char *const[]){r, lang});
}

/* Every call of request r carried the traveller, and there was one. */
static void assert_traveller(const char *r, const char *ip, const char *session,
                             const char *lang)
{
    long n = calls(r);
    if (n == 0 || calls_as(r, ip, session, lang) != n) {
        fail_msg("request %s: %ld call(s) reached Rapid, %ld of them as %s / %s / %s: %s", r, n,
                 calls_as(r, ip, session, lang), ip, session, lang ? lang : "-",
                 e2e_sql_text("SELECT string_agg(method || ' ' || path || ' ' || "
                              "coalesce(customer_ip, '-') || ' ' || "
                              "coalesce(customer_session_id, '-') || ' ' || "
                              "coalesce(language, '-'), '; ') FROM sandbox.rapid_travellers "
                              "WHERE request_id = $1", 1, (const char *const[]){r}));
    }
}

/* Search, offers and prebook carry the traveller the client states; the
 * booking's book and estimate carry prebook's, whatever they state. */
static void the_stated_traveller_reaches_rapid(void **state)
{
    char *s = stay(61 + (int)(getpid() % 20)), body[2048], path[256], session[64];
    const char *r1 = rid("search"), *r2 = rid("offers"), *r3 = rid("prebook");
    const char *r4 = rid("book"), *r5 = rid("estimate"), *hotel, *id;
    char *pb;
    e2e_resp *r;
    json_t *offer;
    (void)state;
    snprintf(session, sizeof(session), "shop-%ld-%d", (long)getpid(), rand());
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"Paris\",\"country_code\":\"FR\"},"
             "%s,\"limit\":5,\"supplier\":\"SUPPLIER_C\"}", s);
    r = post(NULL, "/v1/hotel/search", body, r1, "198.51.100.23", session,
             "fr-CH, de;q=0.5, en;q=0.1", NULL);
    fe_expect(r, 200, "a SUPPLIER_C search");
    hotel = fe_s(json_array_get(fe_data(r), 0), "supplier_hotel_id");
    assert_non_null(hotel);
    hotel = strdup(hotel);
    e2e_free(r);
    assert_traveller(r1, "198.51.100.23", session, "fr-FR");
    /* The language reached the shopping calls (availability at least). */
    assert_true(calls_with_language(r1, "fr-FR") >= 1);

    snprintf(body, sizeof(body), "{\"supplier\":\"SUPPLIER_C\",\"supplier_hotel_ids\":[\"%s\"],"
             "%s,\"max_offers_per_hotel\":1}", hotel, s);
    r = post(NULL, "/v1/hotel/offers", body, r2, "198.51.100.23", session, "pt-BR", NULL);
    fe_expect(r, 200, "SUPPLIER_C offers");
    offer = json_deep_copy(json_array_get(fe_data(r), 0));
    assert_non_null(offer);
    e2e_free(r);
    assert_traveller(r2, "198.51.100.23", session, "pt-BR");
    assert_int_equal(calls_with_language(r2, "pt-BR"), calls(r2));

    /* The prebook's traveller (an IPv6 address this time) is the booking's. */
    pb = malloc(2048);
    snprintf(pb, 2048, "{\"offer_reference\":\"%s\",\"reference_id\":\"trav\","
             "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"email\":\"ada@example.com\",\"phone\":\"+442079460000\"},"
             "\"rooms\":[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Bo\","
             "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]}]}",
             fe_s(offer, "offer_reference"));
    r = post(NULL, "/v1/hotel/prebook", pb, r3, "2001:db8::17", session, "de-AT", r3);
    fe_expect(r, 201, "a SUPPLIER_C prebook");
    id = strdup(fe_s(fe_data(r), "id"));
    e2e_free(r);
    assert_traveller(r3, "2001:db8::17", session, NULL);

    /* Book from another address with other headers: the booking's calls
     * speak for prebook's traveller. */
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    r = post("127.0.0.2", path, "{\"payment_instrument_id\":\"pi_test_visa\"}", r4,
             "192.0.2.99", "another-session", NULL, NULL);
    fe_expect(r, 200, "book at SUPPLIER_C");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    e2e_free(r);
    assert_traveller(r4, "2001:db8::17", session, NULL);

    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/cancellation-estimate", id);
    {
        char kh[400], rh[200];
        const char *hs[] = {kh, rh, NULL};
        snprintf(kh, sizeof(kh), "x-api-key: %s", key);
        snprintf(rh, sizeof(rh), "x-request-id: %s", r5);
        r = e2e_call(e2e_url(), "GET", path, hs, NULL);
    }
    fe_expect(r, 200, "the cancellation estimate (Rapid's preview)");
    e2e_free(r);
    assert_traveller(r5, "2001:db8::17", session, NULL);
    json_decref(offer);
    free(pb);
    free(s);
}

/* No stated IP: the connection's address (another loopback address, so
 * that it cannot be the adapter's stand-in 127.0.0.1); no session: the
 * request's id; no Accept-Language (or none of Rapid's): en-US. */
static void the_connection_is_the_traveller_by_default(void **state)
{
    char *s = stay(83 + (int)(getpid() % 20)), body[1024];
    const char *r1 = rid("conn"), *r2 = rid("nolang");
    e2e_resp *r;
    (void)state;
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"Berlin\",\"country_code\":\"DE\"},"
             "%s,\"limit\":5,\"supplier\":\"SUPPLIER_C\"}", s);
    r = post("127.0.0.3", "/v1/hotel/search", body, r1, NULL, NULL, NULL, NULL);
    fe_expect(r, 200, "a SUPPLIER_C search");
    e2e_free(r);
    assert_traveller(r1, "127.0.0.3", r1, "en-US");
    assert_true(calls_with_language(r1, "en-US") >= 1);
    free(s);
    s = stay(105 + (int)(getpid() % 20));
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"Berlin\",\"country_code\":\"DE\"},"
             "%s,\"limit\":5,\"supplier\":\"SUPPLIER_C\"}", s);
    r = post("127.0.0.4", "/v1/hotel/search", body, r2, NULL, "s-2", "xx-YY, *;q=0.5", NULL);
    fe_expect(r, 200, "a SUPPLIER_C search");
    e2e_free(r);
    assert_traveller(r2, "127.0.0.4", "s-2", "en-US");
    free(s);
}

/* A malformed traveller header is a 422 naming it; prebook then makes
 * nothing and no call reaches the supplier. */
static void a_malformed_traveller_is_refused(void **state)
{
    char *s = stay(127), body[1024], longs[260];
    const char *r1 = rid("badip"), *r2 = rid("badsession"), *r3 = rid("badprebook");
    e2e_resp *r;
    (void)state;
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"Paris\",\"country_code\":\"FR\"},"
             "%s,\"supplier\":\"SUPPLIER_C\"}", s);
    r = post(NULL, "/v1/hotel/search", body, r1, "203.0.113.7:443", NULL, NULL, NULL);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "\"field\":\"x-travel-customer-ip\""));
    e2e_free(r);
    assert_int_equal(calls(r1), 0);
    memset(longs, 's', 201);
    longs[201] = '\0';
    r = post(NULL, "/v1/hotel/offers", "{}", r2, NULL, longs, NULL, NULL);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "\"field\":\"x-travel-customer-session\""));
    e2e_free(r);
    r = post(NULL, "/v1/hotel/prebook", "{\"offer_reference\":\"x\"}", r3, "999.1.1.1", NULL,
             NULL, r3);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "\"field\":\"x-travel-customer-ip\""));
    e2e_free(r);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_bookings WHERE idempotency_key = $1",
                                  1, (const char *const[]){r3}), 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_stated_traveller_reaches_rapid),
        cmocka_unit_test(the_connection_is_the_traveller_by_default),
        cmocka_unit_test(a_malformed_traveller_is_refused),
    };
    srand((unsigned)getpid());
    if (setup(NULL) != 0) {
        return 1;
    }
    return E2E_RUN("hotel_traveller", tests);
}
