/* The conformance kit: mod_travel's own adapter for a protocol, called as
 * the gateway calls it, against any server that speaks that protocol — the
 * sandbox, a partner's implementation of mod_travel's protocols, or a
 * vendor's test endpoint — checking the contract the gateway relies on
 * (flight/supplier.h, hotel/supplier.h): search, then (unless
 * CONFORMANCE_BOOK=0) price, book, read, cancel, and read again.
 *
 * Run by `make conformance` (scripts/conformance.sh, docs/suppliers.md
 * "Conformance kit"). Environment:
 *   PROTOCOL            duffel, travel-air, liteapi, travel-hotel-b, travel-hotel-c
 *                       (any protocol the gateway registers)
 *   SUPPLIER_URL        the base URL, as on a TravelSupplier line; unset:
 *                       SANDBOX_URL's listing (GET /sandbox/suppliers) gives
 *                       the base URL and test credentials of PROTOCOL
 *   SUPPLIER_KEY[_FILE] the key (token, api_key) of the line
 *   SUPPLIER_SECRET[_FILE]  the signing secret (travel-hotel-b, -c)
 *   SUPPLIER_SECOND_URL the protocol's second base (liteapi's book_url)
 *   PAYMENT_URL, PAYMENT_KEY[_FILE], PAYMENT_INSTRUMENT
 *                       the payment provider that forwards a saved card to a
 *                       supplier that charges the traveller (travel-hotel-c);
 *                       sandbox defaults: SANDBOX_URL/payments, its test key,
 *                       pi_test_visa
 *   CONFORMANCE_BOOK    1 (default): book and cancel too; 0: calls that
 *                       change nothing at the supplier (search, offers, bags,
 *                       airline, reads)
 *   CONFORMANCE_ROUTE   flights: ORIGIN-DESTINATION (default LHR-JFK)
 *   CONFORMANCE_CITY    hotels: City,CC (default London,GB)
 *   CONFORMANCE_DAYS    days ahead of the trip (default 250)
 *   CONFORMANCE_CURRENCY  hotels (default EUR)
 *   CONFORMANCE_TIMEOUT seconds one call may take (default 30)
 * Exit status 0 when every check passed. */
#include "core/clock.h"
#include "core/config.h"
#include "core/env.h"
#include "core/http.h"
#include "core/json.h"
#include "core/money.h"
#include "core/registry.h"
#include "flight/supplier.h"
#include "gateway/gateway.h"
#include "hotel/supplier.h"

#include <apr_general.h>
#include <apr_strings.h>
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

static apr_pool_t *root;
static trv_env env;
static trv_config cfg;
static trv_upstream up, pay;
static const trv_supplier *row;  /* the protocol's row */
static volatile apr_uint32_t stopping;
static const char *rid;          /* x-request-id of every call */
static int booking;              /* CONFORMANCE_BOOK */
static int days;
static const char *instrument;

/* ---- set-up: the line from the environment, or from the sandbox ---- */

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* NAME, else the first line of the file NAME_FILE names, else NULL. */
static const char *secret_of(const char *name)
{
    const char *v = env_or(name, NULL), *file = env_or(apr_pstrcat(root, name, "_FILE", NULL),
                                                       NULL);
    char buf[4097];
    size_t n;
    FILE *f;
    if (v || !file) {
        return v;
    }
    if (!(f = fopen(file, "r"))) {
        fprintf(stderr, "conformance: cannot read %s_FILE %s\n", name, file);
        exit(2);
    }
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    while (n && isspace((unsigned char)buf[n - 1])) {
        n--;
    }
    buf[n] = '\0';
    return apr_pstrdup(root, buf);
}

static void log_line(void *baton, int level, const char *request_id, const char *msg)
{
    (void)baton;
    (void)request_id;
    if (level <= TRV_LOG_WARNING) {
        fprintf(stderr, "    log: %s\n", msg);
    }
}

/* The sandbox's own listing of PROTOCOL: base URL, second base, test
 * credentials (docs/sandbox.md, GET /sandbox/suppliers). */
