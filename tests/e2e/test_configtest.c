/* A wrong mod_travel directive fails `apachectl configtest` with a message
 * that names the directive and what is wrong. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs apache2 -t on the test instance's configuration plus `extra`;
 * returns the exit status and fills out with what it printed. */
static int configtest(const char *extra, char *out, size_t n)
{
    char base[4096], conf[4096], cmd[8300];
    FILE *in, *f, *p;
    size_t len = 0, r;
    char buf[4096];
    snprintf(base, sizeof(base), "%s/httpd-a/httpd.conf", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(conf, sizeof(conf), "%s/configtest.conf", e2e_env("TRAVEL_TEST_DIR"));
    in = fopen(base, "r");
    f = fopen(conf, "w");
    assert_non_null(in);
    assert_non_null(f);
    while ((r = fread(buf, 1, sizeof(buf), in)) > 0) {
        fwrite(buf, 1, r, f);
    }
    fprintf(f, "\n%s\n", extra);
    fclose(in);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s -t -f %s 2>&1", e2e_apache2(), conf);
    p = popen(cmd, "r");
    out[0] = '\0';
    while (p && len < n - 1 && fgets(out + len, (int)(n - len), p)) {
        len = strlen(out);
    }
    return pclose(p);
}

static void expect_refused(const char *directive, const char *message)
{
    char out[8192];
    int rc = configtest(directive, out, sizeof(out));
    if (rc == 0 || !strstr(out, message)) {
        fail_msg("%s: expected a failure mentioning '%s', got (%d): %s", directive, message,
                 rc, out);
    }
}

static void the_test_configuration_is_valid(void **state)
{
    char out[8192];
    (void)state;
    assert_int_equal(configtest("", out, sizeof(out)), 0);
    assert_non_null(strstr(out, "Syntax OK"));
    /* A supplier call may be told never to wait for a supplier's rate limit. */
    assert_int_equal(configtest("TravelSupplierLimitWait 0", out, sizeof(out)), 0);
    /* The content cache may be turned off by name, and a duration may differ per host. */
    assert_int_equal(configtest("TravelHotelContentCache off", out, sizeof(out)), 0);
    assert_int_equal(configtest("<VirtualHost 127.0.0.1:9>\nTravelSearchDeadline 2s\n"
                                "</VirtualHost>", out, sizeof(out)), 0);
    /* A virtual host may have its own body limit. */
    assert_int_equal(configtest("<VirtualHost 127.0.0.1:9>\nTravelMaxBodySize 64K\n"
                                "</VirtualHost>", out, sizeof(out)), 0);
}

static void wrong_directives_are_refused(void **state)
{
    (void)state;
    expect_refused("TravelWorkerThreads 500", "TravelWorkerThreads must be a number from 0 to 64");
    expect_refused("TravelWorkerThreads two", "TravelWorkerThreads must be a number");
    expect_refused("TravelSupplier supplier_x duffel http://127.0.0.1:1 token=t",
                   "must be upper-case");
    expect_refused("TravelSupplier SUPPLIER_A duffel http://127.0.0.1:1 token=t",
                   "SUPPLIER_A is configured twice");
    expect_refused("TravelSupplier SUPPLIER_X travel-air ftp://host api_key=k",
                   "must start with http:// or https://");
    expect_refused("TravelSupplier SUPPLIER_X travel-air https://host/ api_key=k timeout=3s",
                   "must not end with /");
    expect_refused("TravelSupplier SUPPLIER_X travel-air https://host api_key=k colour=blue",
                   "unknown option 'colour'");
    expect_refused("TravelSupplier SUPPLIER_X travel-air https://host api_key=k timeout=soon",
                   "timeout must be a number");
    expect_refused("TravelPaymentProvider payments.example", "must start with http://");
    expect_refused("TravelWebhookRetrySchedule 1m 5x", "'5x' has an unknown unit");
    expect_refused("TravelWebhookRetrySchedule", "takes 1 to 20 delays");
    expect_refused("TravelMaxBodySize lots", "TravelMaxBodySize must be a number of bytes");
    expect_refused("TravelWebhookAllowNetwork 300.1.1.1/8", "is not an IPv4 or IPv6 address");
    expect_refused("TravelWebhookAllowNetwork 10.0.0.0/40", "invalid prefix length");
    expect_refused("TravelJobLease 0", "TravelJobLease must be positive");
    expect_refused("TravelSupplierLimitWait 2m",
                   "TravelSupplierLimitWait: from 0 (never wait) to 60s");
    expect_refused("TravelSupplierLimitWait soon", "TravelSupplierLimitWait");
    expect_refused("TravelSearchDeadline 50ms", "TravelSearchDeadline: from 100ms to 120s");
    expect_refused("TravelSearchDeadline 0", "TravelSearchDeadline must be positive");
    expect_refused("TravelNotifyCheck 3q", "TravelNotifyCheck");
    expect_refused("TravelSecretKeyFile /nonexistent/key", "cannot be read");
    expect_refused("TravelNoSuchDirective on", "Invalid command 'TravelNoSuchDirective'");
    /* The upstream client is one per child: not per virtual host. */
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelUpstreamMaxResponse 1M\n</VirtualHost>",
                   "TravelUpstreamMaxResponse cannot occur within <VirtualHost> section");
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelRateLimitCache shmcb\n</VirtualHost>",
                   "TravelRateLimitCache cannot occur within <VirtualHost> section");
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelWatchInterval 5m\n</VirtualHost>",
                   "TravelWatchInterval cannot occur within <VirtualHost> section");
}

