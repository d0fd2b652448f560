#include "e2e.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <ctype.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

const char *e2e_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        fprintf(stderr, "e2e: %s is not set; run through tests/run-stack-tests.sh\n", name);
        exit(2);
    }
    return v;
}

const char *e2e_url(void) { return e2e_env("TRAVEL_TEST_URL"); }
const char *e2e_apache2(void) { return e2e_env("TRAVEL_APACHE2"); }
const char *e2e_sandbox_url(void) { return e2e_env("TRAVEL_TEST_SANDBOX_URL"); }
const char *e2e_conninfo(void) { return e2e_env("TRAVEL_TEST_DB"); }

typedef struct buf {
    char *p;
    size_t n;
} buf;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *u)
{
    buf *b = u;
    size_t n = size * nmemb;
    b->p = realloc(b->p, b->n + n + 1);
    memcpy(b->p + b->n, ptr, n);
    b->n += n;
    b->p[b->n] = '\0';
    return n;
}

/* "a%2Fb+c" -> "a/b c" (malloc'd). */
static char *url_decode(const char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    size_t i;
    for (i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1])
            && isxdigit((unsigned char)s[i + 2])) {
            char hx[3] = {s[i + 1], s[i + 2], 0};
            *o++ = (char)strtol(hx, NULL, 16);
            i += 2;
        }
        else {
            *o++ = s[i] == '+' ? ' ' : s[i];
        }
    }
    *o = '\0';
    return out;
}

/* Every /v1 exchange goes to $TRAVEL_TEST_EXCHANGES (one JSON object a
 * line), where tests/openapi/check.mjs holds it against docs/openapi.yaml. */
static void record_exchange(const char *method, const char *path, const char *request,
                            long status, const char *body, size_t body_len)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    const char *file = getenv("TRAVEL_TEST_EXCHANGES");
    const char *q = strchr(path, '?');
    size_t path_len = q ? (size_t)(q - path) : strlen(path);
    json_t *x, *query = json_object();
    FILE *f;
    if (!file || !*file || strncmp(path, "/v1", 3) != 0) {
        json_decref(query);
        return;
    }
    while (q && *q) {
        const char *start = q + 1, *end = strchr(start, '&'), *eq;
        if (!end) {
            end = start + strlen(start);
        }
        eq = memchr(start, '=', (size_t)(end - start));
        if (end > start) {
            char *k = url_decode(start, (size_t)((eq ? eq : end) - start));
            char *v = eq ? url_decode(eq + 1, (size_t)(end - eq - 1)) : strdup("");
            json_object_set_new(query, k, json_string(v));
            free(k);
            free(v);
        }
        q = *end ? end : NULL;
    }
    x = json_pack("{s:s,s:s%,s:o,s:s?,s:i,s:s%}", "method", method, "path", path, path_len,
                  "query", query, "request", request, "status", (int)status, "body",
                  body ? body : "", body ? body_len : 0);
    if (!x) {
        return; /* not UTF-8: not an API answer */
    }
    pthread_mutex_lock(&lock);
    if ((f = fopen(file, "a"))) {
        json_dumpf(x, f, JSON_COMPACT);
        fputc('\n', f);
        fclose(f);
    }
    pthread_mutex_unlock(&lock);
    json_decref(x);
}

e2e_resp *e2e_call(const char *base, const char *method, const char *path,
                   const char *const *headers, const char *body)
{
    return e2e_call_from(NULL, base, method, path, headers, body);
}

