/* The only libcurl user. */
#include "http.h"
#include "gzip.h"

#include <apr_atomic.h>
#include <apr_network_io.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <ctype.h>
#include <curl/curl.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>

/* Idle transfer handles a client keeps for its next transfers. */
#define TRV_HTTP_IDLE_HANDLES 64

typedef struct curl_client {
    CURLSH *share;               /* DNS answers and TLS sessions, never connections */
    apr_thread_mutex_t *locks[CURL_LOCK_DATA_LAST];
    apr_thread_mutex_t *idle_lock;
    CURL *idle[TRV_HTTP_IDLE_HANDLES]; /* LIFO: the warmest handle first */
    int nidle;
    volatile apr_uint32_t *stopping;
    apr_size_t max_response;
} curl_client;

typedef struct transfer {
    apr_pool_t *pool;
    const trv_http_req *req;
    trv_http_resp *resp;
    curl_client *client;
    char *buf;
    apr_size_t len, cap, max;
    int overflow;
    int raw_gzip;                /* a gzip answer is kept as sent (own_gzip) */
} transfer;

apr_status_t trv_http_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? APR_SUCCESS
                                                              : APR_EGENERAL;
}

/* Idle keep-alive connections one transfer handle keeps, over its hosts
 * (libcurl's default is 5). */
#define TRV_HTTP_HANDLE_CONNECTIONS 4L

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access a, void *u)
{
    curl_client *c = u;
    (void)h;
    (void)a;
    if (data < CURL_LOCK_DATA_LAST && c->locks[data]) {
        apr_thread_mutex_lock(c->locks[data]);
    }
}

static void share_unlock(CURL *h, curl_lock_data data, void *u)
{
    curl_client *c = u;
    (void)h;
    if (data < CURL_LOCK_DATA_LAST && c->locks[data]) {
        apr_thread_mutex_unlock(c->locks[data]);
    }
}

/* The body buffer's first size: the answer's Content-Length when it says
 * one (up to the cap), so a supplier's 100 kB answer lands in one buffer
 * rather than in five doublings from 4 kB, each copied and each on fresh
 * pages (the search path's profile, docs/performance.md); a compressed
 * answer decodes to several times its length: eight times it, a guess
 * that growth corrects. */
static apr_size_t first_cap(const transfer *t)
{
    const char *cl = apr_table_get(t->resp->headers, "Content-Length");
    apr_int64_t n = cl ? apr_atoi64(cl) : 0;
    if (n > 0 && !t->raw_gzip && apr_table_get(t->resp->headers, "Content-Encoding")) {
        n = n < APR_INT64_C(1) << 40 ? n * 8 : n;
    }
    if (n <= 4096) {
        return 4096;
    }
    return (apr_uint64_t)n < t->max ? (apr_size_t)n + 1 : t->max + 1;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *u)
{
    transfer *t = u;
    size_t n = size * nmemb, take = n;
    if (t->len + n > t->max) {
        t->overflow = 1;
        if (!t->req->keep_truncated) {
            return 0; /* aborts the transfer */
        }
        take = t->max - t->len;
    }
    if (t->len + take + 1 > t->cap) {
        apr_size_t cap = t->cap ? t->cap * 2 : first_cap(t);
        char *nb;
        while (cap < t->len + take + 1) {
            cap *= 2;
        }
        nb = apr_palloc(t->pool, cap);
        if (t->len) {
            memcpy(nb, t->buf, t->len);
        }
        t->buf = nb;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, ptr, take);
    t->len += take;
    return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *u)
{
    transfer *t = u;
    size_t n = size * nmemb;
    char *line, *colon, *v, *end;

    if (n >= 5 && strncmp(ptr, "HTTP/", 5) == 0) {
        apr_table_clear(t->resp->headers); /* a new response (after 100) */
        return n;
    }
    line = apr_pstrmemdup(t->pool, ptr, n);
    colon = strchr(line, ':');
    if (!colon) {
        return n;
    }
    *colon = '\0';
    for (v = colon + 1; *v == ' ' || *v == '\t'; v++) {
    }
    for (end = v + strlen(v); end > v && isspace((unsigned char)end[-1]); end--) {
    }
    *end = '\0';
    apr_table_addn(t->resp->headers, line, v);
    return n;
}

static int on_progress(void *u, curl_off_t dt, curl_off_t dn, curl_off_t ut,
                       curl_off_t un)
{
    transfer *t = u;
    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    if (t->client->stopping && apr_atomic_read32(t->client->stopping)) {
        t->resp->aborted = 1;
        return 1;
    }
    return 0;
}

static curl_socket_t on_open_socket(void *u, curlsocktype purpose,
                                    struct curl_sockaddr *a)
{
    transfer *t = u;
    const unsigned char *raw = NULL;
    int family = 0;
    (void)purpose;

