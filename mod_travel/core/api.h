/* The project's own request and response: what the httpd glue fills in from
 * a request_rec and writes back out. Domain handlers see only these. */
#ifndef TRV_API_H
#define TRV_API_H

#include "env.h"
#include "errors.h"
#include "upstream.h"

#include <apr_tables.h>
#include <jansson.h>

typedef struct trv_req {
    apr_pool_t *pool;
    const char *method;       /* GET for HEAD too */
    const char *path;         /* decoded path, e.g. /v1/flight/bookings */
    apr_table_t *query;       /* decoded query parameters */
    trv_errs *decode_errs;    /* path or query pairs that broke the decoding
                               * rule (core/decode.h); NULL when none */
    const char *args;         /* the raw query string, NULL when none */
    apr_table_t *headers;     /* request headers, case-insensitive */
    const char *client_ip;    /* the client's address (httpd's useragent_ip: behind a
                               * proxy, mod_remoteip's client); NULL when unknown */
    apr_table_t *params;      /* path parameters, filled by the router */
    const void *route_arg;    /* the route's arg (router.h), set before its handler */
    const char *content_type; /* NULL when absent */
    const char *body;         /* raw body, NUL-terminated; NULL when empty */
    apr_size_t body_len;
    int body_too_large;       /* the body exceeded the configured cap */
    json_t *json;             /* parsed body (pool-bound), NULL when empty */
    const char *request_id;
    trv_log log;              /* logs with this request's context */
    const char *org_id;       /* set by authentication */
    const char *user_id;
    const char *key_id;
    trv_env *env;
} trv_req;

typedef struct trv_resp {
    int status;               /* 0 until a handler answers */
    json_t *data;             /* pool-bound; becomes "data" */
    json_t *meta;             /* pool-bound; becomes "meta" when set */
    json_t *error;            /* pool-bound error document, status >= 400 */
    json_t *document;         /* pool-bound; when set, sent as is (no envelope) */
    const char *data_text;    /* "data" already serialized (stored renderings) */
    const char *raw;          /* when set, the body as is, of type raw_type */
    apr_size_t raw_len;
    const char *raw_type;
    const char *error_code;
    apr_table_t *headers;     /* extra response headers (Allow, Location) */
} trv_resp;

typedef void trv_handler_fn(trv_req *req, trv_resp *resp);

/* Success: takes ownership of data and meta (new references, meta may be NULL). */
void trv_ok(trv_req *req, trv_resp *resp, int status, json_t *data, json_t *meta);
/* Success whose data is JSON text already (a list joined from stored
 * renderings): it goes out as is, without being parsed and printed again. */
void trv_ok_text(trv_req *req, trv_resp *resp, int status, const char *data_json,
                 json_t *meta);
/* Success whose data is an array of JSON texts (a page of stored
 * renderings): the whole body is written once, in one buffer, instead of
 * the array being joined and then copied into the envelope (a page is tens
 * of kB; the copies showed in a profile of the list). Same bytes as
 * trv_ok_text with the joined array. */
void trv_ok_items(trv_req *req, trv_resp *resp, int status, const apr_array_header_t *items,
                  json_t *meta);
/* Success whose data is an array given as its inside: JSON texts already
 * joined with ',' (a page joined by PostgreSQL). Written into the body as
 * is, once; same bytes as trv_ok_items with those texts. */
void trv_ok_joined(trv_req *req, trv_resp *resp, int status, const char *joined,
                   json_t *meta);
/* Answers a whole document of another wire format as is, without the
 * {data, meta} envelope (the sandbox speaks each simulated API's own). */
void trv_ok_document(trv_req *req, trv_resp *resp, int status, json_t *doc);
/* A body that is not JSON (the OpenAPI document), sent as is. */
void trv_ok_raw(trv_req *req, trv_resp *resp, int status, const char *type,
                const char *body, apr_size_t len);

/* Seconds a client is told to wait (Retry-After) after a 503: the database
 * is usually back within a few seconds of a restart or failover. */
#define TRV_RETRY_AFTER_S "5"

/* Any failure: the envelope of the API conventions (docs/api.md) with the
 * request id; a 503 also carries Retry-After. */
