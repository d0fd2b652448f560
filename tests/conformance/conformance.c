/* The conformance kit: mod_travel's own adapter for a protocol, called as
 * the gateway calls it, against any server that speaks that protocol — the
 * sandbox, a partner's implementation of mod_travel's protocols, or a
 * vendor's test endpoint — checking the contract the gateway relies on
 * (flight/supplier.h, hotel/supplier.h): search, then (unless
 * CONFORMANCE_BOOK=0) price, book, read, cancel, and read again.
 *
 * Run by `make conformance` (scripts/conformance.sh, docs/suppliers.md
 * "Conformance kit"). Environment:
 *   PROTOCOL            one of `conformance --list` (duffel, travel-air, liteapi,
 *                       hotelbeds, expedia-rapid, duffel-stays)
 *                       (any protocol the gateway registers)
 *   SUPPLIER_URL        the base URL, as on a TravelSupplier line; unset:
 *                       SANDBOX_URL's listing (GET /sandbox/suppliers) gives
 *                       the base URL and test credentials of PROTOCOL
 *   SUPPLIER_KEY[_FILE] the key (token, api_key) of the line
 *   SUPPLIER_SECRET[_FILE]  the signing secret (travel-hotel-b, -c)
 *   SUPPLIER_SECOND_URL the protocol's second base (liteapi's book_url)
 *   PAYMENT_URL, PAYMENT_KEY[_FILE], PAYMENT_INSTRUMENT
 *                       the payment provider that forwards a saved card to a
 *                       supplier that charges the traveller (expedia-rapid);
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
 * Exit status 0 when every check passed. The checks themselves are in
 * flight.c and hotel.c; kit.h is what they share. */
#include "kit.h"
#include "core/clock.h"
#include "core/http.h"
#include "core/json.h"
#include "core/money.h"
#include "gateway/gateway.h"

#include <apr_general.h>
#include <apr_strings.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

apr_pool_t *kit_root;
trv_env kit_env;
trv_config kit_cfg;
trv_upstream kit_up;
const trv_supplier *kit_row;
const char *kit_rid;
int kit_booking;
int kit_days;
const char *kit_instrument;
static trv_upstream pay;             /* the payment provider, for vault and forward */
static volatile apr_uint32_t stopping;

/* ---- set-up: the line from the environment, or from the sandbox ---- */

const char *kit_env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* NAME, else the first line of the file NAME_FILE names, else NULL. */
static const char *secret_of(const char *name)
{
    const char *v = kit_env_or(name, NULL);
    const char *file = kit_env_or(apr_pstrcat(kit_root, name, "_FILE", NULL), NULL);
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
    return apr_pstrdup(kit_root, buf);
}

static void log_line(void *baton, int level, const char *request_id, const char *msg)
{
    (void)baton;
    (void)request_id;
    if (level <= TRV_LOG_WARNING) {
        fprintf(stderr, "    log: %s\n", msg);
    }
}

/* The name the sandbox lists a protocol under: an alias (travel-air,
 * travel-hotel-b) is served as the protocol it names. */
static const char *listed_as(void)
{
    const trv_domain *const *d;
    for (d = trv_gateway_domains(); *d; d++) {
        if (trv_supplier_find((*d)->suppliers, kit_row->name) == kit_row) {
            return trv_supplier_primary((*d)->suppliers, kit_row)->name;
        }
    }
    return kit_row->name;
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
    rq.url = apr_pstrcat(kit_root, sandbox, "/sandbox/suppliers", NULL);
    rq.timeout = apr_time_from_sec(10);
    if (trv_http_perform(kit_env.http, kit_root, &rq, &rs) != APR_SUCCESS || rs.status != 200
        || !(list = trv_json_parse(kit_root, rs.body, rs.body_len, NULL))) {
        fprintf(stderr, "conformance: %s does not list its suppliers (%s)\n", rq.url,
                rs.error ? rs.error : "no JSON list");
        exit(2);
    }
    json_array_foreach(list, i, s) {
        if (strcmp(json_string_value(json_object_get(s, "protocol")), listed_as()) != 0) {
            continue;
        }
        creds = json_object_get(s, "test_credentials");
        kit_up.base_url = json_string_value(json_object_get(s, "base_url"));
        kit_up.api_key = json_string_value(json_object_get(creds, kit_row->creds.key));
        kit_up.api_secret = kit_row->creds.secret
                                ? json_string_value(json_object_get(creds, kit_row->creds.secret))
                                : NULL;
        if (kit_row->creds.second_base) {
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(s, "base_urls"), k, v) {
                kit_up.second_base_url = json_string_value(v);
            }
        }
        return;
    }
    fprintf(stderr, "conformance: the sandbox at %s serves no %s supplier\n", sandbox,
            kit_up.protocol);
    exit(2);
}