e2e_resp *e2e_call_from(const char *source, const char *base, const char *method,
                        const char *path, const char *const *headers, const char *body)
{
    CURL *c = curl_easy_init();
    struct curl_slist *hl = NULL;
    buf b = {calloc(1, 1), 0}, h = {calloc(1, 1), 0};
    e2e_resp *r = calloc(1, sizeof(*r));
    size_t ulen = strlen(base) + strlen(path) + 1;
    char *url = malloc(ulen);
    CURLcode rc;

    snprintf(url, ulen, "%s%s", base, path);
    {
        /* The sandbox speaks each simulated API's own error shapes. */
        const char *sbx = getenv("TRAVEL_TEST_SANDBOX_URL");
        r->api = strncmp(path, "/v1/", 4) == 0 && !(sbx && strcmp(base, sbx) == 0);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    if (source) {
        /* "host!127.0.0.2": bound to that address, no interface lookup. */
        char iface[64];
        snprintf(iface, sizeof(iface), "host!%s", source);
        curl_easy_setopt(c, CURLOPT_INTERFACE, iface);
    }
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    }
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    /* Compressed answers are asked for and decoded (the sandbox's Hotelbeds
     * gzips, as Hotelbeds does); a test's own Accept-Encoding header wins. */
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
    hl = curl_slist_append(hl, "Expect:");
    for (; headers && *headers; headers++) {
        hl = curl_slist_append(hl, *headers);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        fail_msg("%s %s: %s", method, url, curl_easy_strerror(rc));
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    free(url);
    r->body = b.p;
    r->body_len = b.n;
    r->headers = h.p;
    r->json = json_loadb(b.p, b.n, 0, NULL);
    record_exchange(method, path, body, r->status, b.p, b.n);
    return r;
}

static e2e_resp *keyed(const char *key, const char *method, const char *path,
                       const char *body)
{
    char kh[512];
    const char *hdrs[3] = {NULL, NULL, NULL};
    int i = 0;
    if (key) {
        snprintf(kh, sizeof(kh), "x-api-key: %s", key);
        hdrs[i++] = kh;
    }
    if (body) {
        hdrs[i++] = "Content-Type: application/json";
    }
    return e2e_call(e2e_url(), method, path, hdrs, body);
}

e2e_resp *e2e_get(const char *key, const char *path)
{
    return keyed(key, "GET", path, NULL);
}

e2e_resp *e2e_post(const char *key, const char *path, const char *json)
{
    return keyed(key, "POST", path, json);
}

void e2e_free(e2e_resp *r)
{
    if (r) {
        json_decref(r->json);
        free(r->body);
        free(r->headers);
        free(r);
    }
}

char *e2e_header(const e2e_resp *r, const char *name)
{
    size_t n = strlen(name);
    const char *line = r->headers;
    while (line && *line) {
        const char *end = strstr(line, "\r\n");
        if (!end) {
            end = line + strlen(line);
        }
        if ((size_t)(end - line) > n && strncasecmp(line, name, n) == 0 && line[n] == ':') {
            const char *v = line + n + 1;
            while (*v == ' ') {
                v++;
            }
            return strndup(v, (size_t)(end - v));
        }
        line = *end ? end + 2 : end;
    }
    return NULL;
}

const char *e2e_error_code(const e2e_resp *r)
{
    const char *c = json_string_value(json_object_get(json_object_get(r->json, "error"),
                                                      "code"));
    return c ? c : "";
}

void e2e_assert_error(const e2e_resp *r, long status, const char *code)
{
    json_t *err = json_object_get(r->json, "error");
    char *rid = e2e_header(r, "x-request-id");
    char *ct = e2e_header(r, "content-type");
    if (r->status != status || !err) {
        fail_msg("expected %ld %s, got %ld: %s", status, code, r->status, r->body);
    }
    assert_string_equal(e2e_error_code(r), code);
    /* mod_travel's envelope as docs/api.md states it: code, message,
     * request_id, and details with validation errors only (a non-empty
     * list). */
    if (r->api) {
        const char *k;
        json_t *v;
        json_object_foreach(err, k, v) {
            if (strcmp(k, "details") == 0) {
                assert_string_equal(code, "validation_failed");
                assert_true(json_array_size(v) > 0);
            }
            else if (strcmp(k, "code") != 0 && strcmp(k, "message") != 0
                     && strcmp(k, "request_id") != 0) {
                fail_msg("the error envelope has an undocumented member %s: %s", k, r->body);
            }
        }
    }
    assert_true(json_is_string(json_object_get(err, "message")));
    assert_true(json_string_length(json_object_get(err, "message")) > 0);
    assert_non_null(rid);
    assert_string_equal(json_string_value(json_object_get(err, "request_id")), rid);
    assert_non_null(ct);
    assert_non_null(strstr(ct, "application/json"));
    free(rid);
    free(ct);
}

char *e2e_travelctl(const char *fmt, ...)
{
    char args[2048], cmd[4096], line[1024], *last = NULL;
    va_list ap;
    FILE *f;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof(cmd), "%s --db '%s' %s 2>/dev/null", e2e_env("TRAVEL_TEST_TRAVELCTL"),
             e2e_conninfo(), args);
    f = popen(cmd, "r");
    if (!f) {
        return NULL;
    }
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        free(last);
        last = strdup(line);
    }
    if (pclose(f) != 0) {
        free(last);
        return NULL;
    }
    return last;
}

