/* An answer's body arrives whole, whatever its size says about itself:
 * the client sizes its buffer from Content-Length (eight times it for a
 * compressed answer) instead of growing from 4 kB, so these check that
 * an answer is read byte for byte with an exact length, without one
 * (the connection's close ends it), with a compressed one that decodes
 * to more than its length, and that max_response still holds when the
 * length says more (refused, or its head kept for a caller that asks).
 *
 * The upstream is a real HTTP server on a loopback socket, in a thread:
 * it reads one request and writes the answer the test prepared, then
 * closes. */
#include "unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <apr_strings.h>
#include <curl/curl.h>
#include <libdeflate.h>

#include "core/http.h"

typedef struct {
    int listen_fd, port;
    const char *answer;
    size_t answer_len;
    pthread_t thread;
} server;

static void *serve(void *u)
{
    server *s = u;
    char buf[8192];
    size_t len = 0, off = 0;
    struct pollfd pf = {s->listen_fd, POLLIN, 0};
    int fd;
    /* Bounded: one connection within 20 s. */
    if (poll(&pf, 1, 20000) <= 0 || (fd = accept(s->listen_fd, NULL, NULL)) < 0) {
        return NULL;
    }
    while (len < sizeof(buf) - 1) {
        ssize_t got = read(fd, buf + len, sizeof(buf) - 1 - len);
        if (got <= 0) {
            break;
        }
        len += (size_t)got;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n")) {
            break;
        }
    }
    while (off < s->answer_len) {
        ssize_t put = write(fd, s->answer + off, s->answer_len - off);
        if (put <= 0) {
            break;
        }
        off += (size_t)put;
    }
    close(fd);
    return NULL;
}

static void server_start(server *s, const char *answer, size_t answer_len)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    memset(s, 0, sizeof(*s));
    s->answer = answer;
    s->answer_len = answer_len;
    s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s->listen_fd >= 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(s->listen_fd, 1), 0);
    assert_int_equal(getsockname(s->listen_fd, (struct sockaddr *)&a, &alen), 0);
    s->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(server *s)
{
    pthread_join(s->thread, NULL);
    close(s->listen_fd);
}

/* A JSON answer of n bytes whose content varies (so a copy that lost or
 * repeated a piece would differ): {"d":"0123...."}. */
static char *json_of(apr_pool_t *p, size_t n)
{
    char *b = apr_palloc(p, n + 1);
    size_t i;
    memcpy(b, "{\"d\":\"", 6);
    for (i = 6; i < n - 2; i++) {
        b[i] = (char)('a' + (i * 7 + i / 13) % 26);
    }
    memcpy(b + n - 2, "\"}", 3);
    return b;
}