static void from_sandbox(const char *sandbox)
{
    trv_http_req rq;
    trv_http_resp rs;
    json_t *list, *s, *creds;
    size_t i;
    memset(&rq, 0, sizeof(rq));
    rq.method = "GET";
    rq.url = apr_pstrcat(root, sandbox, "/sandbox/suppliers", NULL);
    rq.timeout = apr_time_from_sec(10);
    if (trv_http_perform(env.http, root, &rq, &rs) != APR_SUCCESS || rs.status != 200
        || !(list = trv_json_parse(root, rs.body, rs.body_len, NULL))) {
        fprintf(stderr, "conformance: %s does not list its suppliers (%s)\n", rq.url,
                rs.error ? rs.error : "no JSON list");
        exit(2);
    }
    json_array_foreach(list, i, s) {
        if (strcmp(json_string_value(json_object_get(s, "protocol")), up.protocol) != 0) {
            continue;
        }
        creds = json_object_get(s, "test_credentials");
        up.base_url = json_string_value(json_object_get(s, "base_url"));
        up.api_key = json_string_value(json_object_get(creds, row->creds.key));
        up.api_secret = row->creds.secret
                            ? json_string_value(json_object_get(creds, row->creds.secret)) : NULL;
        if (row->creds.second_base) {
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(s, "base_urls"), k, v) {
                up.second_base_url = json_string_value(v);
            }
        }
        return;
    }
    fprintf(stderr, "conformance: the sandbox at %s serves no %s supplier\n", sandbox,
            up.protocol);
    exit(2);
}

static void configure(void)
{
    const char *sandbox = env_or("SANDBOX_URL", NULL);
    apr_interval_time_t timeout = apr_time_from_sec(atoi(env_or("CONFORMANCE_TIMEOUT", "30")));

    up.protocol = env_or("PROTOCOL", NULL);
    if (!up.protocol || !(row = trv_protocol_lookup(trv_gateway_domains(), up.protocol))) {
        const trv_domain *const *d;
        fprintf(stderr, "conformance: PROTOCOL must name a protocol the gateway registers:");
        for (d = trv_gateway_domains(); *d; d++) {
            const trv_supplier *s;
            for (s = (*d)->suppliers; s && s->name; s++) {
                fprintf(stderr, " %s", s->name);
            }
        }
        fprintf(stderr, "\n");
        exit(2);
    }
    up.name = apr_pstrcat(root, "CONFORMANCE_", up.protocol, NULL);
    up.connect_timeout = timeout;
    up.timeout = timeout;
    up.base_url = env_or("SUPPLIER_URL", NULL);
    if (up.base_url) {
        up.api_key = secret_of("SUPPLIER_KEY");
        up.api_secret = secret_of("SUPPLIER_SECRET");
        up.second_base_url = env_or("SUPPLIER_SECOND_URL", NULL);
    }
    else if (sandbox) {
        from_sandbox(sandbox);
    }
    else {
        fprintf(stderr, "conformance: set SUPPLIER_URL (or SANDBOX_URL)\n");
        exit(2);
    }
    if (!up.api_key || (row->creds.secret && !up.api_secret)
        || (row->creds.second_base && !up.second_base_url)) {
        fprintf(stderr, "conformance: %s needs SUPPLIER_KEY%s%s\n", up.protocol,
                row->creds.secret ? ", SUPPLIER_SECRET" : "",
                row->creds.second_base ? " and SUPPLIER_SECOND_URL" : "");
        exit(2);
    }
    pay.name = "payment";
    pay.base_url = env_or("PAYMENT_URL", sandbox ? apr_pstrcat(root, sandbox, "/payments", NULL)
                                                 : NULL);
    pay.api_key = secret_of("PAYMENT_KEY");
    if (!pay.api_key && sandbox && !env_or("SUPPLIER_URL", NULL)) {
        pay.api_key = "sandbox-key-pay"; /* the development sandbox's test key */
    }
    pay.connect_timeout = timeout;
    pay.timeout = timeout;
    instrument = env_or("PAYMENT_INSTRUMENT", "pi_test_visa");
    if (pay.base_url && pay.api_key) {
        cfg.payment = &pay;
    }
    booking = strcmp(env_or("CONFORMANCE_BOOK", "1"), "0") != 0;
    days = atoi(env_or("CONFORMANCE_DAYS", "250"));
    rid = apr_psprintf(root, "conformance-%s-%d-%ld", up.protocol, (int)getpid(),
                       (long)time(NULL));
    printf("conformance: %s at %s (%s)%s\n", up.protocol, up.base_url,
           booking ? "search, price, book, read, cancel" : "calls that change nothing",
           up.second_base_url ? apr_pstrcat(root, ", second base ", up.second_base_url, NULL)
                              : "");
}

