/* Upstream HTTP: the one interface suppliers, the payment provider and the
 * webhook senders call. libcurl sits behind it in http_curl.c alone. */
#ifndef TRV_HTTP_H
#define TRV_HTTP_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>

typedef struct trv_http_req {
    const char *method;              /* GET, POST, ... */
    const char *url;
    apr_table_t *headers;            /* extra request headers, may be NULL */
    const char *body;                /* may be NULL */
    apr_size_t body_len;
    apr_interval_time_t connect_timeout; /* 0: the client's default */
    apr_interval_time_t timeout;         /* whole exchange; 0: default */
    apr_size_t max_response;         /* 0: the client's default */
    int keep_truncated;              /* over max_response: keep the head, not fail */
    /* The request carries a key the receiver deduplicates by (an
     * Idempotency-Key the upstream honours, a webhook event id), or only
     * reads (a supplier search, trv_upstream.repeatable), so a second copy
     * of it changes nothing. Unkeyed requests whose method is
     * not GET, HEAD or OPTIONS go out on a fresh connection: libcurl
     * resends a request by itself when a reused connection closes without
     * an answer, and an unkeyed POST sent twice may order twice. */
    int keyed;
    /* The request goes on a connection of its own, opened for it and
     * closed after it, never one kept for other requests: a request
     * expected to hang (to a webhook receiver this process takes for
     * hanging) then holds up and ends only its own connection at its
     * timeout, not one that others would have reused. */
    int alone;
    const char *request_id;          /* sent as x-request-id */
    /* Asked before each connect with the resolved address (4 or 16 bytes);
     * answering 0 refuses it. Checked at connect time, so a name that
     * resolves differently later (DNS rebinding) is still caught. */
    int (*allow_address)(void *baton, int family, const unsigned char *addr);
    void *allow_baton;
} trv_http_req;

typedef struct trv_http_resp {
    int status;                      /* 0 when no HTTP response arrived */
    apr_table_t *headers;
    char *body;                      /* NUL-terminated */
    apr_size_t body_len;
    int truncated;                   /* the body was cut at max_response */
    int timed_out;
    int unanswered;                  /* the request went out, the connection ended
                                      * without a (whole) answer: it may have acted */
    int refused_address;             /* allow_address said no */
    int aborted;                     /* the process is stopping */
    const char *error;               /* transport failure, NULL on success */
    int new_connections;             /* connections opened (0: one was reused) */
    apr_interval_time_t elapsed;
} trv_http_resp;

typedef struct trv_http trv_http;
struct trv_http {
    /* APR_SUCCESS when an HTTP response arrived (any status). */
    apr_status_t (*perform)(trv_http *h, apr_pool_t *p, const trv_http_req *req,
                            trv_http_resp *resp);
    void *impl;
};

apr_status_t trv_http_perform(trv_http *h, apr_pool_t *p,
                              const trv_http_req *req, trv_http_resp *resp);

/* Once per process, before threads: curl_global_init. */
apr_status_t trv_http_global_init(void);
/* A client for the threads of this process: DNS answers and TLS sessions
 * shared, connections kept by idle transfer handles that one thread at a
 * time takes (http_curl.c says why); transfers abort when *stopping becomes non-zero. Lives as long as
 * pool. */
trv_http *trv_http_curl_create(apr_pool_t *pool, volatile apr_uint32_t *stopping,
                               apr_size_t default_max_response);

#endif
