#include "config_jobs.h"

#include <string.h>

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_upstream(const trv_upstream *a, const trv_upstream *b)
{
    if (!a || !b) {
        return a == b;
    }
    return same_text(a->name, b->name) && same_text(a->protocol, b->protocol)
           && same_text(a->base_url, b->base_url)
           && same_text(a->second_base_url, b->second_base_url)
           && same_text(a->api_key, b->api_key) && same_text(a->api_secret, b->api_secret)
           && a->connect_timeout == b->connect_timeout && a->timeout == b->timeout;
}

static int nelts(const apr_array_header_t *a)
{
    return a ? a->nelts : 0;
}

/* The same suppliers in the same order: order picks the default supplier. */
static int same_upstreams(const apr_array_header_t *a, const apr_array_header_t *b)
{
    int i;
    if (nelts(a) != nelts(b)) {
        return 0;
    }
    for (i = 0; i < nelts(a); i++) {
        if (!same_upstream(&APR_ARRAY_IDX(a, i, trv_upstream),
                           &APR_ARRAY_IDX(b, i, trv_upstream))) {
            return 0;
        }
    }
    return 1;
}

static int same_durations(const apr_array_header_t *a, const apr_array_header_t *b)
{
    int i;
    if (nelts(a) != nelts(b)) {
        return 0;
    }
    for (i = 0; i < nelts(a); i++) {
        if (APR_ARRAY_IDX(a, i, apr_interval_time_t)
            != APR_ARRAY_IDX(b, i, apr_interval_time_t)) {
            return 0;
        }
    }
    return 1;
}

static int same_cidrs(const apr_array_header_t *a, const apr_array_header_t *b)
{
    int i;
    if (nelts(a) != nelts(b)) {
        return 0;
    }
    for (i = 0; i < nelts(a); i++) {
        const trv_cidr *x = &APR_ARRAY_IDX(a, i, trv_cidr);
        const trv_cidr *y = &APR_ARRAY_IDX(b, i, trv_cidr);
        if (x->family != y->family || x->bits != y->bits
            || memcmp(x->addr, y->addr, sizeof(x->addr)) != 0) {
            return 0;
        }
    }
    return 1;
}

const char *trv_config_jobs_differ(const trv_config *a, const trv_config *b)
{
    if (!same_upstreams(a->upstreams, b->upstreams)) {
        return "TravelSupplier";
    }
    if (!same_upstreams(a->hotel_upstreams, b->hotel_upstreams)) {
        return "TravelHotelSupplier";
    }
    if (!same_upstream(a->payment, b->payment)) {
        return "TravelPaymentProvider";
    }
    /* Compared by value: two files may hold the same key. */
    if (a->have_secret_key != b->have_secret_key
        || (a->have_secret_key
            && memcmp(a->secret_key, b->secret_key, sizeof(a->secret_key)) != 0)) {
        return "TravelSecretKeyFile";
    }
    if (!same_durations(a->retry_schedule, b->retry_schedule)) {
        return "TravelWebhookRetrySchedule";
    }
    if (a->webhook_max_per_second != b->webhook_max_per_second) {
        return "TravelWebhookMaxPerSecond";
    }
    if (a->webhook_disable_after != b->webhook_disable_after) {
        return "TravelWebhookDisableAfter";
    }
    if (a->webhook_retention != b->webhook_retention) {
        return "TravelWebhookRetention";
    }
    if (!same_cidrs(a->webhook_allow, b->webhook_allow)) {
        return "TravelWebhookAllowNetwork";
    }
    if (a->worker_threads != b->worker_threads) {
        return "TravelWorkerThreads";
    }
    if (a->job_lease != b->job_lease) {
        return "TravelJobLease";
    }
    if (a->job_poll != b->job_poll) {
        return "TravelJobPollInterval";
    }
    if (a->watch_interval != b->watch_interval) {
        return "TravelWatchInterval";
    }
    /* One mod_dbd pool and one listener per database. */
    if (a->db_pooled != b->db_pooled) {
        return "TravelDBMode";
    }
    if ((a->notify_conninfo || b->notify_conninfo)
        && (!a->notify_conninfo || !b->notify_conninfo
            || strcmp(a->notify_conninfo, b->notify_conninfo) != 0)) {
        return "TravelNotifyConnInfo";
    }
    if (a->notify_check != b->notify_check) {
        return "TravelNotifyCheck";
    }
    return NULL;
}