static apr_uint32_t crc32_of(const unsigned char *d, size_t n)
{
    apr_uint32_t c = 0xffffffffu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= d[i];
        for (k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

/* body as gzip of stored deflate blocks (what gzip -0 writes): a valid
 * compressed answer of a known decoded text, without zlib here. */
static char *gzip_stored(apr_pool_t *p, const char *body, size_t n, size_t *out_len)
{
    size_t blocks = n / 65535 + 1, i, at = 0, o = 0;
    unsigned char *g = apr_palloc(p, 10 + n + blocks * 5 + 8);
    apr_uint32_t crc = crc32_of((const unsigned char *)body, n);
    static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    memcpy(g, head, 10);
    o = 10;
    for (i = 0; i < blocks; i++) {
        size_t len = n - at < 65535 ? n - at : 65535;
        g[o++] = i + 1 == blocks ? 1 : 0;
        g[o++] = (unsigned char)(len & 0xff);
        g[o++] = (unsigned char)(len >> 8);
        g[o++] = (unsigned char)(~len & 0xff);
        g[o++] = (unsigned char)((~len >> 8) & 0xff);
        memcpy(g + o, body + at, len);
        o += len;
        at += len;
    }
    for (i = 0; i < 4; i++) {
        g[o++] = (unsigned char)(crc >> (8 * i));
    }
    for (i = 0; i < 4; i++) {
        g[o++] = (unsigned char)(n >> (8 * i));
    }
    *out_len = o;
    return (char *)g;
}

/* Answers with head + payload and GETs it through the client, with
 * Accept-Encoding: accept when not NULL. */
static apr_status_t fetch_as(apr_pool_t *p, const char *head, const char *payload,
                             size_t payload_len, apr_size_t max, int keep, const char *accept,
                             trv_http_resp *out);

static apr_status_t fetch(apr_pool_t *p, const char *head, const char *payload,
                          size_t payload_len, apr_size_t max, int keep, trv_http_resp *out)
{
    return fetch_as(p, head, payload, payload_len, max, keep, NULL, out);
}

static apr_status_t fetch_as(apr_pool_t *p, const char *head, const char *payload,
                             size_t payload_len, apr_size_t max, int keep, const char *accept,
                             trv_http_resp *out)
{
    server s;
    trv_http *http = trv_http_curl_create(p, NULL, 0);
    trv_http_req rq;
    size_t hl = strlen(head);
    char *answer = apr_palloc(p, hl + payload_len);
    apr_status_t rv;
    memcpy(answer, head, hl);
    memcpy(answer + hl, payload, payload_len);
    server_start(&s, answer, hl + payload_len);
    memset(&rq, 0, sizeof(rq));
    rq.method = "GET";
    rq.url = apr_psprintf(p, "http://127.0.0.1:%d/big", s.port);
    rq.connect_timeout = apr_time_from_sec(5);
    rq.timeout = apr_time_from_sec(20);
    rq.max_response = max;
    rq.keep_truncated = keep;
    if (accept) {
        rq.headers = apr_table_make(p, 1);
        apr_table_setn(rq.headers, "Accept-Encoding", accept);
    }
    memset(out, 0, sizeof(*out));
    rv = trv_http_perform(http, p, &rq, out);
    server_stop(&s);
    if (rv != APR_SUCCESS && !keep) {
        print_message("(%s)\n", out->error ? out->error : "");
    }
    return rv;
}

static void an_answer_of_its_stated_length_is_read_whole(void **state)
{
    apr_pool_t *p = *state;
    size_t n = 300001;
    char *body = json_of(p, n);
    trv_http_resp r;
    assert_int_equal(fetch(p, apr_psprintf(p, "HTTP/1.1 200 OK\r\nContent-Type: application/json"
                                              "\r\nContent-Length: %" APR_SIZE_T_FMT "\r\n\r\n", n),
                           body, n, 0, 0, &r), APR_SUCCESS);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, body, n);
    assert_int_equal(r.body[n], '\0');
    assert_false(r.truncated);
}

static void an_answer_without_a_length_is_read_whole(void **state)
{
    apr_pool_t *p = *state;
    size_t n = 150007;
    char *body = json_of(p, n);
    trv_http_resp r;
    assert_int_equal(fetch(p, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              "Connection: close\r\n\r\n", body, n, 0, 0, &r), APR_SUCCESS);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, body, n);
}

static void a_compressed_answer_decodes_past_its_length(void **state)
{
    apr_pool_t *p = *state;
    size_t n = 200003, gl;
    char *body = json_of(p, n), *gz = gzip_stored(p, body, n, &gl);
    trv_http_resp r;
    assert_int_equal(fetch(p, apr_psprintf(p, "HTTP/1.1 200 OK\r\nContent-Type: application/json"
                                              "\r\nContent-Encoding: gzip\r\nContent-Length: "
                                              "%" APR_SIZE_T_FMT "\r\n\r\n", gl),
                           gz, gl, 0, 0, &r), APR_SUCCESS);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, body, n);
    assert_int_equal(r.body[n], '\0');
}

static void a_stated_length_over_the_cap_is_refused_or_cut(void **state)
{
    apr_pool_t *p = *state;
    size_t n = 100000;
    char *body = json_of(p, n);
    const char *head = apr_psprintf(p, "HTTP/1.1 200 OK\r\nContent-Length: %" APR_SIZE_T_FMT "\r\n\r\n", n);
    trv_http_resp r;
    assert_int_not_equal(fetch(p, head, body, n, 40000, 0, &r), APR_SUCCESS);
    assert_non_null(strstr(r.error, "larger than 40000"));
    /* A caller that keeps the head gets exactly the cap's worth. */
    assert_int_equal(fetch(p, head, body, n, 40000, 1, &r), APR_SUCCESS);
    assert_true(r.truncated);
    assert_int_equal(r.body_len, 40000);
    assert_memory_equal(r.body, body, 40000);
    assert_int_equal(r.body[40000], '\0');
}

static const char *gzip_head(apr_pool_t *p, size_t len)
{
    return apr_psprintf(p, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                           "Content-Encoding: gzip\r\nContent-Length: %" APR_SIZE_T_FMT
                           "\r\n\r\n", len);
}

