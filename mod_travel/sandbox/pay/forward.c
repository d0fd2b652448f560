/* Vault and forward, in the shape of Stripe's forwarding requests:
 *
 *   POST /payments/v1/forwarding/requests
 *     {payment_method, url, replacements: ["card_number"],
 *      request: {headers: [{name, value}], body: "<the destination's body>"}}
 *
 * The provider sends request to url with the card's fields filled in from
 * its vault and answers a forwarding.request whose response_details
 * {status, headers, body} is the destination's answer, whatever its status;
 * request_details is what was sent, the card number masked. A merchant
 * never holds the card number, so a supplier that charges the card itself
 * can be paid with a saved instrument.
 *
 * Stripe forwards only to destinations it activated for the merchant, and
 * knows for each where the card goes. This provider serves one kind: the
 * sandbox's own SUPPLIER_C (Expedia Rapid-style) book links on this server
 * (the Host the request came to, a loopback address), where the number
 * goes into every payments[].number. Any other url is refused, so the
 * vault cannot be made to send a card (or any request) elsewhere. POSTs
 * honour Idempotency-Key: a repeat is answered with the first outcome and
 * forwarded once. */
#include "sandbox/sbx_api.h"
#include "core/ids.h"
#include "vault.h"

#include <apr_network_io.h>
#include <apr_strings.h>
#include <string.h>
#include <strings.h>

#define FORWARD_TIMEOUT apr_time_from_sec(30)

static const char *const destinations[] = {"/hotels/c/", NULL};

/* Whether url is one of this server's destinations: the Host this request
 * reached, a loopback name, and a destination path. */
static int destination_ok(trv_req *req, const char *url)
{
    const char *host = apr_table_get(req->headers, "Host"), *rest;
    size_t n;
    int i;
    if (!host || !url || strncmp(url, "http://", 7) != 0) {
        return 0;
    }
    if (strncmp(host, "127.0.0.1:", 10) != 0 && strncmp(host, "localhost:", 10) != 0
        && strncmp(host, "[::1]:", 6) != 0) {
        return 0;
    }
    n = strlen(host);
    if (strncmp(url + 7, host, n) != 0) {
        return 0;
    }
    rest = url + 7 + n;
    for (i = 0; destinations[i]; i++) {
        if (strncmp(rest, destinations[i], strlen(destinations[i])) == 0) {
            return !strstr(rest, "/../") && !strchr(rest, '#');
        }
    }
    return 0;
}

/* Connects only to loopback addresses, whatever the name resolved to. */
static int loopback_only(void *baton, int family, const unsigned char *addr)
{
    static const unsigned char v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                                  0, 0, 0, 0, 0, 0, 0, 1};
    (void)baton;
    if (family == APR_INET) {
        return addr[0] == 127;
    }
    return family == APR_INET6 && memcmp(addr, v6_loopback, 16) == 0;
}

/* Sets every payments[].number of body to number; the count set. */
static int fill_card(json_t *body, const char *number)
{
    json_t *pays = json_object_get(body, "payments"), *pay;
    size_t i;
    int n = 0;
    json_array_foreach(pays, i, pay) {
        if (json_is_object(pay) && json_object_get(pay, "number")) {
            json_object_set_new(pay, "number", json_string(number));
            n++;
        }
    }
    return n;
}

/* "424242******4242": the first six and last four, as Stripe shows them. */
static const char *masked(apr_pool_t *p, const char *number)
{
    size_t n = strlen(number);
    char *m = apr_pstrdup(p, number);
    size_t i;
    for (i = 6; i + 4 < n; i++) {
        m[i] = '*';
    }
    return m;
}