/* A supplier line binds a wire name to a protocol: an unknown protocol, a
 * protocol of the other domain, a missing credential, another protocol's
 * credential and the old form without a protocol are refused, each naming
 * the line (httpd prints its number) and the reason; real vendors' lines and
 * wire names of the site's own choosing pass. */
static void supplier_lines_name_a_protocol(void **state)
{
    char out[8192], keyfile[2048], extra[8192];
    FILE *f;
    (void)state;
    expect_refused("TravelSupplier DUFFEL dufel https://api.duffel.com token=t",
                   "TravelSupplier DUFFEL: unknown protocol 'dufel' (flight protocols: "
                   "duffel, liteapi-flights, travel-air");
    expect_refused("TravelHotelSupplier HBX hotelbed https://api.test.hotelbeds.com "
                   "api_key=k", "unknown protocol 'hotelbed' (hotel protocols: liteapi, "
                   "hotelbeds, travel-hotel-b, expedia-rapid, travel-hotel-c");
    /* The old form: the URL where the protocol goes. */
    expect_refused("TravelSupplier SUPPLIER_X https://host api_key=k",
                   "the line is TravelSupplier NAME PROTOCOL BASE_URL");
    expect_refused("TravelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 api_key=k",
                   "protocol liteapi is a hotel protocol: it belongs on a TravelHotelSupplier "
                   "line");
    expect_refused("TravelHotelSupplier DUFFEL duffel https://api.duffel.com token=t",
                   "protocol duffel is a flight protocol: it belongs on a TravelSupplier line");
    expect_refused("TravelSupplier DUFFEL duffel https://api.duffel.com timeout=5s",
                   "TravelSupplier DUFFEL: protocol duffel needs the credential token "
                   "(token=... or token_file=...)");
    expect_refused("TravelSupplier DUFFEL duffel https://api.duffel.com api_key=k",
                   "unknown option 'api_key' (known: token, token_file, connect_timeout");
    expect_refused("TravelHotelSupplier HOTELBEDS hotelbeds https://h.example api_key=k",
                   "protocol hotelbeds needs the credential api_secret");
    /* The former name of the protocol is an alias with the same terms. */
    expect_refused("TravelHotelSupplier PARTNER_B travel-hotel-b https://h.example api_key=k",
                   "protocol travel-hotel-b needs the credential api_secret");
    expect_refused("TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k", "protocol liteapi needs book_url=...");
    expect_refused("TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k book_url=book.liteapi.travel", "book_url must start with http");
    expect_refused("TravelSupplier DUFFEL duffel https://api.duffel.com "
                   "token_file=/nonexistent/token", "cannot read token_file /nonexistent/token");
    /* Duffel Stays: a hotel protocol with Duffel's token. */
    expect_refused("TravelSupplier STAYS duffel-stays https://api.duffel.com token=t",
                   "protocol duffel-stays is a hotel protocol: it belongs on a "
                   "TravelHotelSupplier line");
    expect_refused("TravelHotelSupplier DUFFEL_STAYS duffel-stays https://api.duffel.com "
                   "timeout=5s", "TravelHotelSupplier DUFFEL_STAYS: protocol duffel-stays needs "
                   "the credential token (token=... or token_file=...)");
    expect_refused("TravelHotelSupplier DUFFEL_STAYS duffel-stays https://api.duffel.com "
                   "api_key=k", "unknown option 'api_key' (known: token, token_file");
    /* httpd names the line: the extra lines follow the test configuration. */
    expect_refused("TravelSupplier DUFFEL dufel https://api.duffel.com token=t",
                   "Syntax error on line");
    /* Real vendors under names of the site's choosing, a key in a file. */
    snprintf(keyfile, sizeof(keyfile), "%s/duffel.token", e2e_env("TRAVEL_TEST_DIR"));
    f = fopen(keyfile, "w");
    assert_non_null(f);
    fputs("duffel_test_abc\n", f);
    fclose(f);
    snprintf(extra, sizeof(extra),
             "TravelSupplier DUFFEL duffel https://api.duffel.com token_file=%s\n"
             "TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 api_key=k "
             "book_url=https://book.liteapi.travel/v3.0\n"
             "TravelHotelSupplier DUFFEL_STAYS duffel-stays https://api.duffel.com "
             "token_file=%s\n", keyfile, keyfile);
    if (configtest(extra, out, sizeof(out)) != 0) {
        fail_msg("real vendors' lines were refused: %s", out);
    }
}

