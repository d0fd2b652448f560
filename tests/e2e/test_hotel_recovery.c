/* Hotel book when requests race or die: eight concurrent books of one
 * booking buy it once and charge it once; a kill -9 of every httpd child
 * while the book request waits for the supplier still ends CONFIRMED,
 * bought once and charged once (the hotel.booking.complete job takes the
 * step over and reads the booking at the supplier, never sending it
 * again). */
#include "hotel_e2e.h"

#include <curl/curl.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-recovery", NULL);
    return 0;
}

static json_t *wait_status(const char *id, const char *status, long timeout_ms)
{
    long until = e2e_now_ms() + timeout_ms;
    char path[256];
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", id);
    for (;;) {
        e2e_resp *r = e2e_get(key, path);
        fe_expect(r, 200, "reading a hotel booking");
        if (strcmp(fe_s(fe_data(r), "status"), status) == 0) {
            json_t *b = json_incref(fe_data(r));
            e2e_free(r);
            return b;
        }
        if (e2e_now_ms() > until) {
            fail_msg("booking %s did not become %s: %s", id, status, r->body);
        }
        e2e_free(r);
        e2e_sleep_ms(200);
    }
}

/* One payment, one authorization made under the booking's keys, captured
 * for the total; one booking at the supplier; one event. */
static void assert_charged_once(const json_t *b)
{
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    assert_int_equal(json_array_size(json_object_get(b, "payments")), 1);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_payments WHERE booking_id = $1",
                                  1, p), 1);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.idempotency WHERE key LIKE "
                                  "$1 || ':authorize:%'", 1, p), 1);
    assert_int_equal(e2e_sql_long("SELECT coalesce(sum(a.amount_captured), 0) FROM "
                                  "sandbox.pay_authorizations a JOIN hotel_payments hp ON "
                                  "hp.provider_ref = a.id WHERE hp.booking_id = $1", 1, p),
                     he_minor(json_object_get(b, "total")));
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.hotel_bookings "
                                  "WHERE client_reference LIKE $1 || '/%'", 1, p), 1);
    assert_int_equal(fe_events(id, "hotel.booking.confirmed"), 1);
}

typedef struct racer {
    const char *id;
    long status;
} racer;

static void *book_race(void *arg)
{
    racer *x = arg;
    char path[256];
    e2e_resp *r;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", x->id);
    r = e2e_post(key, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    x->status = r->status;
    e2e_free(r);
    return NULL;
}

static void concurrent_books_charge_once(void **state)
{
    enum { N = 8 };
    json_t *b = he_ready(key, "SUPPLIER_A", "trip-race", "Lovelace"), *done;
    pthread_t t[N];
    racer x[N];
    int i, ok = 0;
    (void)state;
    for (i = 0; i < N; i++) {
        x[i].id = fe_s(b, "id");
        x[i].status = 0;
        assert_int_equal(pthread_create(&t[i], NULL, book_race, &x[i]), 0);
    }
    for (i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
    }
    for (i = 0; i < N; i++) {
        if (x[i].status != 200 && x[i].status != 202) {
            fail_msg("racer %d answered %ld", i, x[i].status);
        }
        ok += x[i].status == 200;
    }
    assert_true(ok >= 1);
    done = wait_status(fe_s(b, "id"), "CONFIRMED", 30000);
    assert_charged_once(done);
    json_decref(done);
    json_decref(b);
}

/* kill -9 every child of an httpd parent; returns how many. */
static int kill_children(long parent)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char path[300], buf[512], *p;
        long ppid = -1, pid = atol(e->d_name);
        FILE *f;
        if (pid <= 1) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        if (!(f = fopen(path, "r"))) {
            continue;
        }
        if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
            sscanf(p + 2, "%*c %ld", &ppid);
        }
        fclose(f);
        if (ppid == parent && kill((pid_t)pid, SIGKILL) == 0) {
            n++;
        }
    }
    if (d) {
        closedir(d);
    }
    return n;
}

typedef struct inflight {
    char url[512], key_header[300], rid_header[300];
    long code;
} inflight;

static size_t discard(char *ptr, size_t size, size_t n, void *u)
{
    (void)ptr;
    (void)u;
    return size * n;
}

/* A book whose connection dies with its httpd child: its answer is not
 * looked at, only what the service does after. */
static void *book_in_flight(void *u)
{
    inflight *f = u;
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, f->key_header);
    h = curl_slist_append(h, f->rid_header);
    h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, f->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    f->code = 0;
    if (curl_easy_perform(c) == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &f->code);
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

static void kill_during_the_book_request(void **state)
{
    json_t *b = he_ready(key, "SUPPLIER_A", "trip-kill", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("hk", "book");
    long a = e2e_instance_pid("a"), bb = e2e_instance_pid("b");
    inflight f;
    pthread_t t;
    (void)state;
    /* The supplier takes 3 s to answer the book: the request is then in
     * the middle of it, its payment authorized, when every httpd child
     * (the one serving it included) is killed. */
    fe_fault("hotel_a", rid, "\"method\":\"POST\",\"path\":\"/book/v3.0/rates/book\","
             "\"action\":\"respond\",\"delay_ms\":3000");
    snprintf(f.url, sizeof(f.url), "%s/v1/hotel/bookings/%s/book", e2e_url(), id);
    snprintf(f.key_header, sizeof(f.key_header), "x-api-key: %s", key);
    snprintf(f.rid_header, sizeof(f.rid_header), "x-request-id: %s", rid);
    assert_int_equal(pthread_create(&t, NULL, book_in_flight, &f), 0);
    e2e_sleep_ms(1500);
    e2e_expect_log("AH00052: .*exit signal Killed");
    assert_true(kill_children(a) + kill_children(bb) >= 2);
    pthread_join(t, NULL);
    /* Another process takes the step over and finishes it, once. */
    done = wait_status(id, "CONFIRMED", 60000);
    assert_non_null(fe_s(done, "supplier_reference"));
    assert_charged_once(done);
    fe_fault_clear(rid);
    free(rid);
    json_decref(done);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_books_charge_once),
        cmocka_unit_test(kill_during_the_book_request),
    };
    if (setup(NULL) != 0) {
        return 1;
    }
    return E2E_RUN("hotel_recovery", tests);
}
