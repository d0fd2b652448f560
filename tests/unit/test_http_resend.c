/* libcurl resends a request by itself when the reused keep-alive connection
 * it went out on closes without a byte of answer. For an unkeyed POST that
 * second copy could be a second order, so such a request goes out on a
 * fresh connection and a lost answer is reported, not silently repaired;
 * a GET, a POST with an Idempotency-Key, or a search's POST (which only
 * reads), keeps the pooled connection and libcurl's resend.
 *
 * A request alone (trv_http_req.alone: a webhook to a receiver taken for
 * hanging) neither rides a kept connection nor leaves its own behind: the
 * next request still finds the one kept before.
 *
 * The upstream here is a real HTTP server on a loopback socket, in a
 * thread: it answers the first request it reads, closes the connection
 * of the second without answering (after reading all of it), and answers
 * every later one. */
#include "unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <apr_strings.h>
#include <curl/curl.h>

#include "core/env.h"
#include "core/upstream.h"

#define MAX_CONNS 8
#define MAX_SEEN 16
#define CONN_BUF 8192

typedef struct {
    int fd;
    size_t len;
    char buf[CONN_BUF];
} conn;

typedef struct {
    int listen_fd;
    int port;
    volatile int stop;           /* set by the test, read by the thread */
    pthread_t thread;
    /* What arrived, in order (read by the test after the thread ended). */
    int n_seen;
    char method[MAX_SEEN][8];
    int keyed[MAX_SEEN];         /* it carried an Idempotency-Key header */
    int accepted;                /* connections accepted */
    conn conns[MAX_CONNS];
} server;

static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             "Content-Length: 11\r\nConnection: keep-alive\r\n\r\n"
                             "{\"ok\":true}";

static void conn_close(conn *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    c->fd = -1;
    c->len = 0;
}

/* A whole request in c->buf (head and Content-Length body): its length,
 * or 0 while more is to come. */
static size_t whole_request(const conn *c)
{
    const char *end = memmem(c->buf, c->len, "\r\n\r\n", 4), *cl;
    size_t head, body = 0;
    if (!end) {
        return 0;
    }
    head = (size_t)(end - c->buf) + 4;
    for (cl = c->buf; cl && cl < end; cl = memchr(cl, '\n', (size_t)(end - cl))) {
        cl += (*cl == '\n');
        if (strncasecmp(cl, "Content-Length:", 15) == 0) {
            body = (size_t)strtoul(cl + 15, NULL, 10);
        }
    }
    return c->len >= head + body ? head + body : 0;
}

static void on_request(server *s, conn *c, size_t n)
{
    int i = s->n_seen++;
    char *head = strndup(c->buf, n);
    size_t m = strcspn(head, " ");
    if (i < MAX_SEEN) {
        snprintf(s->method[i], sizeof(s->method[i]), "%.*s", (int)(m < 7 ? m : 7), head);
        s->keyed[i] = strcasestr(head, "\r\nIdempotency-Key:") != NULL;
    }
    free(head);
    if (i == 1) {
        conn_close(c); /* the answer is lost: no byte of it is sent */
        return;
    }
    if (write(c->fd, answer, sizeof(answer) - 1) != (ssize_t)(sizeof(answer) - 1)) {
        conn_close(c);
        return;
    }
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

static void *serve(void *u)
{
    server *s = u;
    /* Bounded: the test stops it long before; 600 rounds of 50 ms at most. */
    int rounds;
    for (rounds = 0; rounds < 600 && !s->stop; rounds++) {
        struct pollfd pf[MAX_CONNS + 1];
        int i, n = 0, map[MAX_CONNS + 1];
        pf[n].fd = s->listen_fd;
        pf[n].events = POLLIN;
        map[n++] = -1;
        for (i = 0; i < MAX_CONNS; i++) {
            if (s->conns[i].fd >= 0) {
                pf[n].fd = s->conns[i].fd;
                pf[n].events = POLLIN;
                map[n++] = i;
            }
        }
        if (poll(pf, (nfds_t)n, 50) <= 0) {
            continue;
        }
        if (pf[0].revents & POLLIN) {
            int fd = accept(s->listen_fd, NULL, NULL);
            for (i = 0; fd >= 0 && i < MAX_CONNS && s->conns[i].fd >= 0; i++) {
            }
            if (fd >= 0 && i < MAX_CONNS) {
                s->conns[i].fd = fd;
                s->conns[i].len = 0;
                s->accepted++;
            }
            else if (fd >= 0) {
                close(fd);
            }
        }
        for (i = 1; i < n; i++) {
            conn *c = &s->conns[map[i]];
            ssize_t got;
            size_t whole;
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)) || c->fd < 0) {
                continue;
            }
            got = read(c->fd, c->buf + c->len, CONN_BUF - c->len);
            if (got <= 0) {
                conn_close(c);
                continue;
            }
            c->len += (size_t)got;
            while (c->fd >= 0 && (whole = whole_request(c)) > 0) {
                on_request(s, c, whole);
            }
        }
    }
    return NULL;
}