/* search_cache= is a hotel supplier's option: a flight line does not take
 * it, it is a duration of at most an hour, and its store is the server's. */
static void search_cache_is_a_hotel_supplier_option(void **state)
{
    char out[8192];
    (void)state;
    expect_refused("TravelSupplier DUFFEL duffel https://api.duffel.com token=t "
                   "search_cache=60s", "unknown option 'search_cache'");
    expect_refused("TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k book_url=https://book.liteapi.travel/v3.0 search_cache=2h",
                   "search_cache must be at most 1h");
    expect_refused("TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k book_url=https://book.liteapi.travel/v3.0 search_cache=soon",
                   "TravelHotelSupplier: search_cache");
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelSearchCacheStore shmcb\n</VirtualHost>",
                   "cannot occur within <VirtualHost> section");
    if (configtest("TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k book_url=https://book.liteapi.travel/v3.0 search_cache=30s\n"
                   "TravelSearchCacheStore shmcb", out, sizeof(out)) != 0) {
        fail_msg("a hotel line with search_cache=30s was refused: %s", out);
    }
}

/* max_calls_per_second= is any supplier line's ceiling: a whole number
 * from 1 to 100000, refused otherwise; the payment provider does not take
 * it. */
static void max_calls_per_second_is_a_supplier_option(void **state)
{
    char out[8192];
    (void)state;
    expect_refused("TravelSupplier DUFFEL duffel https://api.duffel.com token=t "
                   "max_calls_per_second=0",
                   "TravelSupplier: max_calls_per_second must be a whole number from 1 to 100000");
    expect_refused("TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k book_url=https://book.liteapi.travel/v3.0 max_calls_per_second=5/s",
                   "TravelHotelSupplier: max_calls_per_second must be a whole number");
    expect_refused("TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k book_url=https://book.liteapi.travel/v3.0 "
                   "max_calls_per_second=100001", "max_calls_per_second must be a whole number");
    expect_refused("TravelPaymentProvider https://pay.example max_calls_per_second=5",
                   "unknown option 'max_calls_per_second'");
    if (configtest("TravelSupplier DUFFEL duffel https://api.duffel.com token=t "
                   "max_calls_per_second=50\n"
                   "TravelHotelSupplier LITEAPI liteapi https://api.liteapi.travel/v3.0 "
                   "api_key=k book_url=https://book.liteapi.travel/v3.0 max_calls_per_second=5",
                   out, sizeof(out)) != 0) {
        fail_msg("supplier lines with max_calls_per_second were refused: %s", out);
    }
}

