/* Virtual hosts that share a database must agree on what its background
 * jobs run with: trv_config_jobs_differ names the first directive where two
 * complete configurations differ, and nothing when they are equal in value
 * (separately parsed copies of the same lines are no difference). */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/config_jobs.h"

static trv_upstream upstream(const char *name, const char *url, const char *key)
{
    trv_upstream u;
    memset(&u, 0, sizeof(u));
    u.name = name;
    u.base_url = url;
    u.api_key = key;
    u.protocol = "travel-air";
    u.connect_timeout = apr_time_from_sec(5);
    u.timeout = apr_time_from_sec(30);
    return u;
}

/* A complete configuration, every value freshly allocated (not shared
 * with another one made by this function). */
static trv_config *config(apr_pool_t *p)
{
    trv_config *c = apr_pcalloc(p, sizeof(*c));
    trv_upstream *pay = apr_pcalloc(p, sizeof(*pay));
    trv_cidr net;
    c->upstreams = apr_array_make(p, 2, sizeof(trv_upstream));
    APR_ARRAY_PUSH(c->upstreams, trv_upstream) =
        upstream(apr_pstrdup(p, "SUPPLIER_A"), apr_pstrdup(p, "https://a.example"),
                 apr_pstrdup(p, "ka"));
    APR_ARRAY_PUSH(c->upstreams, trv_upstream) =
        upstream(apr_pstrdup(p, "SUPPLIER_B"), apr_pstrdup(p, "https://b.example"), NULL);
    c->hotel_upstreams = apr_array_make(p, 1, sizeof(trv_upstream));
    APR_ARRAY_PUSH(c->hotel_upstreams, trv_upstream) =
        upstream(apr_pstrdup(p, "SUPPLIER_A"), apr_pstrdup(p, "https://h.example"), "kh");
    *pay = upstream("PAYMENT", apr_pstrdup(p, "https://pay.example"), "kp");
    c->payment = pay;
    c->worker_threads = 2;
    c->retry_schedule = trv_default_retry_schedule(p);
    c->webhook_allow = apr_array_make(p, 1, sizeof(trv_cidr));
    assert_null(trv_parse_cidr(p, "127.0.0.0/8", &net));
    APR_ARRAY_PUSH(c->webhook_allow, trv_cidr) = net;
    c->job_lease = apr_time_from_sec(60);
    c->job_poll = apr_time_from_msec(500);
    c->max_body = 1024;
    memset(c->secret_key, 7, sizeof(c->secret_key));
    c->have_secret_key = 1;
    return c;
}

static void equal_values_agree(void **state)
{
    apr_pool_t *p = *state;
    trv_config *a = config(p), *b = config(p);
    assert_null(trv_config_jobs_differ(a, b));
    /* Request-only settings are the host's own business. */
    b->max_body = 99;
    b->secret_key_file = "/elsewhere/same.key";
    assert_null(trv_config_jobs_differ(a, b));
}

static void each_difference_is_named(void **state)
{
    apr_pool_t *p = *state;
    trv_config *a = config(p), *b;
    trv_cidr net;

    b = config(p);
    APR_ARRAY_IDX(b->upstreams, 0, trv_upstream).api_key = "other";
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelSupplier");
    /* The same name bound to another protocol is another supplier. */
    b = config(p);
    APR_ARRAY_IDX(b->upstreams, 0, trv_upstream).protocol = "duffel";
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelSupplier");
    b = config(p);
    APR_ARRAY_IDX(b->hotel_upstreams, 0, trv_upstream).second_base_url = "https://book.example";
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelHotelSupplier");
    b = config(p);
    /* The order picks the default supplier: a swap is a difference. */
    {
        trv_upstream t = APR_ARRAY_IDX(b->upstreams, 0, trv_upstream);
        APR_ARRAY_IDX(b->upstreams, 0, trv_upstream) = APR_ARRAY_IDX(b->upstreams, 1,
                                                                     trv_upstream);
        APR_ARRAY_IDX(b->upstreams, 1, trv_upstream) = t;
    }
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelSupplier");
    b = config(p);
    apr_array_pop(b->hotel_upstreams);
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelHotelSupplier");
    b = config(p);
    b->payment = NULL;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelPaymentProvider");
    b = config(p);
    b->secret_key[31] ^= 1;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelSecretKeyFile");
    b = config(p);
    b->have_secret_key = 0;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelSecretKeyFile");
    b = config(p);
    APR_ARRAY_IDX(b->retry_schedule, 5, apr_interval_time_t) += 1;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelWebhookRetrySchedule");
    b = config(p);
    b->webhook_max_per_second = 50;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelWebhookMaxPerSecond");
    b = config(p);
    assert_null(trv_parse_cidr(p, "10.0.0.0/8", &net));
    APR_ARRAY_PUSH(b->webhook_allow, trv_cidr) = net;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelWebhookAllowNetwork");
    b = config(p);
    b->worker_threads = 0;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelWorkerThreads");
    b = config(p);
    b->job_lease += 1;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelJobLease");
    b = config(p);
    b->job_poll += 1;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelJobPollInterval");
    b = config(p);
    b->watch_interval += 1;
    assert_string_equal(trv_config_jobs_differ(a, b), "TravelWatchInterval");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(equal_values_agree, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(each_difference_is_named, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