static void server_start(server *s)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    int i;
    memset(s, 0, sizeof(*s));
    for (i = 0; i < MAX_CONNS; i++) {
        s->conns[i].fd = -1;
    }
    s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s->listen_fd >= 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0; /* a free port */
    assert_int_equal(bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(s->listen_fd, 8), 0);
    assert_int_equal(getsockname(s->listen_fd, (struct sockaddr *)&a, &alen), 0);
    s->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(server *s)
{
    int i;
    s->stop = 1;
    pthread_join(s->thread, NULL);
    for (i = 0; i < MAX_CONNS; i++) {
        conn_close(&s->conns[i]);
    }
    close(s->listen_fd);
}

static int count(const server *s, const char *method)
{
    int i, n = 0;
    for (i = 0; i < s->n_seen && i < MAX_SEEN; i++) {
        n += strcmp(s->method[i], method) == 0;
    }
    return n;
}

static void quiet(void *baton, int level, const char *request_id, const char *msg)
{
    (void)baton;
    (void)level;
    (void)request_id;
    (void)msg;
}

typedef struct {
    apr_pool_t *pool;
    server srv;
    trv_env env;
    trv_upstream up;
} fixture;

/* A client of its own (an empty connection pool) and a fresh server; the
 * first call, a GET, is answered and leaves its connection in the pool. */
static void begin(fixture *f, apr_pool_t *p)
{
    trv_up_result res;
    memset(f, 0, sizeof(*f));
    f->pool = p;
    server_start(&f->srv);
    f->env.log.emit = quiet;
    f->env.http = trv_http_curl_create(p, NULL, 0);
    f->up.name = "SUPPLIER_T";
    f->up.base_url = apr_psprintf(p, "http://127.0.0.1:%d", f->srv.port);
    f->up.connect_timeout = apr_time_from_sec(5);
    f->up.timeout = apr_time_from_sec(20);
    assert_int_equal(trv_upstream_call(&f->env, p, &f->up, "GET", "/ping", NULL, "req_t",
                                       NULL, &res), TRV_UP_OK);
}

static void an_unkeyed_post_is_sent_once_and_its_loss_reported(void **state)
{
    apr_pool_t *p = *state;
    fixture f;
    trv_up_result res;
    json_t *body = json_pack("{s:s}", "order", "one");
    trv_up_status st;
    begin(&f, p);
    st = trv_upstream_call(&f.env, p, &f.up, "POST", "/orders", body, "req_t", NULL, &res);
    json_decref(body);
    server_stop(&f.srv);
    /* It may have acted upstream: the outcome is unknown, not "unavailable". */
    assert_int_equal(st, TRV_UP_TIMEOUT);
    assert_int_equal(res.http_status, 0);
    assert_non_null(res.message);
    assert_int_equal(count(&f.srv, "POST"), 1);
    assert_int_equal(f.srv.n_seen, 2);
    /* It did not ride the pooled connection the GET left. */
    assert_int_equal(f.srv.accepted, 2);
}

static void the_transport_says_the_request_went_unanswered(void **state)
{
    apr_pool_t *p = *state;
    fixture f;
    trv_http_req req;
    trv_http_resp resp;
    begin(&f, p);
    memset(&req, 0, sizeof(req));
    req.method = "DELETE";
    req.url = apr_pstrcat(p, f.up.base_url, "/orders/1", NULL);
    assert_int_not_equal(trv_http_perform(f.env.http, p, &req, &resp), APR_SUCCESS);
    server_stop(&f.srv);
    assert_int_equal(resp.status, 0);
    assert_true(resp.unanswered);
    assert_false(resp.timed_out);
    assert_non_null(resp.error);
    assert_int_equal(resp.new_connections, 1);
    assert_int_equal(count(&f.srv, "DELETE"), 1);
}