    if (a->family == AF_INET) {
        raw = (const unsigned char *)&((struct sockaddr_in *)&a->addr)->sin_addr;
        family = APR_INET;
    }
    else if (a->family == AF_INET6) {
        raw = (const unsigned char *)&((struct sockaddr_in6 *)&a->addr)->sin6_addr;
        family = APR_INET6;
    }
    if (!raw || !t->req->allow_address(t->req->allow_baton, family, raw)) {
        t->resp->refused_address = 1;
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

/* Connections are kept by transfer handles, one thread at a time, never
 * in the share: libcurl does not support a connection cache shared by
 * concurrent threads (its KNOWN_BUGS; curl issue #8111: a connection given
 * back is stamped after the cache is unlocked, while another thread may
 * have pruned and freed it). A core of an httpd child showed that heap
 * corruption (a webhook sender's thread, after its receiver's connections
 * died). So a transfer takes an idle handle, whose own cache holds the
 * connections it used before, and gives it back reset (curl_easy_reset
 * keeps the live connections). */
static CURL *handle_take(curl_client *c)
{
    CURL *e = NULL;
    apr_thread_mutex_lock(c->idle_lock);
    if (c->nidle > 0) {
        e = c->idle[--c->nidle];
    }
    apr_thread_mutex_unlock(c->idle_lock);
    return e ? e : curl_easy_init();
}

static void handle_give_back(curl_client *c, CURL *e)
{
    curl_easy_reset(e);
    apr_thread_mutex_lock(c->idle_lock);
    if (c->nidle < TRV_HTTP_IDLE_HANDLES) {
        c->idle[c->nidle++] = e;
        e = NULL;
    }
    apr_thread_mutex_unlock(c->idle_lock);
    if (e) {
        curl_easy_cleanup(e);
    }
}

/* Whether the request asks for gzip alone (its own Accept-Encoding:
 * gzip), and a truncated answer would not be kept: its answer is then
 * decoded here in one call (core/gzip.h), not by libcurl through zlib a
 * block at a time. */
static int own_gzip(const trv_http_req *req)
{
    const char *ae = req->headers ? apr_table_get(req->headers, "Accept-Encoding") : NULL;
    return ae && strcasecmp(ae, "gzip") == 0 && !req->keep_truncated;
}

/* The gzip answer t holds, decoded into resp; APR_SUCCESS, or the error
 * libcurl's own decoding would have given. */
static apr_status_t decode_gzip(apr_pool_t *p, transfer *t, trv_http_resp *resp)
{
    char *out;
    apr_size_t len;
    switch (trv_gzip_decode(p, t->buf ? t->buf : "", t->len, t->max, &out, &len)) {
    case TRV_GZIP_OK:
        resp->body = out;
        resp->body_len = len;
        return APR_SUCCESS;
    case TRV_GZIP_TOO_LARGE:
        resp->truncated = 1;
        resp->error = apr_psprintf(p, "response larger than %" APR_SIZE_T_FMT " bytes", t->max);
        break;
    default:
        resp->error = "the answer's gzip encoding does not decode";
        break;
    }
    resp->body = apr_pstrdup(p, "");
    resp->body_len = 0;
    resp->status = 0;
    return APR_EGENERAL;
}

/* Whether a second copy of the request is harmless, so libcurl may resend
 * it: a keyed one, or GET, HEAD and OPTIONS (they change nothing). */
static int resend_harmless(const trv_http_req *req)
{
    return req->keyed || strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0
           || strcmp(req->method, "OPTIONS") == 0;
}

static apr_status_t curl_perform(trv_http *h, apr_pool_t *p,
                                 const trv_http_req *req, trv_http_resp *resp)
{
    curl_client *c = h->impl;
    transfer t;
    CURL *e;
    CURLcode rc;
    struct curl_slist *hl = NULL;
    char errbuf[CURL_ERROR_SIZE] = "";
    long code = 0, connects = 0, sent = 0;
    apr_time_t start = apr_time_now();
    apr_interval_time_t to = req->timeout ? req->timeout : apr_time_from_sec(30);
    apr_interval_time_t cto = req->connect_timeout ? req->connect_timeout
                                                   : apr_time_from_sec(5);

    memset(resp, 0, sizeof(*resp));
    resp->headers = apr_table_make(p, 8);
    memset(&t, 0, sizeof(t));
    t.pool = p;
    t.req = req;
    t.resp = resp;
    t.client = c;
    t.max = req->max_response ? req->max_response : c->max_response;

    /* A request alone takes no kept handle (nor the connections it keeps)
     * and its handle is not kept after it. */
    e = req->alone ? curl_easy_init() : handle_take(c);
    if (!e) {
        resp->error = "cannot create a transfer";
        return APR_ENOMEM;
    }
    curl_easy_setopt(e, CURLOPT_SHARE, c->share);
    curl_easy_setopt(e, CURLOPT_MAXCONNECTS, TRV_HTTP_HANDLE_CONNECTIONS);
    curl_easy_setopt(e, CURLOPT_URL, req->url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(cto / 1000));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(to / 1000));
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "mod_travel/1");
    /* Compressed answers are decoded (Hotelbeds asks clients to accept
     * gzip); a request's own Accept-Encoding header names what it takes.
     * One that takes gzip alone is decoded after the transfer (own_gzip). */
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    if ((t.raw_gzip = own_gzip(req))) {
        curl_easy_setopt(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    }
    if (req->allow_address) {
        curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &t);
    }
    if (strcmp(req->method, "GET") != 0) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
    }
    if (req->alone) {
        curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
    }
    else if (!resend_harmless(req)) {
        /* libcurl resends a request only when the connection it used was a
         * reused one that closed with no byte of answer: on a connection
         * opened for this transfer it reports the failure instead (the
         * caller then sees an unknown outcome, never a silent second copy).
         * The connection may serve others afterwards. */
        curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
    }
    if (req->body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    hl = curl_slist_append(hl, "Expect:");
    if (req->request_id) {
        hl = curl_slist_append(hl, apr_pstrcat(p, "x-request-id: ", req->request_id,
                                               NULL));
    }
    if (req->headers) {
        const apr_array_header_t *arr = apr_table_elts(req->headers);
        const apr_table_entry_t *ent = (const apr_table_entry_t *)arr->elts;
        int i;
        for (i = 0; i < arr->nelts; i++) {
            hl = curl_slist_append(hl, apr_pstrcat(p, ent[i].key, ": ", ent[i].val,
                                                   NULL));
        }
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);

    rc = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects);
    curl_easy_getinfo(e, CURLINFO_REQUEST_SIZE, &sent);
    if (req->alone) {
        curl_easy_cleanup(e);
    }
    else {
        handle_give_back(c, e);
    }
    curl_slist_free_all(hl);

    resp->elapsed = apr_time_now() - start;
    resp->new_connections = (int)connects;
    resp->body = t.buf ? t.buf : apr_pstrdup(p, "");
    if (t.buf) {
        t.buf[t.len] = '\0';
    }
    resp->body_len = t.len;
    resp->truncated = t.overflow;
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t.overflow
                            && req->keep_truncated)) {
        resp->timed_out = (rc == CURLE_OPERATION_TIMEDOUT);
        /* A transfer aborted because the process is stopping (a graceful
         * restart) after its request went out may have acted upstream just
         * as one whose connection closed: an authorization made, an order
         * placed. Only one aborted before sending anything changed nothing. */
        resp->unanswered = (rc == CURLE_GOT_NOTHING || rc == CURLE_RECV_ERROR
                            || rc == CURLE_PARTIAL_FILE || (resp->aborted && sent > 0));
        if (rc == CURLE_WRITE_ERROR && t.overflow) {
            resp->error = apr_psprintf(p, "response larger than %" APR_SIZE_T_FMT
                                       " bytes", t.max);
        }
        else if (resp->refused_address) {
            resp->error = "the target address is not allowed";
        }
        else if (resp->aborted) {
            resp->error = "aborted: the process is stopping";
        }
        else {
            resp->error = apr_pstrdup(p, errbuf[0] ? errbuf : curl_easy_strerror(rc));
        }
        resp->status = 0;
        return APR_EGENERAL;
    }
    resp->status = (int)code;
    if (t.raw_gzip && t.len > 0 && apr_table_get(resp->headers, "Content-Encoding")
        && strcasecmp(apr_table_get(resp->headers, "Content-Encoding"), "gzip") == 0) {
        return decode_gzip(p, &t, resp);
    }
    return APR_SUCCESS;
}