/* A virtual host is a tenant when it names a database of its own: it may
 * then set its own suppliers, payment provider, secret key, retry schedule
 * and workers. One that shares the main server's database but not the
 * settings the database's jobs run with is incomplete: refused (TRV1650),
 * naming the host and the directive. */
static void virtual_host_tenants(void **state)
{
    char out[8192], extra[4096];
    const char *conninfo = e2e_conninfo();
    (void)state;
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelWorkerThreads 3\n</VirtualHost>",
                   "TRV1650");
    expect_refused("<VirtualHost 127.0.0.1:9>\nServerName t1.localhost\n"
                   "TravelWorkerThreads 3\n</VirtualHost>",
                   "<VirtualHost> t1.localhost");
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelWebhookAllowNetwork 10.0.0.0/8\n"
                   "</VirtualHost>", "their TravelWebhookAllowNetwork settings differ");
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelSupplier SUPPLIER_A duffel "
                   "http://127.0.0.1:9/a token=t\n</VirtualHost>",
                   "their TravelSupplier settings differ");
    expect_refused("<VirtualHost 127.0.0.1:9>\nTravelWebhookRetrySchedule 1m\n"
                   "</VirtualHost>", "their TravelWebhookRetrySchedule settings differ");
    /* The same value as the main server is no difference. */
    assert_int_equal(configtest("<VirtualHost 127.0.0.1:9>\nTravelWebhookAllowNetwork "
                                "127.0.0.0/8 ::1\n</VirtualHost>", out, sizeof(out)), 0);
    /* With a database of its own (written differently from the main
     * server's), anything goes; two hosts on that database must agree. */
    snprintf(extra, sizeof(extra),
             "<VirtualHost 127.0.0.1:9>\nDBDParams \"%s dbname=tenant_x\"\n"
             "TravelWorkerThreads 3\nTravelSupplier SUPPLIER_A duffel http://127.0.0.1:9/a "
             "token=t\n"
             "TravelWebhookRetrySchedule 1m\nTravelSecretKeyFile %s/secret.key\n"
             "TravelPaymentProvider http://127.0.0.1:9/pay\n</VirtualHost>",
             conninfo, e2e_env("TRAVEL_TEST_DIR"));
    if (configtest(extra, out, sizeof(out)) != 0) {
        fail_msg("a tenant with its own database was refused: %s", out);
    }
    {
        char two[8300];
        snprintf(two, sizeof(two), "%s\n<VirtualHost 127.0.0.1:10>\nDBDParams \"%s "
                 "dbname=tenant_x\"\n</VirtualHost>", extra, conninfo);
        expect_refused(two, "shares its database");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_test_configuration_is_valid),
        cmocka_unit_test(wrong_directives_are_refused),
        cmocka_unit_test(supplier_lines_name_a_protocol),
        cmocka_unit_test(search_cache_is_a_hotel_supplier_option),
        cmocka_unit_test(max_calls_per_second_is_a_supplier_option),
        cmocka_unit_test(virtual_host_tenants),
    };
    return E2E_RUN("configtest", tests);
}
