/* Watches under concurrent requests, 15 at a time and over several rounds,
 * never answer 5xx and leave exactly the rows they should:
 *  - trip watches for a destination new to the organization, created at
 *    once, save that place once (the save's INSERT ... ON CONFLICT DO
 *    NOTHING, then SELECT, could not see the row another request had just
 *    committed: 500);
 *  - creating a watch honours x-idempotency-key: fifteen identical POSTs
 *    with one key make one watch (and one mandate), a repeat replays it;
 *  - confirming a mandate while its watch is canceled: one lock order
 *    (watch, then mandate) and a transaction PostgreSQL aborts for a
 *    deadlock is run again; both end canceled, confirm answers 200 or 409.
 *    Besides the free-running race, one deadlock is made on purpose: a
 *    connection of the test holds the watch's row while the cancel and
 *    then the confirm queue behind it. */
#include "watch_e2e.h"

#include <pthread.h>

#define RACERS 15
#define ROUNDS 4

static char *key, *org;
static we_hotel hotel;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("watch-races", &org);
    we_pick_hotel(key, 40, 42, 0, &hotel);
    return 0;
}

typedef struct racer {
    const char *key, *method, *path, *body, *idem;
    long status;
    char code[64];
    char id[128];
} racer;

static void *run(void *arg)
{
    racer *x = arg;
    char kh[512], ih[512];
    const char *hdrs[4] = {kh, "Content-Type: application/json", NULL, NULL};
    e2e_resp *r;
    snprintf(kh, sizeof(kh), "x-api-key: %s", x->key);
    if (x->idem) {
        snprintf(ih, sizeof(ih), "x-idempotency-key: %s", x->idem);
        hdrs[2] = ih;
    }
    r = e2e_call(e2e_url(), x->method, x->path, hdrs, x->body);
    x->status = r->status;
    snprintf(x->code, sizeof(x->code), "%s", e2e_error_code(r));
    if (fe_data(r) && fe_s(fe_data(r), "id")) {
        snprintf(x->id, sizeof(x->id), "%s", fe_s(fe_data(r), "id"));
    }
    e2e_free(r);
    return NULL;
}

/* Runs the n racers at once; fails on any 5xx or transport failure. */
static void race(racer *x, int n)
{
    pthread_t t[2 * RACERS];
    int i;
    assert_true(n <= 2 * RACERS);
    for (i = 0; i < n; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, run, &x[i]), 0);
    }
    for (i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
    }
    for (i = 0; i < n; i++) {
        if (x[i].status < 200 || x[i].status >= 500) {
            fail_msg("%s %s answered %ld %s", x[i].method, x[i].path, x[i].status,
                     x[i].code);
        }
    }
}

static const char *mandate_body(void)
{
    return ",\"auto_purchase\":{\"max_total\":1000.5,\"payment_instrument_id\":"
           "\"pi_test_visa\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
           "\"email\":\"ada@example.com\",\"phone\":\"+441234567890\"},\"rooms\":[{\"guests\":"
           "[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"type\":\"ADULT\","
           "\"is_lead\":true}]}]}";
}

static long count_of(const char *sql, const char *a, const char *b)
{
    const char *p[2] = {a, b};
    return e2e_sql_long(sql, b ? 2 : 1, p);
}

static void trip_watches_for_a_new_destination_at_once(void **state)
{
    static const char *const cities[ROUNDS] = {"Paris", "Rome", "Madrid", "Berlin"};
    char body[1024], *stay = we_stay(40, 42);
    int round, i;
    (void)state;
    for (round = 0; round < ROUNDS; round++) {
        /* An organization of its own each round: the city is new to it. */
        char *org_id, *k = e2e_new_org_key("watch-races-trip", &org_id);
        racer x[RACERS];
        snprintf(body, sizeof(body), "{\"destination\":\"%s\",%s,\"trigger\":{\"type\":"
                 "\"below_total\",\"amount\":1}}", cities[round], stay);
        for (i = 0; i < RACERS; i++) {
            memset(&x[i], 0, sizeof(x[i]));
            x[i].key = k;
            x[i].method = "POST";
            x[i].path = WE_TRIPS;
            x[i].body = body;
        }
        race(x, RACERS);
        for (i = 0; i < RACERS; i++) {
            assert_int_equal(x[i].status, 201);
        }
        assert_int_equal(count_of("SELECT count(*) FROM hotel_places WHERE org_id = $1",
                                  org_id, NULL), 1);
        assert_int_equal(count_of("SELECT count(*) FROM watches WHERE org_id = $1 "
                                  "AND kind = 'trip' AND status = 'active'", org_id, NULL),
                         RACERS);
        assert_int_equal(count_of("SELECT count(DISTINCT place_id) FROM watches "
                                  "WHERE org_id = $1", org_id, NULL), 1);
        /* Leave nothing for the schedule to check. */
        e2e_sql_exec("UPDATE watches SET status = 'canceled' WHERE org_id = $1", 1,
                     (const char *[]){org_id});
        free(k);
        free(org_id);
    }
    free(stay);
}

