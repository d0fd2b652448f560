/* The error envelope of every error answer (docs/api.md "Responses"):
 * {"error": {"code", "message", "request_id", "details": [{field, reason}]}} */
#ifndef TRV_ERRORS_H
#define TRV_ERRORS_H

#include <apr_pools.h>
#include <jansson.h>

/* At most this many details are listed in one answer; the message counts
 * the rest. A body of 60,000 unknown fields is answered in a few kilobytes. */
#define TRV_ERRS_MAX_DETAILS 50

/* Validation problems collected while checking one request. */
typedef struct trv_errs {
    apr_pool_t *pool;
    json_t *details; /* pool-bound array of {field, reason} */
    size_t count;    /* problems found, listed or not */
} trv_errs;

trv_errs *trv_errs_new(apr_pool_t *p);
/* Field and reason become valid UTF-8 (bad bytes are U+FFFD), so a detail
 * about a bad value is never lost to the JSON encoder. */
void trv_errs_add(trv_errs *e, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int trv_errs_any(const trv_errs *e);

/* The reason phrase httpd would use; used for messages of generic errors. */
const char *trv_status_code(int status); /* default error code for a status */

/* Builds the whole error document (a new reference). details may be NULL. */
json_t *trv_error_doc(const char *code, const char *message,
                      const char *request_id, json_t *details);

#endif
