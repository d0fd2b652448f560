/* Helpers shared by the flight e2e tests: searching the sandbox suppliers
 * through mod_travel, prebooking, reading bookings, waiting for a status,
 * and counting outbox events. Header-only (static inline) so each test
 * binary links as before. */
#ifndef TRV_FLIGHT_E2E_H
#define TRV_FLIGHT_E2E_H

#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A date `days` from today (UTC), YYYY-MM-DD; rotating static buffers. */
static inline const char *fe_date(int days)
{
    static char bufs[8][16];
    static int n;
    char *b = bufs[n++ % 8];
    time_t t = time(NULL) + (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(b, 16, "%Y-%m-%d", &tm);
    return b;
}

/* A fresh idempotency key (malloc'd). */
static inline char *fe_new_key(const char *what)
{
    static int n;
    char buf[128];
    snprintf(buf, sizeof(buf), "%s-%d-%ld-%d", what, (int)getpid(), e2e_now_ms(), ++n);
    return strdup(buf);
}

static inline e2e_resp *fe_post_idem(const char *key, const char *path, const char *body,
                                     const char *idem)
{
    char kh[512], ih[600];
    const char *hdrs[4] = {NULL, NULL, NULL, NULL};
    int i = 0;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    hdrs[i++] = kh;
    hdrs[i++] = "Content-Type: application/json";
    if (idem) {
        snprintf(ih, sizeof(ih), "x-idempotency-key: %s", idem);
        hdrs[i++] = ih;
    }
    return e2e_call(e2e_url(), "POST", path, hdrs, body);
}

static inline json_t *fe_data(const e2e_resp *r)
{
    return json_object_get(r->json, "data");
}

static inline const char *fe_s(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* Fails the test unless the response has this status. */
static inline void fe_expect(const e2e_resp *r, long status, const char *what)
{
    if (r->status != status) {
        fail_msg("%s: expected %ld, got %ld: %s", what, status, r->status, r->body);
    }
}

/* POST /v1/flight/offers for one journey; extra is inserted into the body
 * (",\"limit\":5" ...) or "". */
static inline e2e_resp *fe_search(const char *key, const char *supplier, const char *from,
                                  const char *to, int days, int adults, const char *extra)
{
    char body[2048], sup[64] = "";
    if (supplier) {
        snprintf(sup, sizeof(sup), ",\"supplier\":\"%s\"", supplier);
    }
    snprintf(body, sizeof(body),
             "{\"journeys\":[{\"origin\":\"%s\",\"destination\":\"%s\",\"date\":\"%s\"}],"
             "\"passengers\":{\"adults\":%d}%s%s}", from, to, fe_date(days), adults, sup,
             extra ? extra : "");
    return e2e_post(key, "/v1/flight/offers", body);
}

/* The first offer's reference for a one-adult LHR-JFK search (malloc'd). */
static inline char *fe_offer_ref(const char *key, const char *supplier, int days)
{
    e2e_resp *r = fe_search(key, supplier, "LHR", "JFK", days, 1, ",\"limit\":3");
    json_t *offers;
    char *ref;
    fe_expect(r, 200, "searching offers");
    offers = fe_data(r);
    if (json_array_size(offers) == 0) {
        fail_msg("%s has no LHR-JFK offers in %d days: %s", supplier, days, r->body);
    }
    ref = strdup(fe_s(json_array_get(offers, 0), "offer_reference"));
    e2e_free(r);
    return ref;
}

/* A prebook body for one adult with this last name; extra is inserted. */
static inline char *fe_prebook_body(const char *offer_ref, const char *last_name,
                                    const char *extra)
{
    char *b = malloc(8192);
    snprintf(b, 8192,
             "{\"offer_reference\":\"%s\","
             "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"%s\","
             "\"email\":\"ada@example.com\",\"phone_number\":\"2071234567\","
             "\"phone_country_code\":\"44\"},"
             "\"passengers\":[{\"first_name\":\"Ada\",\"last_name\":\"%s\","
             "\"birthday\":\"1990-12-10\",\"type\":\"ADULT\",\"gender\":\"F\","
             "\"nationality\":\"GB\"}]%s}", offer_ref, last_name, last_name,
             extra ? extra : "");
    return b;
}

/* A fresh READY_FOR_COMPLETE booking (its data, a new reference): the
 * first offer of a search that no other test holds (SUPPLIER_A sells an
 * offer to one unfinished booking at a time). */
static inline json_t *fe_ready_family(const char *key, const char *supplier,
                                      const char *last_name, const char *extra,
                                      const char *family, int want)
{
    static int day;
    e2e_resp *s = fe_search(key, supplier, "LHR", "JFK", 200 + (day++ % 150), 1,
                            ",\"limit\":20");
    json_t *offers, *b = NULL;
    size_t i;
    fe_expect(s, 200, "searching offers");
    offers = fe_data(s);
    for (i = 0; i < json_array_size(offers) && !b; i++) {
        char *body, *idem;
        e2e_resp *r;
        const char *fam = fe_s(json_array_get(offers, i), "fare_family");
        if (family && (fam && strcmp(fam, family) == 0) != want) {
            continue;
        }
        body = fe_prebook_body(fe_s(json_array_get(offers, i), "offer_reference"),
                               last_name, extra);
        idem = fe_new_key("ready");
        r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
        if (r->status == 201) {
            b = json_incref(fe_data(r));
            if (strcmp(fe_s(b, "status"), "READY_FOR_COMPLETE") != 0) {
                fail_msg("prebook answered %s", r->body);
            }
        }
        else if (r->status != 409) {
            fail_msg("prebook: %ld %s", r->status, r->body);
        }
        e2e_free(r);
        free(body);
        free(idem);
    }
    if (!b) {
        fail_msg("no free %s offer to prebook: %s", supplier, s->body);
    }
    e2e_free(s);
    return b;
}

/* A fresh READY_FOR_COMPLETE booking of any fare. */
static inline json_t *fe_ready(const char *key, const char *supplier, const char *last_name,
                               const char *extra)
{
    return fe_ready_family(key, supplier, last_name, extra, NULL, 0);
}

static inline e2e_resp *fe_book(const char *key, const char *id, const char *body)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/book", id);
    return e2e_post(key, path, body);
}

static inline e2e_resp *fe_get(const char *key, const char *id, const char *suffix)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s%s", id, suffix ? suffix : "");
    return e2e_get(key, path);
}