/* A request that asks for gzip itself (Hotelbeds', Rapid's) gets its
 * answer decoded after the transfer (core/gzip.c), whole: stored blocks
 * written here, and a member the gzip tool wrote. */
static void a_gzip_answer_asked_for_is_decoded_whole(void **state)
{
    apr_pool_t *p = *state;
    static const unsigned char hello[] = {
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd,
        0xc9, 0xc9, 0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00};
    size_t n = 200003, gl;
    char *body = json_of(p, n), *gz = gzip_stored(p, body, n, &gl);
    trv_http_resp r;
    assert_int_equal(fetch_as(p, gzip_head(p, gl), gz, gl, 0, 0, "gzip", &r), APR_SUCCESS);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, body, n);
    assert_int_equal(r.body[n], '\0');
    assert_int_equal(fetch_as(p, gzip_head(p, sizeof(hello)), (const char *)hello,
                              sizeof(hello), 0, 0, "gzip", &r), APR_SUCCESS);
    assert_int_equal(r.body_len, 6);
    assert_string_equal(r.body, "hello\n");
}

/* Decoded here, an answer is refused as libcurl's decoding refuses it:
 * past max_response (decoded size), or when it does not decode (a CRC,
 * a size or a length that is wrong, a second member). */
static void a_gzip_answer_asked_for_is_refused_when_too_large_or_broken(void **state)
{
    apr_pool_t *p = *state;
    size_t n = 100000, gl, zl, i;
    char *body = json_of(p, n), *gz = gzip_stored(p, body, n, &gl), *bad;
    char *z = apr_palloc(p, n);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    trv_http_resp r;
    /* Compressed to a few kB (libdeflate's encoder): refused for what it
     * decodes to, though what arrives is far under the cap. */
    assert_non_null(c);
    zl = libdeflate_gzip_compress(c, body, n, z, n);
    libdeflate_free_compressor(c);
    assert_true(zl > 0 && zl < n / 4);
    assert_int_not_equal(fetch_as(p, gzip_head(p, zl), z, zl, n - 1, 0, "gzip", &r),
                         APR_SUCCESS);
    assert_non_null(strstr(r.error, "larger than 99999"));
    assert_int_equal(r.status, 0);
    assert_int_equal(fetch_as(p, gzip_head(p, zl), z, zl, n, 0, "gzip", &r), APR_SUCCESS);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, body, n);
    for (i = 0; i < 4; i++) {
        bad = apr_pmemdup(p, gz, gl);
        switch (i) {
        case 0: bad[gl - 8] ^= 1; break;               /* the CRC */
        case 1: bad[gl - 4] ^= 1; break;               /* the size, smaller */
        case 2: bad[gl - 3] = 0x7f; break;             /* the size, larger (under max) */
        case 3: bad[gl / 2] ^= 0x10; break;            /* a stored byte */
        }
        assert_int_not_equal(fetch_as(p, gzip_head(p, gl), bad, gl, 0, 0, "gzip", &r),
                             APR_SUCCESS);
        assert_non_null(strstr(r.error, "does not decode"));
    }
    bad = apr_palloc(p, gl * 2);
    memcpy(bad, gz, gl);
    memcpy(bad + gl, gz, gl);
    assert_int_not_equal(fetch_as(p, gzip_head(p, gl * 2), bad, gl * 2, 0, 0, "gzip", &r),
                         APR_SUCCESS);
    /* A caller that keeps a truncated head is left to libcurl's decoding. */
    assert_int_equal(fetch_as(p, gzip_head(p, gl), gz, gl, 40000, 1, "gzip", &r), APR_SUCCESS);
    assert_true(r.truncated);
    assert_int_equal(r.body_len, 40000);
    assert_memory_equal(r.body, body, 40000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(an_answer_of_its_stated_length_is_read_whole,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(an_answer_without_a_length_is_read_whole, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_compressed_answer_decodes_past_its_length, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_stated_length_over_the_cap_is_refused_or_cut,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_gzip_answer_asked_for_is_decoded_whole, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_gzip_answer_asked_for_is_refused_when_too_large_or_broken,
                                        pool_setup, pool_teardown),
    };
    int rc;
    if (trv_http_global_init() != APR_SUCCESS) {
        return 1;
    }
    rc = UNIT_RUN(tests);
    curl_global_cleanup();
    return rc;
}