/* ---- shared checks ---- */

static apr_pool_t *pool;         /* per check */

static int per_check(void **state)
{
    (void)state;
    apr_pool_create(&pool, root);
    return 0;
}

static int after_check(void **state)
{
    (void)state;
    apr_pool_destroy(pool);
    return 0;
}

static void want(trv_up_status st, trv_up_status wanted, const char *what, const char *code,
                 const char *message)
{
    if (st != wanted) {
        fail_msg("%s: %s (wanted %s): %s %s", what, trv_up_status_name(st),
                 trv_up_status_name(wanted), code ? code : "", message ? message : "");
    }
}

/* A Money object: {amount, currency} with an amount the currency allows. */
static apr_int64_t money_minor(const json_t *m, const char *what)
{
    trv_money v;
    const char *reason = NULL;
    if (trv_money_from_json(m, &v, &reason) != APR_SUCCESS) {
        fail_msg("%s is not Money: %s", what, reason ? reason : "unreadable");
    }
    return v.minor;
}

/* "452.55 GBP", exactly as the adapter read it. */
static const char *money_text(const json_t *m)
{
    trv_money v;
    const char *reason = NULL;
    if (trv_money_from_json(m, &v, &reason) != APR_SUCCESS) {
        return "(not Money)";
    }
    return apr_pstrcat(root, trv_money_decimal(root, v.minor, trv_currency_exponent(v.currency)),
                       " ", v.currency, NULL);
}

static void future_instant(const char *s, const char *what)
{
    apr_time_t t;
    if (!s || trv_time_parse(s, &t) != APR_SUCCESS) {
        fail_msg("%s is not an RFC 3339 instant: %s", what, s ? s : "(absent)");
    }
    if (t <= apr_time_now()) {
        fail_msg("%s is in the past: %s", what, s);
    }
}