char *e2e_new_key(const char *org_id, const char *user)
{
    return e2e_travelctl("key create --org %s --user %s", org_id, user);
}

char *e2e_new_org_key(const char *user, char **org_id)
{
    char *org = e2e_travelctl("org create e2e-%ld-%d", e2e_now_ms(), (int)getpid());
    char *key;
    assert_non_null(org);
    key = e2e_new_key(org, user);
    assert_non_null(key);
    if (org_id) {
        *org_id = org;
    }
    else {
        free(org);
    }
    return key;
}

static PGconn *db;

PGconn *e2e_db(void)
{
    if (!db) {
        db = PQconnectdb(e2e_conninfo());
        if (PQstatus(db) != CONNECTION_OK) {
            fail_msg("cannot connect to the test database: %s", PQerrorMessage(db));
        }
    }
    return db;
}

static PGresult *query(const char *sql, int n, const char *const *params)
{
    PGresult *res = PQexecParams(e2e_db(), sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        fail_msg("SQL failed: %s: %s", sql, PQerrorMessage(e2e_db()));
    }
    return res;
}

long e2e_sql_long(const char *sql, int nparams, const char *const *params)
{
    PGresult *res = query(sql, nparams, params);
    long v = (PQntuples(res) > 0 && !PQgetisnull(res, 0, 0)) ? atol(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return v;
}

char *e2e_sql_text(const char *sql, int nparams, const char *const *params)
{
    PGresult *res = query(sql, nparams, params);
    char *v = (PQntuples(res) > 0 && !PQgetisnull(res, 0, 0)) ? strdup(PQgetvalue(res, 0, 0))
                                                               : NULL;
    PQclear(res);
    return v;
}

void e2e_sql_exec(const char *sql, int nparams, const char *const *params)
{
    PQclear(query(sql, nparams, params));
}

static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

void e2e_sql_admin(const char *dbname, const char *sql)
{
    char ci[1024];
    PGconn *c;
    PGresult *res;
    snprintf(ci, sizeof(ci), "%s", e2e_conninfo());
    *strstr(ci, "dbname=") = '\0';
    snprintf(ci + strlen(ci), sizeof(ci) - strlen(ci), "dbname=%s user=postgres", dbname);
    c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK) {
        fail_msg("%s", PQerrorMessage(c));
    }
    PQsetNoticeProcessor(c, quiet, NULL);
    res = PQexec(c, sql);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    }
    PQclear(res);
    PQfinish(c);
}

void e2e_own_database(const char *name, char *conninfo, size_t n)
{
    char sql[256], cmd[4096];
    snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s", name);
    e2e_sql_admin("postgres", sql);
    snprintf(sql, sizeof(sql), "CREATE DATABASE %s OWNER travel", name);
    e2e_sql_admin("postgres", sql);
    snprintf(conninfo, n, "%s", e2e_conninfo());
    *strstr(conninfo, "dbname=") = '\0';
    snprintf(conninfo + strlen(conninfo), n - strlen(conninfo), "dbname=%s user=travel", name);
    snprintf(cmd, sizeof(cmd), "'%s' --db '%s' migrate >/dev/null",
             e2e_env("TRAVEL_TEST_TRAVELCTL"), conninfo);
    assert_int_equal(system(cmd), 0);
}

void e2e_expect_log(const char *regex)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof(path), "%s/expected-errors", e2e_env("TRAVEL_TEST_DIR"));
    f = fopen(path, "a");
    if (f) {
        fprintf(f, "%s\n", regex);
        fclose(f);
    }
}

long e2e_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

long e2e_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void e2e_sleep_ms(long ms)
{
    usleep((useconds_t)ms * 1000);
}

int e2e_until_steady(long (*status)(void *), void *baton, long want, long limit_ms)
{
    long start = e2e_now_ms(), since = -1;
    for (;;) {
        long now;
        int same = status(baton) == want;
        now = e2e_now_ms();
        if (!same) {
            since = -1;
        }
        else if (since < 0) {
            since = now;
        }
        else if (now - since >= 1000) {
            return 1;
        }
        if (since < 0 && now - start > limit_ms) {
            return 0;
        }
        e2e_sleep_ms(20);
    }
}

int e2e_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
    int rc;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = _cmocka_run_group_tests(name, tests, n, NULL, NULL);
    if (db) {
        PQfinish(db);
    }
    curl_global_cleanup();
    return rc;
}

