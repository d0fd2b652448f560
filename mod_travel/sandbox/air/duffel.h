/* SUPPLIER_A's Duffel Air API v2 surface: the edge every answer passes
 * (version header, rate limit, errors in Duffel's shape) and Duffel's
 * cursor pagination (duffel.c). */
#ifndef SBX_DUFFEL_H
#define SBX_DUFFEL_H

#include "sandbox/sbx_api.h"

/* Where the API lives on the sandbox's port: a client's basePath is
 * http://HOST:PORT/suppliers/a/ (the trailing slash matters to
 * @duffel/api, which resolves relative paths "air/..." against it). */
#define SBX_DUFFEL_BASE "/suppliers/a"

/* Requests a child allows per window before it answers 429, unless
 * TravelSandboxDuffelRate says otherwise. */
#define SBX_DUFFEL_RATE_LIMIT 6000
#define SBX_DUFFEL_RATE_WINDOW 60

/* 1 when the path is under SBX_DUFFEL_BASE (Air and Stays). Duffel
 * documents no Idempotency-Key, so the sandbox ignores the header there as
 * Duffel does (sbx_api.c): a repeated order is a second order (refused
 * while the offer is sold), a repeated stay booking is refused (a quote
 * books once), and a lost answer is found by listing. */
int sbx_duffel_path(const char *path);
/* Drops a trailing slash: @duffel/api posts offer requests to
 * "air/offer_requests/", and Duffel answers either form. */
void sbx_duffel_path_fix(trv_req *req);
/* 1 with Duffel-Version: v2; otherwise answers 400 and returns 0. */
int sbx_duffel_version_ok(trv_req *req, trv_resp *resp);
/* Counts the request in this child's window and sets ratelimit-limit,
 * ratelimit-remaining and ratelimit-reset; answers 429 (with Retry-After)
 * and returns 0 past the limit. */
int sbx_duffel_rate_ok(trv_req *req, trv_resp *resp);
/* A 429 a fault answered (POST /sandbox/faults) carries Duffel's rate-limit
 * headers as a real one does: none left, the reset at the fault's
 * Retry-After (else the window's end). Other answers: nothing. */
void sbx_duffel_rate_fault(trv_req *req, trv_resp *resp);
/* Rewrites an error answered in the sandbox's envelope into Duffel's. */
void sbx_duffel_finish(trv_req *req, trv_resp *resp);
/* Duffel's error document (a new reference). */
json_t *sbx_duffel_error_doc(apr_pool_t *p, const char *request_id, int status,
                             const char *code, const char *message, const char *field);

/* A list's page from ?limit (1..200, default 50), ?after or ?before. */
typedef struct sbx_duffel_page_t {
    int limit, offset;
} sbx_duffel_page_t;
/* 1, or 0 with a 422 answered. */
int sbx_duffel_page(trv_req *req, trv_resp *resp, sbx_duffel_page_t *pg);
/* meta {limit, after, before} of a page of a list of total items. */
json_t *sbx_duffel_page_meta(apr_pool_t *p, const sbx_duffel_page_t *pg, int total);

#endif