static const char *date_ahead(int n)
{
    time_t t = time(NULL) + (time_t)n * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    return apr_psprintf(root, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* ---- flights ---- */

static struct {
    json_t *offer, *priced, *pax, *order;
    const char *carrier;
} fl;

static trv_flight_ctx fctx(void)
{
    trv_flight_ctx c = {&env, pool, rid, &up};
    return c;
}

static const trv_flight_supplier *fsup(void)
{
    return row->adapter;
}

static void flight_search(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    const char *route = env_or("CONFORMANCE_ROUTE", "LHR-JFK"), *dash = strchr(route, '-');
    const char *from = dash ? apr_pstrndup(root, route, (apr_size_t)(dash - route)) : "LHR";
    const char *to = dash ? dash + 1 : "JFK";
    json_t *q = trv_json_bind(pool, json_pack(
        "{s:[{s:s,s:s,s:s}],s:{s:i,s:i,s:i},s:s,s:i}", "journeys", "origin", from,
        "destination", to, "date", date_ahead(days), "passengers", "adults", 1, "children", 0,
        "infants", 0, "cabin_class", "ECONOMY", "limit", 20));
    json_t *offers = NULL;
    const json_t *o;
    size_t i, k;
    int truncated = 0;
    (void)state;
    want(fsup()->search(&c, q, &offers, &truncated, &err), TRV_UP_OK, "search", err.code,
         err.message);
    if (!json_is_array(offers) || json_array_size(offers) == 0) {
        fail_msg("search %s-%s on %s: no offers", from, to, date_ahead(days));
    }
    json_array_foreach(offers, i, o) {
        const json_t *journeys = json_object_get(o, "journeys"), *j, *seg;
        if (trv_flight_supplier_of_offer(str(o, "offer_reference")) != fsup()) {
            fail_msg("offer %zu: offer_reference %s is not the adapter's", i,
                     str(o, "offer_reference"));
        }
        assert_true(money_minor(json_object_get(o, "total_amount"), "total_amount") > 0);
        future_instant(str(o, "expires_at"), "expires_at");
        assert_int_equal(json_array_size(journeys), 1);
        j = json_array_get(journeys, 0);
        assert_string_equal(str(j, "origin"), from);
        assert_string_equal(str(j, "destination"), to);
        assert_true(json_array_size(json_object_get(j, "segments")) >= 1);
        json_array_foreach(json_object_get(j, "segments"), k, seg) {
            assert_non_null(str(seg, "marketing_carrier_code"));
            assert_non_null(str(seg, "marketing_flight"));
            assert_int_equal(strlen(str(seg, "departure_time")), 19); /* local time */
            assert_int_equal(strlen(str(seg, "arrival_time")), 19);
        }
    }
    o = json_array_get(offers, 0);
    fl.offer = json_deep_copy(o);
    fl.carrier = apr_pstrdup(root, str(json_array_get(json_object_get(json_array_get(
        json_object_get(o, "journeys"), 0), "segments"), 0), "marketing_carrier_code"));
    printf("    %zu offers; the first %s, %s\n", json_array_size(offers),
           str(o, "offer_reference"), money_text(json_object_get(o, "total_amount")));
}

static void flight_bags(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *bags = NULL;
    const json_t *b;
    size_t i;
    (void)state;
    if (!fl.offer) {
        skip();
    }
    want(fsup()->bags(&c, str(fl.offer, "offer_reference"), &bags, &err), TRV_UP_OK, "bags",
         err.code, err.message);
    assert_true(json_is_array(bags));
    json_array_foreach(bags, i, b) {
        assert_int_equal(strncmp(str(b, "id"), "bag_", 4), 0);
        assert_true(money_minor(json_object_get(b, "unit_amount"), "unit_amount") > 0);
    }
    printf("    %zu bags for sale\n", json_array_size(bags));
}

static void flight_airline(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *airline = NULL;
    (void)state;
    if (!fl.carrier) {
        skip();
    }
    want(fsup()->airline(&c, fl.carrier, &airline, &err), TRV_UP_OK, "airline", err.code,
         err.message);
    assert_string_equal(str(airline, "iata_code"), fl.carrier);
    assert_non_null(str(airline, "name"));
    printf("    airline %s: %s\n", fl.carrier, str(airline, "name"));
}

static void flight_unknown_order(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *order = NULL;
    (void)state;
    want(fsup()->read_order(&c, "ord_0000conformance0000000000", &order, &err),
         TRV_UP_NOT_FOUND, "reading an unknown order", err.code, err.message);
}

static json_t *contact(void)
{
    return trv_json_bind(pool, json_pack("{s:s,s:s,s:s,s:s,s:s}", "first_name", "Ada",
                                         "last_name", "Conformance", "email",
                                         "ada@example.com", "phone_number", "2079460000",
                                         "phone_country_code", "44"));
}

static void flight_prebook(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *priced = NULL;
    (void)state;
    if (!fl.offer || !booking) {
        skip();
    }
    fl.pax = json_pack("[{s:s,s:s,s:s,s:s,s:s,s:s,s:[]}]", "first_name", "Ada", "last_name",
                       "Conformance", "birthday", "1985-04-12", "type", "ADULT", "gender", "F",
                       "nationality", "GB", "loyalty_accounts");
    want(fsup()->prebook(&c, str(fl.offer, "offer_reference"), fl.pax, contact(),
                         trv_json_bind(pool, json_array()), &priced, &err),
         TRV_UP_OK, "prebook", err.code, err.message);
    assert_true(money_minor(json_object_get(priced, "total_amount"), "total_amount") > 0);
    assert_string_equal(str(json_object_get(priced, "total_amount"), "currency"),
                        str(json_object_get(fl.offer, "total_amount"), "currency"));
    assert_true(json_is_object(json_object_get(priced, "supplier_data")));
    assert_true(json_array_size(json_object_get(priced, "journeys")) >= 1);
    assert_true(json_is_object(json_object_get(priced, "hold")));
    fl.priced = json_deep_copy(priced);
}

static void flight_book(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *order = NULL, *bk, *payment = NULL;
    const char *status;
    (void)state;
    if (!fl.priced) {
        skip();
    }
    bk = trv_json_bind(pool, json_pack("{s:s,s:O,s:O,s:O,s:o,s:[]}", "id",
                                       apr_psprintf(pool, "bkg_conformance-%s", rid),
                                       "supplier_data", json_object_get(fl.priced, "supplier_data"),
                                       "total_amount", json_object_get(fl.priced, "total_amount"),
                                       "passengers", fl.pax, "contact", contact(), "services"));
    /* A supplier that charges the traveller takes no payment from us. */
    if (!trv_supplier_can(row, TRV_SUP_COLLECTS_PAYMENT)) {
        payment = trv_json_bind(pool, json_pack("{s:s}", "authorization_id",
                                                "auth_conformance"));
    }
    want(fsup()->book(&c, bk, payment, apr_pstrcat(pool, rid, ":book", NULL), &order, &err),
         TRV_UP_OK, "book", err.code, err.message);
    status = str(order, "status");
    if (!status || (strcmp(status, "TICKETED") != 0 && strcmp(status, "PENDING") != 0)) {
        fail_msg("book: status %s (%s)", status ? status : "(absent)",
                 json_object_get(order, "failure")
                     ? trv_json_dump(pool, json_object_get(order, "failure"))
                     : "no failure given");
    }
    assert_non_null(str(order, "order_id"));
    fl.order = json_deep_copy(order);
    printf("    order %s %s\n", str(order, "order_id"), status);
}

static void flight_read(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *order = NULL;
    (void)state;
    if (!fl.order) {
        skip();
    }
    want(fsup()->read_order(&c, str(fl.order, "order_id"), &order, &err), TRV_UP_OK,
         "reading the order", err.code, err.message);
    assert_string_equal(str(order, "order_id"), str(fl.order, "order_id"));
    assert_true(strcmp(str(order, "status"), "TICKETED") == 0
                || strcmp(str(order, "status"), "PENDING") == 0);
    assert_true(json_is_array(json_object_get(order, "airline_initiated_changes")));
}

static void flight_quote_and_cancel(void **state)
{
    trv_flight_ctx c = fctx();
    trv_sup_err err = {0};
    json_t *quote = NULL, *result = NULL, *order = NULL;
    trv_up_status st;
    (void)state;
    if (!fl.order) {
        skip();
    }
    st = fsup()->cancellation_quote(&c, str(fl.order, "order_id"), &quote, &err);
    if (st == TRV_UP_OK) {
        money_minor(json_object_get(quote, "fee"), "quote fee");
        money_minor(json_object_get(quote, "refundable_amount"), "quote refundable_amount");
        printf("    quote: refundable %s\n",
               money_text(json_object_get(quote, "refundable_amount")));
    }
    else if (st != TRV_UP_NOT_FOUND && st != TRV_UP_REJECTED) {
        want(st, TRV_UP_OK, "cancellation quote", err.code, err.message);
    }
    else {
        printf("    no quote (%s): the gateway estimates from the fare terms\n", err.code);
    }
    memset(&err, 0, sizeof(err));
    want(fsup()->cancel(&c, str(fl.order, "order_id"), apr_pstrcat(pool, rid, ":cancel", NULL),
                        &result, &err), TRV_UP_OK, "cancel", err.code, err.message);
    assert_true(money_minor(json_object_get(result, "fee"), "fee") >= 0);
    assert_true(money_minor(json_object_get(result, "refund_amount"), "refund_amount") >= 0);
    want(fsup()->read_order(&c, str(fl.order, "order_id"), &order, &err), TRV_UP_OK,
         "reading the canceled order", err.code, err.message);
    assert_string_equal(str(order, "status"), "CANCELED");
}

/* ---- hotels ---- */

static struct {
    trv_hotel_stay stay;
    const char *sid, *ref;
    int have_offer;
    trv_hotel_prebooked pb;
    int prebooked;
    const char *booking_id, *client_reference;
} ho;

static trv_hotel_ctx hctx(void)
{
    trv_hotel_ctx c;
    memset(&c, 0, sizeof(c));
    c.env = &env;
    c.pool = pool;
    c.request_id = rid;
    c.up = &up;
    return c;
}

static const trv_hotel_supplier *hsup(void)
{
    return row->adapter;
}

static void hotel_check(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_up_result res;
    (void)state;
    if (!hsup()->check) {
        skip();
    }
    want(hsup()->check(&c, &res), TRV_UP_OK, "check (one authenticated call)", res.code,
         res.message);
}

static void hotel_search(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    const char *city = env_or("CONFORMANCE_CITY", "London,GB"), *comma = strchr(city, ',');
    trv_hotel_area area = {comma ? apr_pstrndup(root, city, (apr_size_t)(comma - city)) : city,
                           comma ? comma + 1 : "GB", 0, 0, 0, 0};
    apr_array_header_t *found = NULL;
    int i, priced = 0;
    (void)state;
    memset(&ho.stay, 0, sizeof(ho.stay));
    ho.stay.check_in = date_ahead(days);
    ho.stay.check_out = date_ahead(days + 2);
    ho.stay.nights = 2;
    ho.stay.n_rooms = 1;
    ho.stay.rooms[0].adults = 2;
    apr_cpystrn(ho.stay.currency, env_or("CONFORMANCE_CURRENCY", "EUR"), 4);
    ho.stay.nationality = "GB";
    ho.stay.residence = "GB";
    want(hsup()->search(&c, &area, &ho.stay, &found, &err), TRV_UP_OK, "search", err.code,
         err.message);
    for (i = 0; found && i < found->nelts; i++) {
        const trv_hotel_found *f = &APR_ARRAY_IDX(found, i, trv_hotel_found);
        assert_non_null(f->sid);
        assert_non_null(f->name);
        if (f->priced) {
            assert_true(f->total_minor > 0);
            if (!priced++) {
                ho.sid = apr_pstrdup(root, f->sid);
            }
        }
    }
    if (!priced) {
        fail_msg("search %s, %s: no hotel priced for %s..%s", area.city, area.country_code,
                 ho.stay.check_in, ho.stay.check_out);
    }
    printf("    %d hotels, %d priced\n", found->nelts, priced);
}

static void hotel_offers(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    apr_array_header_t *offers = NULL;
    int i;
    (void)state;
    if (!ho.sid) {
        skip();
    }
    want(hsup()->offers(&c, &ho.stay, &ho.sid, 1, 3, &offers, &err), TRV_UP_OK, "offers",
         err.code, err.message);
    if (!offers || !offers->nelts) {
        fail_msg("offers of hotel %s: none", ho.sid);
    }
    for (i = 0; i < offers->nelts; i++) {
        const trv_hotel_offer *o = &APR_ARRAY_IDX(offers, i, trv_hotel_offer);
        assert_string_equal(o->sid, ho.sid);
        assert_non_null(o->ref);
        assert_true(o->total_minor > 0);
        assert_true(o->expires_at > apr_time_now());
        assert_int_equal(json_array_size(json_object_get(o->doc, "rooms")), 1);
        assert_true(json_is_object(json_object_get(o->doc, "cancellation_policy")));
    }
    ho.ref = apr_pstrdup(root, APR_ARRAY_IDX(offers, 0, trv_hotel_offer).ref);
    ho.have_offer = 1;
    printf("    %d offers of hotel %s\n", offers->nelts, ho.sid);
}

static void hotel_unknown_booking(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_booked out;
    (void)state;
    memset(&out, 0, sizeof(out));
    want(hsup()->retrieve(&c, "conformance-unknown-booking", NULL, &out, &err),
         TRV_UP_NOT_FOUND, "reading an unknown booking", err.code, err.message);
}

static void hotel_prebook(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    (void)state;
    if (!ho.have_offer || !booking || !hsup()->prebook) {
        skip();
    }
    want(hsup()->prebook(&c, &ho.stay, ho.sid, ho.ref, &ho.pb, &err), TRV_UP_OK, "prebook",
         err.code, err.message);
    assert_non_null(ho.pb.prebook_id);
    assert_true(ho.pb.total_minor > 0);
    assert_true(ho.pb.expires_at > apr_time_now());
    ho.pb.prebook_id = apr_pstrdup(root, ho.pb.prebook_id);
    ho.prebooked = 1;
}

static void hotel_book(void **state)
{
    static trv_hotel_guest guests[2] = {{"Ada", "Conformance", 1, 0},
                                        {"Bo", "Conformance", 0, 0}};
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_party party;
    trv_hotel_book_req rq;
    trv_hotel_booked out;
    (void)state;
    if (!ho.prebooked) {
        skip();
    }
    memset(&party, 0, sizeof(party));
    party.first_name = "Ada";
    party.last_name = "Conformance";
    party.email = "ada@example.com";
    party.phone = "+442079460000";
    party.n_rooms = 1;
    party.n_guests[0] = 2;
    party.guests[0] = guests;
    memset(&rq, 0, sizeof(rq));
    rq.stay = &ho.stay;
    rq.sid = ho.sid;
    rq.prebook_id = ho.pb.prebook_id;
    rq.total_minor = ho.pb.total_minor;
    ho.client_reference = apr_psprintf(root, "conf-%d-%ld", (int)getpid(), (long)time(NULL));
    rq.client_reference = ho.client_reference;
    rq.party = &party;
    /* A supplier that charges the traveller gets the card from the payment
     * provider's vault, never from us. */
    if (trv_supplier_can(row, TRV_SUP_COLLECTS_PAYMENT)) {
        if (!cfg.payment) {
            fail_msg("%s charges the traveller: set PAYMENT_URL and PAYMENT_KEY",
                     up.protocol);
        }
        rq.payment_instrument_id = instrument;
    }
    rq.idempotency_key = apr_pstrcat(pool, rid, ":book", NULL);
    memset(&out, 0, sizeof(out));
    want(hsup()->book(&c, &rq, &out, &err), TRV_UP_OK, "book", err.code, err.message);
    assert_non_null(out.booking_id);
    if (!out.status || (strcmp(out.status, "CONFIRMED") != 0
                        && strcmp(out.status, "PENDING") != 0)) {
        fail_msg("book: status %s", out.status ? out.status : "(absent)");
    }
    ho.booking_id = apr_pstrdup(root, out.booking_id);
    printf("    booking %s %s\n", out.booking_id, out.status);
}

static void hotel_read(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_booked out;
    (void)state;
    if (!ho.booking_id) {
        skip();
    }
    memset(&out, 0, sizeof(out));
    want(hsup()->retrieve(&c, ho.booking_id, NULL, &out, &err), TRV_UP_OK,
         "reading the booking by its id", err.code, err.message);
    assert_string_equal(out.booking_id, ho.booking_id);
    /* How a booking whose answer was lost is found again. */
    memset(&out, 0, sizeof(out));
    want(hsup()->retrieve(&c, NULL, ho.client_reference, &out, &err), TRV_UP_OK,
         "reading the booking by the client reference", err.code, err.message);
    assert_string_equal(out.booking_id, ho.booking_id);
}

static void hotel_cancel(void **state)
{
    trv_hotel_ctx c = hctx();
    trv_hotel_err err = {0};
    trv_hotel_canceled out;
    trv_hotel_booked after;
    (void)state;
    if (!ho.booking_id) {
        skip();
    }
    if (hsup()->cancel_preview) {
        trv_hotel_preview pv;
        memset(&pv, 0, sizeof(pv));
        want(hsup()->cancel_preview(&c, ho.booking_id, &pv, &err), TRV_UP_OK,
             "cancellation preview", err.code, err.message);
        assert_non_null(pv.currency);
        assert_true(pv.fee_minor >= 0 && pv.refund_minor >= 0);
    }
    memset(&out, 0, sizeof(out));
    want(hsup()->cancel(&c, ho.booking_id, &out, &err), TRV_UP_OK, "cancel", err.code,
         err.message);
    assert_non_null(out.currency);
    assert_true(out.fee_minor >= 0 && out.refund_minor >= 0);
    memset(&after, 0, sizeof(after));
    want(hsup()->retrieve(&c, ho.booking_id, NULL, &after, &err), TRV_UP_OK,
         "reading the canceled booking", err.code, err.message);
    assert_string_equal(after.status, "CANCELED");
}

/* --list: the protocols the gateway registers, one a line. */
static int list_protocols(void)
{
    const trv_domain *const *d;
    for (d = trv_gateway_domains(); *d; d++) {
        const trv_supplier *s;
        for (s = (*d)->suppliers; s && s->name; s++) {
            printf("%s\n", s->name);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct CMUnitTest flight[] = {
        cmocka_unit_test_setup_teardown(flight_search, per_check, after_check),
        cmocka_unit_test_setup_teardown(flight_bags, per_check, after_check),
        cmocka_unit_test_setup_teardown(flight_airline, per_check, after_check),
        cmocka_unit_test_setup_teardown(flight_unknown_order, per_check, after_check),
        cmocka_unit_test_setup_teardown(flight_prebook, per_check, after_check),
        cmocka_unit_test_setup_teardown(flight_book, per_check, after_check),
        cmocka_unit_test_setup_teardown(flight_read, per_check, after_check),
        cmocka_unit_test_setup_teardown(flight_quote_and_cancel, per_check, after_check),
    };
    static const struct CMUnitTest hotel[] = {
        cmocka_unit_test_setup_teardown(hotel_check, per_check, after_check),
        cmocka_unit_test_setup_teardown(hotel_search, per_check, after_check),
        cmocka_unit_test_setup_teardown(hotel_offers, per_check, after_check),
        cmocka_unit_test_setup_teardown(hotel_unknown_booking, per_check, after_check),
        cmocka_unit_test_setup_teardown(hotel_prebook, per_check, after_check),
        cmocka_unit_test_setup_teardown(hotel_book, per_check, after_check),
        cmocka_unit_test_setup_teardown(hotel_read, per_check, after_check),
        cmocka_unit_test_setup_teardown(hotel_cancel, per_check, after_check),
    };
    int hotel_kind;

    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        return list_protocols();
    }
    apr_initialize();
    apr_pool_create(&root, NULL);
    trv_http_global_init();
    cfg.max_response = TRV_DEFAULT_MAX_RESPONSE;
    env.log.emit = log_line;
    env.cfg = &cfg;
    env.stopping = &stopping;
    env.http = trv_http_curl_create(root, &stopping, 0);
    configure();
    hotel_kind = strcmp(row->domain, "hotel") == 0;
    return hotel_kind
               ? _cmocka_run_group_tests(apr_pstrcat(root, "conformance ", up.protocol, NULL),
                                         hotel, sizeof(hotel) / sizeof(hotel[0]), NULL, NULL)
               : _cmocka_run_group_tests(apr_pstrcat(root, "conformance ", up.protocol, NULL),
                                         flight, sizeof(flight) / sizeof(flight[0]), NULL,
                                         NULL);
}