long e2e_instance_pid(const char *instance)
{
    char path[4096];
    FILE *f;
    long pid = -1;
    snprintf(path, sizeof(path), "%s/httpd-%s/httpd.pid", e2e_env("TRAVEL_TEST_DIR"), instance);
    if ((f = fopen(path, "r"))) {
        if (fscanf(f, "%ld", &pid) != 1) {
            pid = -1;
        }
        fclose(f);
    }
    return pid;
}

long e2e_parent_of(long pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    long ppid = -1;
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if (!(f = fopen(path, "r"))) {
        return -1;
    }
    if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
        sscanf(p + 2, "%*c %ld", &ppid);
    }
    fclose(f);
    return ppid;
}

int e2e_free_port(void)
{
    struct sockaddr_in a;
    socklen_t n = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &n), 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

char *e2e_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;
    if (!f) {
        return strdup("");
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    n = (long)fread(buf, 1, (size_t)n, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

char *e2e_log_line(const char *path, const char *const *needles)
{
    int tries;
    for (tries = 0; tries < 100; tries++) {
        char *all = e2e_slurp(path), *line = all;
        while (line && *line) {
            char *end = strchr(line, '\n');
            int i, ok = 1;
            if (end) {
                *end = '\0';
            }
            for (i = 0; needles[i] && ok; i++) {
                ok = strstr(line, needles[i]) != NULL;
            }
            if (ok) {
                char *found = strdup(line);
                free(all);
                return found;
            }
            line = end ? end + 1 : NULL;
        }
        free(all);
        e2e_sleep_ms(100);
    }
    return NULL;
}

/* s with every `from` replaced by `to` (malloc'd; s is freed). */
static char *replace_all(char *s, const char *from, const char *to)
{
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    const char *p;
    char *out, *o;
    for (p = s; (p = strstr(p, from)); p += fl) {
        n++;
    }
    out = o = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1);
    for (p = s; *p;) {
        if (strncmp(p, from, fl) == 0) {
            memcpy(o, to, tl);
            o += tl;
            p += fl;
        }
        else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    free(s);
    return out;
}

long e2e_start_instance(const char *name, const char *const *edits, const char *extra,
                        char *url, size_t url_len)
{
    char b_dir[2048], inst[2048], path[2200], port_new[64], cmd[6400];
    const char *url_b = e2e_env("TRAVEL_TEST_URL_B");
    char *text;
    FILE *f;
    long pid = -1;
    int i;
    snprintf(b_dir, sizeof(b_dir), "%s/httpd-b", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(inst, sizeof(inst), "%s/httpd-%s", e2e_env("TRAVEL_TEST_DIR"), name);
    snprintf(path, sizeof(path), "%s/httpd.conf", b_dir);
    snprintf(port_new, sizeof(port_new), "127.0.0.1:%d", e2e_free_port());
    snprintf(url, url_len, "http://%s", port_new);
    text = e2e_slurp(path);
    text = replace_all(text, b_dir, inst);
    text = replace_all(text, strstr(url_b, "127.0.0.1:"), port_new);
    for (i = 0; edits && edits[i] && edits[i + 1]; i += 2) {
        text = replace_all(text, edits[i], edits[i + 1]);
    }
    /* The copy has instance b's layout: runtime and an empty DocumentRoot. */
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/runtime' '%s/htdocs' && { [ \"$(id -u)\" != 0 ] || "
             "chown www-data: '%s/runtime'; }", inst, inst, inst);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof(path), "%s/httpd.conf", inst);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n%s\n", text, extra ? extra : "");
    fclose(f);
    free(text);
    snprintf(cmd, sizeof(cmd), "%s -f '%s' -k start", e2e_apache2(), path);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof(path), "%s/httpd.pid", inst);
    for (i = 0; i < 100; i++) {
        char *s = e2e_slurp(path);
        e2e_resp *r;
        if (*s) {
            pid = atol(s);
        }
        free(s);
        r = e2e_call(url, "GET", "/v1/health", NULL, NULL);
        if (pid > 0 && r->status != 0) {
            e2e_free(r);
            return pid;
        }
        e2e_free(r);
        e2e_sleep_ms(100);
    }
    fail_msg("httpd %s did not start: %s/error.log", name, inst);
    return -1;
}

void e2e_stop_pid(long pid)
{
    int i;
    if (pid <= 0) {
        return;
    }
    kill((pid_t)pid, SIGTERM);
    for (i = 0; i < 200 && kill((pid_t)pid, 0) == 0; i++) {
        e2e_sleep_ms(100);
    }
}
