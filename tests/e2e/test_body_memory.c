/* Memory stays bounded under hostile bodies. Fifty 650 KB bodies of 60,000
 * members each once took the children from 115 MB to 1.45 GB for good:
 * Jansson built every member on the heap and glibc kept what it had held.
 * Here 1,000 such bodies and 1,000 bodies at the shape limits (parsed, then
 * refused for unknown fields) go to instance a over four connections, and
 * no child of it may grow by more than RSS_GROWTH_MB. The bound is on
 * memory, not time: the run takes seconds on an idle machine, and its
 * answers are checked (every one a 422). */
#include "e2e.h"

#include <curl/curl.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RSS_GROWTH_MB 64
#define CLIENTS 4
#define BODIES 1000

static char *key;

/* The children of instance a and their resident sizes in kB. */
typedef struct kids {
    long pid[32];
    long rss[32];
    int n;
} kids;

static long rss_kb(long pid)
{
    char path[64], line[256];
    long kb = -1;
    FILE *f;
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    if (!(f = fopen(path, "r"))) {
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return kb;
}

static void children(kids *k)
{
    long parent = e2e_instance_pid("a");
    DIR *d = opendir("/proc");
    struct dirent *e;
    assert_true(parent > 0);
    assert_non_null(d);
    k->n = 0;
    while ((e = readdir(d)) && k->n < 32) {
        long pid = atol(e->d_name);
        if (pid > 0 && e2e_parent_of(pid) == parent) {
            k->pid[k->n] = pid;
            k->rss[k->n] = rss_kb(pid);
            k->n++;
        }
    }
    closedir(d);
}

typedef struct job {
    const char *body;
    int sent;
    int refused; /* answers that were the expected 422 */
} job;

static size_t sink(char *p, size_t s, size_t n, void *u)
{
    (void)p;
    (void)u;
    return s * n;
}

/* One client: BODIES / CLIENTS posts over one keep-alive connection. Not
 * through e2e_call: these exchanges are not worth recording. */
static void *client(void *u)
{
    job *j = u;
    char kh[512], url[512];
    struct curl_slist *h = NULL;
    CURL *c = curl_easy_init();
    int i;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(url, sizeof(url), "%s/v1/flight/offers", e2e_url());
    h = curl_slist_append(h, kh);
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, j->body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(j->body));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    for (i = 0; i < BODIES / CLIENTS; i++) {
        long st = 0;
        j->sent++;
        if (curl_easy_perform(c) == CURLE_OK) {
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &st);
            j->refused += st == 422;
        }
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

static void send_all(const char *body)
{
    pthread_t t[CLIENTS];
    job j[CLIENTS];
    int i, refused = 0;
    for (i = 0; i < CLIENTS; i++) {
        memset(&j[i], 0, sizeof(j[i]));
        j[i].body = body;
        assert_int_equal(pthread_create(&t[i], NULL, client, &j[i]), 0);
    }
    for (i = 0; i < CLIENTS; i++) {
        pthread_join(t[i], NULL);
        refused += j[i].refused;
    }
    assert_int_equal(refused, BODIES);
}

/* {"f0":0,...}: 60,000 members, about 650 KB. */
static char *wide_body(void)
{
    char *s = malloc(60000 * 16 + 3), *p = s;
    int i;
    *p++ = '{';
    for (i = 0; i < 60000; i++) {
        p += sprintf(p, "%s\"f%d\":0", i ? "," : "", i);
    }
    strcpy(p, "}");
    return s;
}

/* 256 members of 37 numbers: 9,984 values, within every shape limit, so it
 * is parsed in full before its unknown fields are refused. */
static char *limit_body(void)
{
    char *s = malloc(256 * 37 * 14 + 256 * 16 + 3), *p = s;
    int i, k;
    *p++ = '{';
    for (i = 0; i < 256; i++) {
        p += sprintf(p, "%s\"f%d\":[", i ? "," : "", i);
        for (k = 0; k < 37; k++) {
            p += sprintf(p, "%s123456789012", k ? "," : "");
        }
        *p++ = ']';
    }
    strcpy(p, "}");
    return s;
}

static void hostile_bodies_keep_memory_bounded(void **state)
{
    kids before, after;
    char *wide = wide_body(), *full = limit_body();
    int i, k;
    (void)state;
    key = e2e_new_org_key("memory", NULL);
    children(&before);
    assert_true(before.n > 0);
    send_all(wide);
    send_all(full);
    children(&after);
    for (i = 0; i < after.n; i++) {
        long base = -1;
        for (k = 0; k < before.n; k++) {
            if (before.pid[k] == after.pid[i]) {
                base = before.rss[k];
            }
        }
        if (base < 0) {
            continue; /* a child started meanwhile: nothing to compare */
        }
        print_message("child %ld: %ld kB -> %ld kB\n", after.pid[i], base, after.rss[i]);
        if (after.rss[i] - base > RSS_GROWTH_MB * 1024L) {
            fail_msg("child %ld grew from %ld kB to %ld kB (bound: +%d MB)", after.pid[i],
                     base, after.rss[i], RSS_GROWTH_MB);
        }
    }
    free(wide);
    free(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hostile_bodies_keep_memory_bounded),
    };
    return E2E_RUN("body memory", tests);
}