/* Fifteen identical POSTs with one key: one watch (and, with
 * auto_purchase, one mandate); the others answer the same watch (a
 * replay) or 409 idempotency_key_in_use while the first still runs. */
static void one_key_makes_one_watch(void **state)
{
    char body[4096], *stay = we_stay(40, 42);
    int round, i;
    (void)state;
    for (round = 0; round < ROUNDS; round++) {
        const int trip = round % 2;
        char *idem = fe_new_key("watch-idem"), *first = NULL;
        racer x[RACERS];
        long before = count_of("SELECT count(*) FROM watches WHERE org_id = $1", org, NULL);
        long mandates = count_of("SELECT count(*) FROM watch_mandates WHERE org_id = $1", org,
                                 NULL);
        int created = 0;
        e2e_resp *r;
        if (trip) {
            snprintf(body, sizeof(body), "{\"destination\":\"London\",%s,\"trigger\":{"
                     "\"type\":\"below_total\",\"amount\":1}}", stay);
        }
        else {
            snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
                     "\"below_total\",\"amount\":%ld.%02ld}%s}", hotel.hotel_id, stay,
                     hotel.cents / 200, (hotel.cents / 2) % 100, mandate_body());
        }
        for (i = 0; i < RACERS; i++) {
            memset(&x[i], 0, sizeof(x[i]));
            x[i].key = key;
            x[i].method = "POST";
            x[i].path = trip ? WE_TRIPS : WE_WATCHES;
            x[i].body = body;
            x[i].idem = idem;
        }
        race(x, RACERS);
        for (i = 0; i < RACERS; i++) {
            if (x[i].status == 201) {
                created++;
                if (!first) {
                    first = x[i].id;
                }
                assert_string_equal(x[i].id, first);
            }
            else if (x[i].status != 409 || strcmp(x[i].code, "idempotency_key_in_use") != 0) {
                fail_msg("a racer answered %ld %s", x[i].status, x[i].code);
            }
        }
        assert_true(created >= 1);
        assert_int_equal(count_of("SELECT count(*) FROM watches WHERE org_id = $1", org,
                                  NULL), before + 1);
        assert_int_equal(count_of("SELECT count(*) FROM watch_mandates WHERE org_id = $1",
                                  org, NULL), mandates + (trip ? 0 : 1));
        /* Once done, a repeat replays the watch it made. */
        r = fe_post_idem(key, trip ? WE_TRIPS : WE_WATCHES, body, idem);
        assert_int_equal(r->status, 201);
        assert_string_equal(fe_s(fe_data(r), "id"), first);
        {
            char *h = e2e_header(r, "idempotent-replayed");
            assert_non_null(h);
            assert_string_equal(h, "true");
            free(h);
        }
        e2e_free(r);
        assert_int_equal(count_of("SELECT count(*) FROM watches WHERE org_id = $1", org,
                                  NULL), before + 1);
        free(idem);
    }
    free(stay);
}

/* RACERS price watches with a mandate each (ids into ids[i]). */
static void watches_with_mandates(char ids[RACERS][128], char mdts[RACERS][128])
{
    int i;
    for (i = 0; i < RACERS; i++) {
        json_t *w = we_price_watch(key, &hotel, 40, 42, hotel.cents / 2, mandate_body());
        snprintf(ids[i], 128, "%s", fe_s(w, "id"));
        snprintf(mdts[i], 128, "%s", fe_s(json_object_get(w, "mandate"), "id"));
        json_decref(w);
    }
}

static void both_end_canceled(const char *watch, const char *mandate)
{
    assert_int_equal(count_of("SELECT count(*) FROM watches WHERE id = $1 "
                              "AND status = 'canceled'", watch, NULL), 1);
    assert_int_equal(count_of("SELECT count(*) FROM watch_mandates WHERE id = $1 "
                              "AND status = 'canceled'", mandate, NULL), 1);
}

