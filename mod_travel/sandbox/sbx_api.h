/* What the sandbox's simulated APIs share: answering in each API's own
 * envelope, idempotency keys, amounts as decimal strings, waiting without
 * holding a database connection. The flight, hotel and payment APIs build
 * on it (air/, hotel/, pay/). */
#ifndef SBX_API_H
#define SBX_API_H

#include "sandbox.h"
#include "core/db.h"
#include "core/json.h"

/* Sends doc (a new reference) as the whole response body with status:
 * each simulated API has its own envelope, so the sandbox writes complete
 * documents rather than the service's {data, meta}. */
void sbx_send(trv_req *req, trv_resp *resp, int status, json_t *doc);
/* {"error": {"code", "message"}} with status (a new reference). */
json_t *sbx_error_doc(trv_req *req, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sbx_error(trv_req *req, trv_resp *resp, int status, const char *code,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A database step failed: logs, rolls back, gives the connection back, 503. */
void sbx_db_fail(trv_req *req, trv_resp *resp, trv_dbc *c, int logno, const char *what);
/* 422 validation_error naming the field. */
void sbx_invalid(trv_req *req, trv_resp *resp, const char *field, const char *reason);
/* 503 unless the OpenFlights data is loaded; returns 1 to go on. */
int sbx_need_world(trv_req *req, trv_resp *resp);
/* The request body, or a 400 naming what is missing; NULL when answered. */
const json_t *sbx_body(trv_req *req, trv_resp *resp);

/* ---- idempotency (Stripe's model) ---- */

typedef enum {
    SBX_IDEM_FRESH,      /* go on; sbx_idem_save in the same transaction */
    SBX_IDEM_REPLAY,     /* answered with the stored response */
    SBX_IDEM_FAILED      /* answered with an error (mismatch, database) */
} sbx_idem_result;

/* Within an open transaction on c: claims the request's Idempotency-Key
 * (when it has one) for this method, path and body. Concurrent requests
 * with the same key wait for the first to commit, then replay it. */
sbx_idem_result sbx_idem_claim(trv_req *req, trv_resp *resp, trv_dbc *c);
/* Stores the response of a fresh claim (no-op without a key). */
apr_status_t sbx_idem_save(trv_req *req, trv_dbc *c, int status, const json_t *doc);

/* The shape of every idempotent write: a connection, a transaction and the
 * claim of the key. 1 to go on (a fresh request, transaction open); 0 when
 * the request was answered (replay, mismatch, database failure). */
int sbx_idem_begin(trv_req *req, trv_resp *resp, trv_dbc **c, int logno, const char *what);
/* Stores doc as the key's answer, commits, gives the connection back and
 * answers doc with status. */
void sbx_idem_finish(trv_req *req, trv_resp *resp, trv_dbc *c, int status, json_t *doc,
                     int logno, const char *what);

/* ---- values ---- */

apr_int64_t sbx_now(void);                              /* unix seconds */
char *sbx_instant(apr_pool_t *p, apr_int64_t unix_secs); /* ...T..:..:...000Z */
/* The same into buf (SBX_TEXT_LEN bytes, NUL-terminated); its length (p
 * only for years outside 0-9999). */
#define SBX_TEXT_LEN 64
apr_size_t sbx_instant_into(apr_pool_t *p, char *buf, apr_int64_t unix_secs);
/* "123.45" of minor units in currency; NULL for NULL. */
char *sbx_amount(apr_pool_t *p, apr_int64_t minor, const char *currency);
/* The same into buf (SBX_TEXT_LEN bytes, NUL-terminated); its length (p
 * only for a currency the core does not know). */
apr_size_t sbx_amount_into(apr_pool_t *p, char *buf, apr_int64_t minor, const char *currency);
/* Parses "123.45" (or a JSON number) in currency; 0 on success. */
int sbx_amount_parse(const json_t *v, const char *currency, apr_int64_t *minor);
/* ISO 8601 duration "PT7H30M". */
char *sbx_duration(apr_pool_t *p, int minutes);
/* A random number for a search's offer references. */
apr_uint32_t sbx_nonce(void);
/* n random characters of alphabet into out (n + 1 bytes, n <= 32). */
void sbx_random_chars(char *out, int n, const char *alphabet);
/* Sleeps in short steps, returning early when the process stops. */
void sbx_sleep(const trv_req *req, apr_interval_time_t t);

#endif