/* Reads the booking until it has `status` (data, a new reference). */
static inline json_t *fe_wait_status(const char *key, const char *id, const char *status,
                                     long timeout_ms)
{
    long start = e2e_now_ms();
    char last[4096] = "";
    for (;;) {
        e2e_resp *r = fe_get(key, id, NULL);
        fe_expect(r, 200, "reading a booking");
        if (strcmp(fe_s(fe_data(r), "status"), status) == 0) {
            json_t *b = json_incref(fe_data(r));
            e2e_free(r);
            return b;
        }
        snprintf(last, sizeof(last), "%s", r->body);
        e2e_free(r);
        if (e2e_now_ms() - start > timeout_ms) {
            fail_msg("booking %s did not become %s in %ld ms: %s", id, status, timeout_ms,
                     last);
        }
        e2e_sleep_ms(100);
    }
}

/* Waits until no render job of the booking is queued or running (sql/045:
 * every change queues one; reads never write its renderings). */
static inline void fe_wait_rendered(const char *id, long timeout_ms)
{
    const char *p[1] = {id};
    long start = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM jobs WHERE kind = 'flight.booking.render' "
                        "AND payload->>'id' = $1 AND status IN ('queued', 'running')",
                        1, p) > 0) {
        if (e2e_now_ms() - start > timeout_ms) {
            fail_msg("booking %s: its render job did not run in %ld ms", id, timeout_ms);
        }
        e2e_sleep_ms(50);
    }
}