static void confirm_and_cancel_at_once(void **state)
{
    static char ids[RACERS][128], mdts[RACERS][128], paths[2 * RACERS][256];
    int round, i;
    (void)state;
    for (round = 0; round < ROUNDS; round++) {
        racer x[2 * RACERS];
        watches_with_mandates(ids, mdts);
        for (i = 0; i < RACERS; i++) {
            racer *c = &x[2 * i], *d = &x[2 * i + 1];
            memset(c, 0, sizeof(*c));
            memset(d, 0, sizeof(*d));
            snprintf(paths[2 * i], sizeof(paths[0]), "/v1/mandate/%.127s/confirm", mdts[i]);
            snprintf(paths[2 * i + 1], sizeof(paths[0]), WE_WATCHES "/%.127s", ids[i]);
            c->key = d->key = key;
            c->method = "POST";
            c->path = paths[2 * i];
            c->body = "{}";
            d->method = "DELETE";
            d->path = paths[2 * i + 1];
        }
        race(x, 2 * RACERS);
        for (i = 0; i < RACERS; i++) {
            if (x[2 * i].status != 200 && x[2 * i].status != 409) {
                fail_msg("confirm answered %ld %s", x[2 * i].status, x[2 * i].code);
            }
            assert_int_equal(x[2 * i + 1].status, 200);
            both_end_canceled(ids[i], mdts[i]);
        }
    }
}

/* Client backends waiting for a lock on a statement about watches. */
static long lock_waiters(void)
{
    return e2e_sql_long("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                        "current_database() AND pid <> pg_backend_pid() AND "
                        "wait_event_type = 'Lock' AND query ILIKE '%watch%'", 0, NULL);
}

static void wait_for_waiters(long n)
{
    long t0 = e2e_now_ms();
    while (lock_waiters() < n) {
        if (e2e_now_ms() - t0 > 15000) {
            fail_msg("%ld request(s) never queued for the watch's lock", n);
        }
        e2e_sleep_ms(20);
    }
}

static void a_made_deadlock_is_not_a_500(void **state)
{
    char ids[RACERS][128], mdts[RACERS][128], cpath[256], dpath[256];
    int round;
    (void)state;
    watches_with_mandates(ids, mdts);
    for (round = 0; round < 3; round++) {
        PGconn *hold = PQconnectdb(e2e_conninfo());
        const char *p[1] = {ids[round]};
        PGresult *res;
        racer c, d;
        pthread_t tc, td;
        assert_int_equal(PQstatus(hold), CONNECTION_OK);
        res = PQexec(hold, "BEGIN");
        PQclear(res);
        res = PQexecParams(hold, "SELECT 1 FROM watches WHERE id = $1 FOR UPDATE", 1, NULL, p,
                           NULL, NULL, 0);
        assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
        assert_int_equal(PQntuples(res), 1);
        PQclear(res);
        memset(&c, 0, sizeof(c));
        memset(&d, 0, sizeof(d));
        snprintf(cpath, sizeof(cpath), "/v1/mandate/%.127s/confirm", mdts[round]);
        snprintf(dpath, sizeof(dpath), WE_WATCHES "/%.127s", ids[round]);
        c.key = d.key = key;
        c.method = "POST";
        c.path = cpath;
        c.body = "{}";
        d.method = "DELETE";
        d.path = dpath;
        /* The cancel queues for the watch first, then the confirm: a
         * confirm that took the mandate before the watch now holds what
         * the cancel will want next. */
        assert_int_equal(pthread_create(&td, NULL, run, &d), 0);
        wait_for_waiters(1);
        assert_int_equal(pthread_create(&tc, NULL, run, &c), 0);
        wait_for_waiters(2);
        res = PQexec(hold, "COMMIT");
        PQclear(res);
        PQfinish(hold);
        pthread_join(td, NULL);
        pthread_join(tc, NULL);
        if (d.status != 200) {
            fail_msg("cancel answered %ld %s", d.status, d.code);
        }
        if (c.status != 409 && c.status != 200) {
            fail_msg("confirm answered %ld %s", c.status, c.code);
        }
        both_end_canceled(ids[round], mdts[round]);
    }
    /* The rest of the watches: canceled so the schedule leaves them. */
    for (round = 3; round < RACERS; round++) {
        e2e_resp *r;
        snprintf(dpath, sizeof(dpath), WE_WATCHES "/%.127s", ids[round]);
        r = we_call(key, "DELETE", dpath, NULL);
        fe_expect(r, 200, "canceling a watch");
        e2e_free(r);
    }
}

/* The watches these tests leave active would be checked every second for
 * the rest of the run. */
static int cancel_what_is_left(void **state)
{
    (void)state;
    e2e_sql_exec("UPDATE watches SET status = 'canceled' WHERE org_id = $1 "
                 "AND status IN ('active', 'armed')", 1, (const char *[]){org});
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(trip_watches_for_a_new_destination_at_once, setup),
        cmocka_unit_test(one_key_makes_one_watch),
        cmocka_unit_test(confirm_and_cancel_at_once),
        cmocka_unit_test_teardown(a_made_deadlock_is_not_a_500, cancel_what_is_left),
    };
    return E2E_RUN("watch_races", tests);
}