void trv_fail(trv_req *req, trv_resp *resp, int status, const char *code,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* 422 validation_failed with the collected details. */
void trv_fail_invalid(trv_req *req, trv_resp *resp, const trv_errs *errs);
/* A supplier or provider call failed: 504 supplier_timeout for a timeout,
 * else 502 supplier_error; logged as TRV<logno> "<area><who>: ...". */
void trv_fail_upstream(trv_req *req, trv_resp *resp, trv_up_status st, int logno,
                       const char *area, const char *who, const char *message);
/* trv_fail_upstream for a configured supplier (up, NULL when unknown):
 * an unavailable call while the supplier says it is over its rate limit
 * (core/upstream_limit.h) answers 503 supplier_rate_limited naming it, with
 * Retry-After the seconds until the limit ends. */
void trv_fail_supplier(trv_req *req, trv_resp *resp, trv_up_status st, int logno,
                       const char *area, const trv_upstream *up, const char *who,
                       const char *message);
/* A database step failed: 503 when the database is unreachable, else 500;
 * logs the cause with the request id. */
void trv_fail_db(trv_req *req, trv_resp *resp, const trv_dbc *c, int logno,
                 const char *what);

/* A connection borrowed for the request; else the failure answered as
 * trv_fail_db and 0. */
int trv_api_db_open(trv_req *req, trv_resp *resp, trv_dbc **c, int logno, const char *what);
/* A database step failed: answered as trv_fail_db, the open transaction
 * rolled back and c (when set) given back. */
void trv_api_db_fail(trv_req *req, trv_resp *resp, trv_dbc *c, int logno, const char *what);

/* How the endpoints of one booking (book, cancel, GET) read it: the
 * domain's read in the request's scope (its organization, and its user
 * where the domain has one) and the domain's 404. */
typedef struct trv_api_booking_reader {
    /* *out NULL when the request's scope has no such booking. */
    apr_status_t (*get)(trv_req *req, trv_dbc *c, const char *id, void **out);
    void (*no_booking)(trv_req *req, trv_resp *resp, const char *id);
} trv_api_booking_reader;

/* The booking id through r on c (open): the booking, or NULL when it is
 * answered (a failed read as trv_api_db_fail under logno and what, no
 * such booking as r->no_booking) and c is closed. */
void *trv_api_booking_read(trv_req *req, trv_resp *resp, trv_dbc *c,
                           const trv_api_booking_reader *r, const char *id, int logno,
                           const char *what);

/* The start of an endpoint of one booking (book, cancel): the request's
 * problems answered (422, when errs has any; errs may be NULL), else a
 * connection (*c; trv_api_db_open under logno_open) and the booking id
 * read through r (trv_api_booking_read under logno_read). The booking
 * with *c open, or NULL when answered. */
void *trv_api_booking_open(trv_req *req, trv_resp *resp, trv_errs *errs,
                           const trv_api_booking_reader *r, const char *id, int logno_open,
                           int logno_read, const char *what, trv_dbc **c);

/* After a guarded move found the booking moved on (another request won
 * the race): the booking id read again through r on c (open) and answered
 * where it stands (answer), c closed. It was there a moment ago, so its
 * absence is a failed read too (trv_api_db_fail under logno and what). */
void trv_api_booking_reread(trv_req *req, trv_resp *resp, trv_dbc *c,
                            const trv_api_booking_reader *r, const char *id, int logno,
                            const char *what,
                            void (*answer)(trv_req *req, trv_resp *resp, const void *b));

/* The document to send: {data, meta} or the error document. */
json_t *trv_resp_document(const trv_resp *resp);
/* The answer's data, whichever way the handler gave it: a JSON value, or
 * JSON text (trv_ok_text: parsed into p here); NULL without data. For
 * callers inside the server that read an answer (the dashboard, a price
 * watch's purchase). */
const json_t *trv_resp_data(apr_pool_t *p, const trv_resp *resp);
/* The body to send, serialized (NULL only when encoding fails). */
char *trv_resp_body(apr_pool_t *p, const trv_resp *resp);

#endif