static void forward(trv_req *req, trv_resp *resp)
{
    const json_t *b, *rq, *reps, *hs, *h;
    const sbx_vault_card *card;
    const char *url, *text, *id = trv_id_new(req->pool, "fwdreq");
    json_t *dest, *sent_headers, *doc, *answer_headers;
    trv_http_req hr;
    trv_http_resp hres = {0};
    trv_dbc *c;
    size_t i;

    if (!(b = sbx_body(req, resp))) {
        return;
    }
    card = sbx_vault_card_of(trv_json_str(b, "payment_method"));
    if (!card) {
        sbx_error(req, resp, 400, "resource_missing", "No such payment_method: '%s'",
                  trv_json_str(b, "payment_method") ? trv_json_str(b, "payment_method") : "");
        return;
    }
    url = trv_json_str(b, "url");
    if (!destination_ok(req, url)) {
        sbx_error(req, resp, 400, "forwarding_destination_invalid", "url is not a destination "
                  "this account forwards to (this server's /hotels/c/ links)");
        return;
    }
    reps = json_object_get(b, "replacements");
    if (!json_is_array(reps) || json_array_size(reps) != 1
        || !json_is_string(json_array_get(reps, 0))
        || strcmp(json_string_value(json_array_get(reps, 0)), "card_number") != 0) {
        sbx_error(req, resp, 400, "parameter_invalid", "replacements must be [\"card_number\"]: "
                  "the only card field this destination takes");
        return;
    }
    rq = json_object_get(b, "request");
    text = trv_json_str(rq, "body");
    dest = text ? trv_json_bind(req->pool, json_loads(text, 0, NULL)) : NULL;
    if (!json_is_object(dest) || fill_card(dest, card->number) == 0) {
        sbx_error(req, resp, 400, "parameter_invalid", "request.body must be the destination's "
                  "JSON body with payments[].number to fill");
        return;
    }
    hs = json_object_get(rq, "headers");
    if (hs && !json_is_array(hs)) {
        sbx_error(req, resp, 400, "parameter_invalid", "request.headers must be [{name, value}]");
        return;
    }
    memset(&hr, 0, sizeof(hr));
    hr.headers = apr_table_make(req->pool, 8);
    json_array_foreach(hs, i, h) {
        const char *name = trv_json_str(h, "name"), *value = trv_json_str(h, "value");
        if (!name || !value || !*name) {
            sbx_error(req, resp, 400, "parameter_invalid",
                      "request.headers must be [{name, value}]");
            return;
        }
        /* The transport sets these for the body it sends. */
        if (strcasecmp(name, "Host") != 0 && strcasecmp(name, "Content-Length") != 0) {
            apr_table_add(hr.headers, name, value);
        }
    }
    if (!sbx_idem_begin(req, resp, &c, 2510, "forwarding")) {
        return;
    }
    hr.method = "POST";
    hr.url = url;
    hr.body = trv_json_dump(req->pool, dest);
    hr.body_len = strlen(hr.body);
    hr.timeout = FORWARD_TIMEOUT;
    hr.keyed = apr_table_get(hr.headers, "Idempotency-Key") != NULL;
    hr.request_id = req->request_id;
    hr.allow_address = loopback_only;
    if (!req->env->http || trv_http_perform(req->env->http, req->pool, &hr, &hres)
                               != APR_SUCCESS) {
        /* Nothing is stored under the key: a retry forwards again, and the
         * destination's own Idempotency-Key makes that safe. */
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        int sent = hres.timed_out || hres.unanswered;
        /* 504: the request went out and no answer came (the destination
         * may have acted); 502: it could not be sent. */
        sbx_error(req, resp, sent ? 504 : 502, sent ? "forwarding_destination_timeout"
                  : "forwarding_destination_unreachable", "The destination did not answer: %s",
                  req->env->http && hres.error ? hres.error : "no HTTP client");
        return;
    }
    fill_card(dest, masked(req->pool, card->number));
    sent_headers = trv_json_headers(hr.headers);
    answer_headers = trv_json_headers(hres.headers);
    doc = trv_json_bind(req->pool, json_pack(
        "{s:s,s:s,s:I,s:b,s:s,s:[s],s:{s:s,s:o,s:s},s:{s:s%,s:o,s:i},s:s}", "id", id, "object",
        "forwarding.request", "created", (json_int_t)sbx_now(), "livemode", 0, "payment_method",
        card->id, "replacements", "card_number", "request_details", "body",
        trv_json_dump(req->pool, dest), "headers", sent_headers, "http_method", "POST",
        "response_details", "body", hres.body ? hres.body : "", hres.body ? hres.body_len : 0,
        "headers", answer_headers, "status", hres.status, "url", url));
    sbx_idem_finish(req, resp, c, 200, doc, 2511, "forwarding");
}

const trv_route sbx_pay_forward_routes[] = {
    {"POST", "/payments/v1/forwarding/requests", forward, 0},
    {NULL, NULL, NULL, 0},
};
