/* For the adapter contract tests: a trv_env with the one libcurl client and
 * a configuration whose upstreams point at the running sandbox
 * (TRAVEL_TEST_SANDBOX_URL) with the stack's keys, as httpd.conf would. */
#ifndef TRV_E2E_ADAPTER_ENV_H
#define TRV_E2E_ADAPTER_ENV_H

#include "e2e.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/env.h"
#include "core/json.h"

#include <apr_general.h>
#include <apr_strings.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static apr_pool_t *ad_root;
static apr_pool_t *ad_pool;     /* per test */
static trv_env ad_env;
static trv_config ad_cfg;
static volatile apr_uint32_t ad_stopping;
static trv_upstream ad_up_a, ad_up_b, ad_up_pay;

static void ad_emit(void *baton, int level, const char *rid, const char *msg)
{
    (void)baton;
    fprintf(stderr, "  log %d [%s] %s\n", level, rid, msg);
}

static void ad_upstream(trv_upstream *u, const char *name, const char *path, const char *key)
{
    u->name = name;
    u->base_url = apr_pstrcat(ad_root, e2e_sandbox_url(), path, NULL);
    u->api_key = key;
    u->connect_timeout = apr_time_from_sec(5);
    u->timeout = apr_time_from_sec(20);
}

static int ad_setup(void **state)
{
    (void)state;
    if (!ad_root) {
        apr_initialize();
        apr_pool_create(&ad_root, NULL);
        trv_http_global_init();
        ad_cfg.max_response = TRV_DEFAULT_MAX_RESPONSE;
        ad_upstream(&ad_up_a, "SUPPLIER_A", "/suppliers/a", "sandbox-key-a");
        ad_upstream(&ad_up_b, "SUPPLIER_B", "/suppliers/b/v3.0", "sandbox-key-b");
        ad_upstream(&ad_up_pay, "PAYMENT", "/payments", "sandbox-key-pay");
        ad_cfg.payment = &ad_up_pay;
        ad_env.log.emit = ad_emit;
        ad_env.cfg = &ad_cfg;
        ad_env.stopping = &ad_stopping;
        ad_env.http = trv_http_curl_create(ad_root, &ad_stopping, 0);
    }
    apr_pool_create(&ad_pool, ad_root);
    return 0;
}

static int ad_teardown(void **state)
{
    (void)state;
    apr_pool_destroy(ad_pool);
    return 0;
}

/* YYYY-MM-DD, days from today (UTC). */
static __attribute__((unused)) const char *ad_date(int days)
{
    time_t t = time(NULL) + (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    return apr_psprintf(ad_pool, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

/* Seconds from now until an RFC 3339 instant. */
static __attribute__((unused)) long ad_seconds_until(const char *instant)
{
    apr_time_t t;
    assert_non_null(instant);
    assert_int_equal(trv_time_parse(instant, &t), APR_SUCCESS);
    return (long)apr_time_sec(t - apr_time_now());
}

/* A Money object's amount in minor units (2 decimals unless JPY). */
static __attribute__((unused)) long long ad_minor(const json_t *money)
{
    const json_t *a = json_object_get(money, "amount");
    const char *c = json_string_value(json_object_get(money, "currency"));
    double scale = c && strcmp(c, "JPY") == 0 ? 1.0 : 100.0;
    assert_non_null(a);
    assert_true(json_is_number(a));
    /* The test only reads amounts the service printed exactly. */
    return (long long)(json_number_value(a) * scale + (json_number_value(a) >= 0 ? 0.5 : -0.5));
}

static const char *ad_str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

#endif