static void a_get_is_resent_on_a_fresh_connection(void **state)
{
    apr_pool_t *p = *state;
    fixture f;
    trv_up_result res;
    trv_up_status st;
    begin(&f, p);
    st = trv_upstream_call(&f.env, p, &f.up, "GET", "/orders/1", NULL, "req_t", NULL, &res);
    server_stop(&f.srv);
    assert_int_equal(st, TRV_UP_OK);
    assert_int_equal(res.http_status, 200);
    /* The first GET, the one whose answer was lost on the reused
     * connection, and libcurl's resend of it on a new one. */
    assert_int_equal(count(&f.srv, "GET"), 3);
    assert_int_equal(f.srv.accepted, 2);
}

static void a_keyed_post_keeps_reuse_and_the_resend(void **state)
{
    apr_pool_t *p = *state;
    fixture f;
    trv_up_result res;
    json_t *body = json_pack("{s:s}", "order", "one");
    trv_up_status st;
    begin(&f, p);
    st = trv_upstream_call(&f.env, p, &f.up, "POST", "/orders", body, "req_t", "key-1",
                           &res);
    json_decref(body);
    server_stop(&f.srv);
    assert_int_equal(st, TRV_UP_OK);
    assert_int_equal(res.http_status, 200);
    /* Both copies carried the key the upstream deduplicates by. */
    assert_int_equal(count(&f.srv, "POST"), 2);
    assert_true(f.srv.keyed[1]);
    assert_true(f.srv.keyed[2]);
    assert_int_equal(f.srv.accepted, 2);
}

/* A search (trv_upstream.repeatable) is a POST that only reads: it rides
 * the pooled connection like a keyed request, and the copy lost on it is
 * resent, without a key (a new connection per search cost the supplier a
 * millisecond each, docs/performance.md). */
static void a_repeatable_post_keeps_reuse_and_the_resend(void **state)
{
    apr_pool_t *p = *state;
    fixture f;
    trv_up_result res;
    json_t *body = json_pack("{s:s}", "city", "Paris");
    trv_up_status st;
    begin(&f, p);
    f.up.repeatable = 1;
    st = trv_upstream_call(&f.env, p, &f.up, "POST", "/search", body, "req_t", NULL, &res);
    json_decref(body);
    server_stop(&f.srv);
    assert_int_equal(st, TRV_UP_OK);
    assert_int_equal(res.http_status, 200);
    assert_int_equal(count(&f.srv, "POST"), 2);
    assert_false(f.srv.keyed[1]);
    assert_false(f.srv.keyed[2]);
    /* The first copy went on the GET's connection, the resend on a new one. */
    assert_int_equal(f.srv.accepted, 2);
}

static void a_request_alone_opens_its_own_connection_and_keeps_none(void **state)
{
    apr_pool_t *p = *state;
    fixture f;
    trv_up_result res;
    trv_http_req req;
    trv_http_resp resp;
    begin(&f, p);
    /* The second request's answer is lost: its resend opens a second
     * connection, the one kept from then on. */
    assert_int_equal(trv_upstream_call(&f.env, p, &f.up, "GET", "/orders/1", NULL, "req_t",
                                       NULL, &res), TRV_UP_OK);
    memset(&req, 0, sizeof(req));
    req.method = "POST";
    req.url = apr_pstrcat(p, f.up.base_url, "/inbox", NULL);
    req.body = "{}";
    req.body_len = 2;
    req.keyed = 1;
    req.alone = 1;
    assert_int_equal(trv_http_perform(f.env.http, p, &req, &resp), APR_SUCCESS);
    assert_int_equal(resp.status, 200);
    assert_int_equal(resp.new_connections, 1);
    /* The next request rides the connection kept before it. */
    req.alone = 0;
    assert_int_equal(trv_http_perform(f.env.http, p, &req, &resp), APR_SUCCESS);
    assert_int_equal(resp.status, 200);
    assert_int_equal(resp.new_connections, 0);
    server_stop(&f.srv);
    assert_int_equal(count(&f.srv, "POST"), 2);
    assert_int_equal(f.srv.accepted, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(an_unkeyed_post_is_sent_once_and_its_loss_reported,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(the_transport_says_the_request_went_unanswered,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_get_is_resent_on_a_fresh_connection, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_keyed_post_keeps_reuse_and_the_resend, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_repeatable_post_keeps_reuse_and_the_resend,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_request_alone_opens_its_own_connection_and_keeps_none,
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
