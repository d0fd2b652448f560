/* Failures on demand: the sandbox's APIs (SUPPLIER_A, SUPPLIER_B, the
 * payment provider) and the webhook inbox answer their next requests as
 * told instead of as usual: an error status, a late answer, a body that is
 * not JSON, or a connection closed without an answer. Faults live in
 * PostgreSQL (sandbox.faults) so every child sees them, and a request
 * takes one with a single UPDATE ... RETURNING, so N requests take a fault
 * of N times exactly once each. */
#ifndef SBX_FAULTS_H
#define SBX_FAULTS_H

#include "sandbox.h"
#include "core/db.h"
#include "core/errors.h"

#include <jansson.h>

/* What a fault does to the request that takes it. */
typedef struct sbx_fault {
    const char *action;       /* "respond" (as usual, after the delay), "error",
                               * "garbage" (a body that is not JSON), "drop"
                               * (closed unhandled), "drop_after_handling"
                               * (handled, then closed without the answer) */
    int status;               /* 0: none given */
    const char *code;         /* error: the error code answered */
    const char *message;      /* error: the message answered */
    const char *retry_after;  /* a Retry-After header, or NULL */
    json_t *headers;          /* more response headers {name: value} (pool-bound), or NULL */
    int delay_ms;             /* waited before anything else */
} sbx_fault;

/* What a new fault matches, and for how many requests. */
typedef struct sbx_fault_rule {
    const char *target;       /* supplier_a, supplier_b, payments, inbox */
    const char *scope;        /* the inbox name, or a request id prefix */
    int exact;                /* scope must equal the key (inbox) */
    const char *method;       /* NULL: any */
    const char *path;         /* NULL: any; '*' matches any characters */
    long times;               /* 0: every request until deleted */
    long per_second;          /* > 0: applies only past this many matching requests
                               * in a second of the clock */
    sbx_fault fault;
} sbx_fault_rule;

/* Reads what a fault does from a request body: action, status, code,
 * message, retry_after, headers, delay_ms, times. Problems go to errs under their
 * field names. The caller checks the body's other fields and which
 * actions its target accepts. */
void sbx_fault_parse(apr_pool_t *p, const json_t *body, sbx_fault_rule *rule,
                     trv_errs *errs);

/* Stores a fault; an inbox's fault replaces its last one. *row is the
 * stored fault as sbx_fault_json shows it. */
apr_status_t sbx_fault_add(trv_dbc *c, apr_pool_t *p, const sbx_fault_rule *rule,
                           json_t **row);
/* Takes one use of the oldest fault of target matching key, method and
 * path; *out is NULL when none matches. *none (may be NULL) is 1 when
 * target has no fault with uses left at all. */
apr_status_t sbx_fault_take(trv_dbc *c, apr_pool_t *p, const char *target, const char *key,
                            const char *method, const char *path, sbx_fault **out, int *none);
/* Deletes the faults of target with exactly this scope (NULL: the
 * request-id faults of every API); *n counts them. */
apr_status_t sbx_fault_clear(trv_dbc *c, apr_pool_t *p, const char *target, const char *scope,
                             int *n);

/* The delay, the Retry-After header and the fault's other headers every
 * target applies the same way (no database connection is held while
 * waiting). The headers are set before the answer is made: an API that
 * sets the same header itself keeps the fault's (sbx_api.h). */
void sbx_fault_wait(const trv_req *req, trv_resp *resp, const sbx_fault *f);

/* For the three simulated APIs: takes the request's fault (keyed by its
 * x-request-id) and applies it. An error answers in the APIs' own
 * {"error": {...}} envelope. */
sbx_fault_outcome sbx_api_fault(trv_req *req, trv_resp *resp);

#endif