/* The booking's stored renderings' revision, or -1 without any. */
static inline long fe_docs_revision(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_long("SELECT coalesce(max(revision), -1) FROM flight_booking_docs "
                        "WHERE booking_id = $1", 1, p);
}

/* Outbox events of this type for this booking. */
static inline long fe_events(const char *booking_id, const char *type)
{
    const char *p[2] = {booking_id, type};
    return e2e_sql_long("SELECT count(*) FROM events WHERE data->'booking'->>'id' = $1 "
                        "AND type = $2", 2, p);
}

/* ---- sandbox failures on demand (POST /sandbox/faults) ---- */

/* A request id of its own per call (malloc'd): faults match its prefix,
 * so a test only ever hits its own faults. */
static inline char *fe_rid(const char *tag, const char *what)
{
    static int seq;
    char buf[128];
    snprintf(buf, sizeof(buf), "%s-%d-%d-%s", tag, (int)getpid(), ++seq, what);
    return strdup(buf);
}

/* Tells the sandbox API `api` to fail requests whose x-request-id starts
 * with rid; spec is the rest of the fault's JSON. */
static inline void fe_fault(const char *api, const char *rid, const char *spec)
{
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    char body[1024];
    e2e_resp *r;
    snprintf(body, sizeof(body), "{\"api\":\"%s\",\"request_id_prefix\":\"%s\",%s}", api,
             rid, spec);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults", hdrs, body);
    fe_expect(r, 201, "creating a sandbox fault");
    e2e_free(r);
}

/* How many requests the faults of this scope failed. */
static inline long fe_fault_hits(const char *rid)
{
    char path[256];
    e2e_resp *r;
    long hits = 0;
    size_t i;
    snprintf(path, sizeof(path), "/sandbox/faults?request_id_prefix=%s", rid);
    r = e2e_call(e2e_sandbox_url(), "GET", path, NULL, NULL);
    fe_expect(r, 200, "listing sandbox faults");
    for (i = 0; i < json_array_size(fe_data(r)); i++) {
        hits += (long)json_integer_value(json_object_get(json_array_get(fe_data(r), i),
                                                         "hits"));
    }
    e2e_free(r);
    return hits;
}

/* A fault that answers nothing of its own (respond, marked x-counted) and
 * never runs out: placed after a scope's real faults, it counts the calls
 * that reached the sandbox. */
#define FE_COUNTER "\"action\":\"respond\",\"headers\":{\"x-counted\":\"1\"},\"times\":null"

/* The hits of scope's FE_COUNTER fault: the calls that reached the sandbox
 * (-1 when it has none). */
static inline long fe_counted(const char *scope)
{
    char path[300];
    e2e_resp *r;
    long hits = -1;
    size_t i;
    snprintf(path, sizeof(path), "/sandbox/faults?request_id_prefix=%s", scope);
    r = e2e_call(e2e_sandbox_url(), "GET", path, NULL, NULL);
    fe_expect(r, 200, "listing sandbox faults");
    for (i = 0; i < json_array_size(fe_data(r)); i++) {
        const json_t *f = json_array_get(fe_data(r), i);
        if (json_object_get(json_object_get(f, "headers"), "x-counted")) {
            hits = (long)json_integer_value(json_object_get(f, "hits"));
        }
    }
    e2e_free(r);
    return hits;
}

static inline void fe_fault_clear(const char *rid)
{
    char path[256];
    e2e_resp *r;
    snprintf(path, sizeof(path), "/sandbox/faults?request_id_prefix=%s", rid);
    r = e2e_call(e2e_sandbox_url(), "DELETE", path, NULL, NULL);
    fe_expect(r, 200, "deleting sandbox faults");
    e2e_free(r);
}

#endif