static void configure(void)
{
    const char *sandbox = kit_env_or("SANDBOX_URL", NULL);
    apr_interval_time_t timeout = apr_time_from_sec(atoi(kit_env_or("CONFORMANCE_TIMEOUT", "30")));

    kit_up.protocol = kit_env_or("PROTOCOL", NULL);
    if (!kit_up.protocol
        || !(kit_row = trv_protocol_lookup(trv_gateway_domains(), kit_up.protocol))) {
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
    kit_up.name = apr_pstrcat(kit_root, "CONFORMANCE_", kit_up.protocol, NULL);
    kit_up.connect_timeout = timeout;
    kit_up.timeout = timeout;
    kit_up.base_url = kit_env_or("SUPPLIER_URL", NULL);
    if (kit_up.base_url) {
        kit_up.api_key = secret_of("SUPPLIER_KEY");
        kit_up.api_secret = secret_of("SUPPLIER_SECRET");
        kit_up.second_base_url = kit_env_or("SUPPLIER_SECOND_URL", NULL);
    }
    else if (sandbox) {
        from_sandbox(sandbox);
    }
    else {
        fprintf(stderr, "conformance: set SUPPLIER_URL (or SANDBOX_URL)\n");
        exit(2);
    }
    if (!kit_up.api_key || (kit_row->creds.secret && !kit_up.api_secret)
        || (kit_row->creds.second_base && !kit_up.second_base_url)) {
        fprintf(stderr, "conformance: %s needs SUPPLIER_KEY%s%s\n", kit_up.protocol,
                kit_row->creds.secret ? ", SUPPLIER_SECRET" : "",
                kit_row->creds.second_base ? " and SUPPLIER_SECOND_URL" : "");
        exit(2);
    }
    pay.name = "payment";
    pay.base_url = kit_env_or("PAYMENT_URL",
                              sandbox ? apr_pstrcat(kit_root, sandbox, "/payments", NULL) : NULL);
    pay.api_key = secret_of("PAYMENT_KEY");
    if (!pay.api_key && sandbox && !kit_env_or("SUPPLIER_URL", NULL)) {
        pay.api_key = "sandbox-key-pay"; /* the development sandbox's test key */
    }
    pay.connect_timeout = timeout;
    pay.timeout = timeout;
    kit_instrument = kit_env_or("PAYMENT_INSTRUMENT", "pi_test_visa");
    if (pay.base_url && pay.api_key) {
        kit_cfg.payment = &pay;
    }
    kit_booking = strcmp(kit_env_or("CONFORMANCE_BOOK", "1"), "0") != 0;
    kit_days = atoi(kit_env_or("CONFORMANCE_DAYS", "250"));
    kit_rid = apr_psprintf(kit_root, "conformance-%s-%d-%ld", kit_up.protocol, (int)getpid(),
                       (long)time(NULL));
    printf("conformance: %s at %s (%s)%s\n", kit_up.protocol, kit_up.base_url,
           kit_booking ? "search, price, book, read, cancel" : "calls that change nothing",
           kit_up.second_base_url
               ? apr_pstrcat(kit_root, ", second base ", kit_up.second_base_url, NULL)
               : "");
}

/* ---- shared checks ---- */

apr_pool_t *kit_pool;

int kit_per_check(void **state)
{
    (void)state;
    apr_pool_create(&kit_pool, kit_root);
    return 0;
}

int kit_after_check(void **state)
{
    (void)state;
    apr_pool_destroy(kit_pool);
    return 0;
}

void kit_want(trv_up_status st, trv_up_status wanted, const char *what,
              const char *const *code, const char *const *message)
{
    if (st != wanted) {
        fail_msg("%s: %s (wanted %s): %s: %s", what, trv_up_status_name(st),
                 trv_up_status_name(wanted), *code ? *code : "no code",
                 *message ? *message : "no message");
    }
}

/* A Money object: {amount, currency} with an amount the currency allows. */
apr_int64_t kit_money_minor(const json_t *m, const char *what)
{
    trv_money v;
    const char *reason = NULL;
    if (trv_money_from_json(m, &v, &reason) != APR_SUCCESS) {
        fail_msg("%s is not Money: %s", what, reason ? reason : "unreadable");
    }
    return v.minor;
}

/* "452.55 GBP", exactly as the adapter read it. */
const char *kit_money_text(const json_t *m)
{
    trv_money v;
    const char *reason = NULL;
    if (trv_money_from_json(m, &v, &reason) != APR_SUCCESS) {
        return "(not Money)";
    }
    return apr_pstrcat(kit_root,
                       trv_money_decimal(kit_root, v.minor, trv_currency_exponent(v.currency)),
                       " ", v.currency, NULL);
}

void kit_future_instant(const char *s, const char *what)
{
    apr_time_t t;
    if (!s || trv_time_parse(s, &t) != APR_SUCCESS) {
        fail_msg("%s is not an RFC 3339 instant: %s", what, s ? s : "(absent)");
    }
    if (t <= apr_time_now()) {
        fail_msg("%s is in the past: %s", what, s);
    }
}

const char *kit_date_ahead(int n)
{
    time_t t = time(NULL) + (time_t)n * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    return apr_psprintf(kit_root, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

const char *kit_str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* --list: the protocols the gateway registers, one a line; an alias (a
 * protocol's former name, the same adapter as a row before it) is checked
 * under the protocol's own name. */
static int list_protocols(void)
{
    const trv_domain *const *d;
    for (d = trv_gateway_domains(); *d; d++) {
        const trv_supplier *s;
        for (s = (*d)->suppliers; s && s->name; s++) {
            if (trv_supplier_primary((*d)->suppliers, s) == s) {
                printf("%s\n", s->name);
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *name;

    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        return list_protocols();
    }
    apr_initialize();
    apr_pool_create(&kit_root, NULL);
    trv_http_global_init();
    kit_cfg.max_response = TRV_DEFAULT_MAX_RESPONSE;
    kit_env.log.emit = log_line;
    kit_env.cfg = &kit_cfg;
    kit_env.stopping = &stopping;
    kit_env.http = trv_http_curl_create(kit_root, &stopping, 0);
    configure();
    name = apr_pstrcat(kit_root, "conformance ", kit_up.protocol, NULL);
    return strcmp(kit_row->domain, "hotel") == 0
               ? _cmocka_run_group_tests(name, kit_hotel_checks, kit_hotel_n, NULL, NULL)
               : _cmocka_run_group_tests(name, kit_flight_checks, kit_flight_n, NULL, NULL);
}