static apr_status_t client_cleanup(void *u)
{
    curl_client *c = u;
    while (c->nidle > 0) {
        curl_easy_cleanup(c->idle[--c->nidle]);
    }
    if (c->share) {
        curl_share_cleanup(c->share);
        c->share = NULL;
    }
    return APR_SUCCESS;
}

trv_http *trv_http_curl_create(apr_pool_t *pool, volatile apr_uint32_t *stopping,
                               apr_size_t default_max_response)
{
    trv_http *h = apr_pcalloc(pool, sizeof(*h));
    curl_client *c = apr_pcalloc(pool, sizeof(*c));
    int i;

    for (i = 0; i < CURL_LOCK_DATA_LAST; i++) {
        apr_thread_mutex_create(&c->locks[i], APR_THREAD_MUTEX_DEFAULT, pool);
    }
    apr_thread_mutex_create(&c->idle_lock, APR_THREAD_MUTEX_DEFAULT, pool);
    c->stopping = stopping;
    c->max_response = default_max_response ? default_max_response : 8 * 1024 * 1024;
    c->share = curl_share_init();
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    apr_pool_cleanup_register(pool, c, client_cleanup, apr_pool_cleanup_null);
    h->perform = curl_perform;
    h->impl = c;
    return h;
}

apr_status_t trv_http_perform(trv_http *h, apr_pool_t *p,
                              const trv_http_req *req, trv_http_resp *resp)
{
    return h->perform(h, p, req, resp);
}
