#include "metrics.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Upper bounds of the latency buckets, in seconds; the last is +Inf. */
const double trv_metrics_bounds_s[TRV_METRICS_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, INFINITY};

#define MAGIC 0x54524d33u /* "TRM3": the layout below */
#define UNMATCHED "(no route)"

typedef struct route_slot {
    char name[128];
    apr_uint64_t count, sum_us, errors;
    apr_uint64_t buckets[TRV_METRICS_BUCKETS];
} route_slot;

typedef struct up_slot {
    char name[64];
    apr_uint64_t calls, errors, timeouts;
    apr_uint64_t sum_us;                        /* durations of the calls */
    apr_uint64_t buckets[TRV_METRICS_BUCKETS];  /* over trv_metrics_bounds_s */
    apr_uint64_t events[TRV_METRIC_EVENTS];
} up_slot;

struct trv_metrics_shm {
    apr_uint32_t magic;
    apr_uint32_t nroutes, nupstreams;
    route_slot routes[TRV_METRICS_ROUTES];
    up_slot ups[TRV_METRICS_UPSTREAMS];
};

struct trv_metrics {
    trv_metrics_shm *shm;
    int n;                    /* routes known to this process */
    const trv_route **routes; /* the router's entries (same after fork) */
    int *slots;               /* their slots in shm */
    int unmatched;            /* the slot of requests no route matched */
};

apr_size_t trv_metrics_size(void)
{
    return sizeof(trv_metrics_shm);
}

/* The slot named name, added when missing (post_config: one thread). */
static int route_slot_of(trv_metrics_shm *s, const char *name)
{
    apr_uint32_t i;
    for (i = 0; i < s->nroutes; i++) {
        if (strcmp(s->routes[i].name, name) == 0) {
            return (int)i;
        }
    }
    if (s->nroutes >= TRV_METRICS_ROUTES) {
        return -1;
    }
    apr_cpystrn(s->routes[s->nroutes].name, name, sizeof(s->routes[0].name));
    return (int)s->nroutes++;
}

/* "GET /v1/flight/bookings/{id}": the route as the OpenAPI file names it
 * (the router's parameter rules, "{id:bkg}", left out). */
static const char *route_name(apr_pool_t *p, const trv_route *r)
{
    char *out = apr_palloc(p, strlen(r->method) + strlen(r->pattern) + 2), *o = out;
    const char *s;
    int inside = 0, skipping = 0;
    o += strlen(strcpy(o, r->method));
    *o++ = ' ';
    for (s = r->pattern; *s; s++) {
        if (*s == '{') {
            inside = 1;
        }
        else if (*s == '}') {
            inside = skipping = 0;
        }
        else if (*s == ':' && inside) {
            skipping = 1;
        }
        if (!skipping) {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

trv_metrics *trv_metrics_attach(apr_pool_t *p, void *mem, const trv_router *rt,
                                const char *const *upstreams)
{
    trv_metrics *m = apr_pcalloc(p, sizeof(*m));
    trv_metrics_shm *s = mem;
    int i;
    if (s->magic != MAGIC) {
        memset(s, 0, sizeof(*s));
        s->magic = MAGIC;
    }
    m->shm = s;
    m->n = rt ? trv_router_count(rt) : 0;
    m->routes = apr_pcalloc(p, sizeof(*m->routes) * (apr_size_t)(m->n + 1));
    m->slots = apr_pcalloc(p, sizeof(*m->slots) * (apr_size_t)(m->n + 1));
    for (i = 0; i < m->n; i++) {
        const trv_route *r = trv_router_at(rt, i);
        m->routes[i] = r;
        m->slots[i] = route_slot_of(s, route_name(p, r));
    }
    m->unmatched = route_slot_of(s, UNMATCHED);
    for (; upstreams && *upstreams; upstreams++) {
        apr_uint32_t j;
        for (j = 0; j < s->nupstreams && strcmp(s->ups[j].name, *upstreams) != 0; j++) {
        }
        if (j == s->nupstreams && j < TRV_METRICS_UPSTREAMS) {
            apr_cpystrn(s->ups[j].name, *upstreams, sizeof(s->ups[0].name));
            s->nupstreams++;
        }
    }
    return m;
}

void trv_metrics_request(trv_metrics *m, const trv_route *route, int status,
                         apr_interval_time_t elapsed)
{
    route_slot *r;
    int i, slot = -1, b;
    double secs = (double)elapsed / APR_USEC_PER_SEC;
    if (!m) {
        return;
    }
    if (!route) {
        slot = m->unmatched;
    }
    for (i = 0; i < m->n && slot < 0; i++) {
        if (m->routes[i] == route) {
            slot = m->slots[i];
        }
    }
    if (slot < 0) {
        return;
    }
    r = &m->shm->routes[slot];
    for (b = 0; b < TRV_METRICS_BUCKETS - 1 && secs > trv_metrics_bounds_s[b]; b++) {
    }
    apr_atomic_add64(&r->buckets[b], 1);
    apr_atomic_add64(&r->sum_us, elapsed > 0 ? (apr_uint64_t)elapsed : 0);
    if (status >= 500) {
        apr_atomic_add64(&r->errors, 1);
    }
    apr_atomic_add64(&r->count, 1);
}

void trv_metrics_upstream(trv_metrics *m, const char *name, int outcome,
                          apr_interval_time_t elapsed)
{
    apr_uint32_t j, n;
    double secs = (double)elapsed / APR_USEC_PER_SEC;
    int b;
    if (!m || !name) {
        return;
    }
    n = m->shm->nupstreams;
    for (j = 0; j < n; j++) {
        up_slot *u = &m->shm->ups[j];
        if (strcmp(u->name, name) == 0) {
            for (b = 0; b < TRV_METRICS_BUCKETS - 1 && secs > trv_metrics_bounds_s[b]; b++) {
            }
            apr_atomic_add64(&u->buckets[b], 1);
            apr_atomic_add64(&u->sum_us, elapsed > 0 ? (apr_uint64_t)elapsed : 0);
            apr_atomic_add64(&u->calls, 1);
            if (outcome == 1) {
                apr_atomic_add64(&u->errors, 1);
            }
            else if (outcome == 2) {
                apr_atomic_add64(&u->timeouts, 1);
            }
            return;
        }
    }
}

void trv_metrics_upstream_event(trv_metrics *m, const char *name, trv_metric_event e)
{
    apr_uint32_t j, n;
    if (!m || !name || e < 0 || e >= TRV_METRIC_EVENTS) {
        return;
    }
    n = m->shm->nupstreams;
    for (j = 0; j < n; j++) {
        if (strcmp(m->shm->ups[j].name, name) == 0) {
            apr_atomic_add64(&m->shm->ups[j].events[e], 1);
            return;
        }
    }
}

double trv_metrics_quantile(const unsigned long long *buckets, int n, double q)
{
    unsigned long long total = 0, cum = 0;
    double rank;
    int i;
    for (i = 0; i < n; i++) {
        total += buckets[i];
    }
    if (total == 0) {
        return 0;
    }
    rank = q * (double)total;
    for (i = 0; i < n; i++) {
        if (buckets[i] && (double)(cum + buckets[i]) >= rank) {
            double lo = i ? trv_metrics_bounds_s[i - 1] : 0, hi = trv_metrics_bounds_s[i];
            if (isinf(hi)) {
                return lo; /* beyond the last bound: the bound is all we know */
            }
            return lo + (hi - lo) * ((rank - (double)cum) / (double)buckets[i]);
        }
        cum += buckets[i];
    }
    return trv_metrics_bounds_s[n - 2];
}

int trv_metrics_routes(const trv_metrics *m, apr_pool_t *p, trv_metrics_route_fig **out)
{
    apr_uint32_t i, n = m ? m->shm->nroutes : 0;
    *out = apr_pcalloc(p, sizeof(**out) * (n + 1));
    for (i = 0; i < n; i++) {
        route_slot *r = &m->shm->routes[i];
        unsigned long long b[TRV_METRICS_BUCKETS];
        int k;
        for (k = 0; k < TRV_METRICS_BUCKETS; k++) {
            b[k] = apr_atomic_read64(&r->buckets[k]);
        }
        (*out)[i].route = r->name;
        (*out)[i].count = apr_atomic_read64(&r->count);
        (*out)[i].errors = apr_atomic_read64(&r->errors);
        (*out)[i].sum_s = (double)apr_atomic_read64(&r->sum_us) / APR_USEC_PER_SEC;
        (*out)[i].p50_s = trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.5);
        (*out)[i].p99_s = trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.99);
    }
    return (int)n;
}

int trv_metrics_upstreams(const trv_metrics *m, apr_pool_t *p,
                          trv_metrics_upstream_fig **out)
{
    apr_uint32_t i, n = m ? m->shm->nupstreams : 0;
    *out = apr_pcalloc(p, sizeof(**out) * (n + 1));
    for (i = 0; i < n; i++) {
        up_slot *u = &m->shm->ups[i];
        unsigned long long b[TRV_METRICS_BUCKETS];
        int k;
        (*out)[i].upstream = u->name;
        (*out)[i].calls = apr_atomic_read64(&u->calls);
        (*out)[i].errors = apr_atomic_read64(&u->errors);
        for (k = 0; k < TRV_METRICS_BUCKETS; k++) {
            b[k] = apr_atomic_read64(&u->buckets[k]);
            (*out)[i].buckets[k] = b[k];
        }
        for (k = 0; k < TRV_METRIC_EVENTS; k++) {
            (*out)[i].events[k] = apr_atomic_read64(&u->events[k]);
        }
        (*out)[i].timeouts = apr_atomic_read64(&u->timeouts);
        (*out)[i].sum_s = (double)apr_atomic_read64(&u->sum_us) / APR_USEC_PER_SEC;
        (*out)[i].p50_s = trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.5);
        (*out)[i].p99_s = trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.99);
    }
    return (int)n;
}

/* Searches and bookings made, by the routes that answer them. */
static const struct {
    const char *family;
    const char *searches[3];
    const char *bookings[2];
} funnels[] = {
    {"flight", {"POST /v1/flight/offers", NULL, NULL}, {"POST /v1/flight/prebook", NULL}},
    {"hotel", {"POST /v1/hotel/search", "POST /v1/hotel/offers", NULL},
     {"POST /v1/hotel/prebook", NULL}},
};

static apr_uint64_t route_count(const trv_metrics_route_fig *r, int n, const char *const *names)
{
    apr_uint64_t sum = 0;
    int i;
    for (; *names; names++) {
        for (i = 0; i < n; i++) {
            if (strcmp(r[i].route, *names) == 0) {
                sum += r[i].count;
            }
        }
    }
    return sum;
}

int trv_metrics_funnels(const trv_metrics *m, apr_pool_t *p, trv_metrics_funnel_fig **out)
{
    trv_metrics_route_fig *r;
    int n = trv_metrics_routes(m, p, &r), i, k = (int)(sizeof(funnels) / sizeof(funnels[0]));
    *out = apr_pcalloc(p, sizeof(**out) * (size_t)k);
    for (i = 0; i < k; i++) {
        (*out)[i].family = funnels[i].family;
        (*out)[i].searches = route_count(r, n, funnels[i].searches);
        (*out)[i].bookings = route_count(r, n, funnels[i].bookings);
    }
    return k;
}

static const trv_stmt queue_stmt = {"trv_metrics_queue",
    "SELECT (SELECT count(*) FROM jobs WHERE status = 'queued') AS queued, "
    "(SELECT count(*) FROM jobs WHERE status = 'running') AS running, "
    "(SELECT count(*) FROM jobs WHERE status = 'dead') AS dead, "
    "(SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(available_at)), 0) FROM jobs "
    " WHERE status = 'queued' AND available_at <= now()) AS oldest_s, "
    "(SELECT count(*) FROM webhook_deliveries WHERE status IN ('PENDING', 'PUBLISHED')) "
    " AS deliveries_pending, "
    "(SELECT count(*) FROM webhook_deliveries WHERE status = 'FAILED') AS deliveries_failed"};

void trv_metrics_queue_read(trv_dbc *c, apr_pool_t *p, trv_metrics_queue *q)
{
    trv_rows *rows;
    memset(q, 0, sizeof(*q));
    if (!c || trv_db_select(c, p, &queue_stmt, &rows, 0, NULL) != APR_SUCCESS || rows->n != 1) {
        return;
    }
    q->db_up = 1;
    q->jobs_queued = atol(trv_rows_get(rows, 0, "queued"));
    q->jobs_running = atol(trv_rows_get(rows, 0, "running"));
    q->jobs_dead = atol(trv_rows_get(rows, 0, "dead"));
    q->oldest_job_s = atof(trv_rows_get(rows, 0, "oldest_s"));
    q->deliveries_pending = atol(trv_rows_get(rows, 0, "deliveries_pending"));
    q->deliveries_failed = atol(trv_rows_get(rows, 0, "deliveries_failed"));
}

/* A label value: backslash, double quote and newline escaped. */
static const char *label(apr_pool_t *p, const char *v)
{
    char *out = apr_palloc(p, strlen(v) * 2 + 1), *o = out;
    for (; *v; v++) {
        if (*v == '\\' || *v == '"') {
            *o++ = '\\';
            *o++ = *v;
        }
        else if (*v == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        }
        else {
            *o++ = *v;
        }
    }
    *o = '\0';
    return out;
}

static void add(apr_array_header_t *a, const char *s)
{
    *(const char **)apr_array_push(a) = s;
}

static void gauge(apr_array_header_t *a, apr_pool_t *p, const char *name, const char *help,
                  const char *v)
{
    add(a, apr_psprintf(p, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", name, help, name,
                        name, v));
}

/* One summary's lines: its two quantiles, sum and count under key="l". */
static void summary(apr_array_header_t *a, apr_pool_t *p, const char *name, const char *key,
                    const char *l, apr_uint64_t count, double p50_s, double p99_s,
                    double sum_s)
{
    /* Nothing yet: no quantile (NaN, as Prometheus clients write it). */
    const char *p50 = count ? apr_psprintf(p, "%.6f", p50_s) : "NaN";
    const char *p99 = count ? apr_psprintf(p, "%.6f", p99_s) : "NaN";
    add(a, apr_psprintf(p,
        "%s{%s=\"%s\",quantile=\"0.5\"} %s\n"
        "%s{%s=\"%s\",quantile=\"0.99\"} %s\n"
        "%s_sum{%s=\"%s\"} %.6f\n"
        "%s_count{%s=\"%s\"} %" APR_UINT64_T_FMT "\n",
        name, key, l, p50, name, key, l, p99, name, key, l, sum_s, name, key, l, count));
}

/* A counter family of one upstream event. */
static void event_counter(apr_array_header_t *a, apr_pool_t *p, const char *name,
                          const char *help, const trv_metrics_upstream_fig *u, int nu,
                          trv_metric_event e)
{
    int i;
    add(a, apr_psprintf(p, "# HELP %s %s\n# TYPE %s counter\n", name, help, name));
    for (i = 0; i < nu; i++) {
        add(a, apr_psprintf(p, "%s{upstream=\"%s\"} %" APR_UINT64_T_FMT "\n", name,
                            label(p, u[i].upstream), u[i].events[e]));
    }
}

/* The per-supplier figures beside the calls: the duration histogram (the
 * same buckets as the summary's quantiles), 429s, calls held back, the
 * search cache and searches per booking. */
static void upstream_events(apr_array_header_t *a, apr_pool_t *p,
                            const trv_metrics_upstream_fig *u, int nu)
{
    int i, k;
    add(a, "# HELP travel_upstream_call_seconds Calls to each supplier and the payment "
           "provider by time to answer\n# TYPE travel_upstream_call_seconds histogram\n");
    for (i = 0; i < nu; i++) {
        const char *l = label(p, u[i].upstream);
        apr_uint64_t cum = 0;
        for (k = 0; k < TRV_METRICS_BUCKETS; k++) {
            char le[32];
            /* C's %g (APR's formatter writes %g with trailing zeros). */
            snprintf(le, sizeof(le), "%g", trv_metrics_bounds_s[k]);
            cum += u[i].buckets[k];
            add(a, apr_psprintf(p, "travel_upstream_call_seconds_bucket{upstream=\"%s\",le=\"%s\"} "
                                "%" APR_UINT64_T_FMT "\n", l,
                                isinf(trv_metrics_bounds_s[k]) ? "+Inf" : le, cum));
        }
        add(a, apr_psprintf(p, "travel_upstream_call_seconds_sum{upstream=\"%s\"} %.6f\n"
                            "travel_upstream_call_seconds_count{upstream=\"%s\"} %"
                            APR_UINT64_T_FMT "\n", l, u[i].sum_s, l, cum));
    }
    event_counter(a, p, "travel_upstream_429_total", "Calls the upstream answered with 429 "
                  "(over its rate limit)", u, nu, TRV_METRIC_429);
    event_counter(a, p, "travel_upstream_budget_refused_total", "Calls not sent because the "
                  "line's call budget (max_calls_per_second) was spent", u, nu,
                  TRV_METRIC_BUDGET_REFUSED);
    event_counter(a, p, "travel_upstream_limit_refused_total", "Calls not sent because the "
                  "supplier had said it is over its rate limit", u, nu, TRV_METRIC_LIMIT_REFUSED);
    event_counter(a, p, "travel_upstream_deferred_total", "Background checks (price watches) "
                  "put off because the supplier's budget was nearly spent or it was over its "
                  "limit", u, nu, TRV_METRIC_DEFERRED);
    event_counter(a, p, "travel_search_cache_hits_total", "Searches of the supplier answered "
                  "from the shared search cache", u, nu, TRV_METRIC_CACHE_HIT);
    event_counter(a, p, "travel_search_cache_misses_total", "Searches of a supplier line that "
                  "keeps answers (search_cache=) not found in the cache", u, nu,
                  TRV_METRIC_CACHE_MISS);
    event_counter(a, p, "travel_upstream_searches_total", "Client searches that asked the "
                  "supplier (answered from the cache or not)", u, nu, TRV_METRIC_SEARCH);
    event_counter(a, p, "travel_upstream_bookings_total", "Bookings made (prebook) at the "
                  "supplier", u, nu, TRV_METRIC_BOOKING);
    add(a, "# HELP travel_upstream_searches_per_booking Client searches that asked the "
           "supplier per booking made there since the server started; NaN before its first "
           "booking\n# TYPE travel_upstream_searches_per_booking gauge\n");
    for (i = 0; i < nu; i++) {
        apr_uint64_t b = u[i].events[TRV_METRIC_BOOKING];
        add(a, apr_psprintf(p, "travel_upstream_searches_per_booking{upstream=\"%s\"} %s\n",
                            label(p, u[i].upstream),
                            b ? apr_psprintf(p, "%.3f", (double)u[i].events[TRV_METRIC_SEARCH]
                                                        / (double)b) : "NaN"));
    }
}

char *trv_metrics_prometheus(const trv_metrics *m, apr_pool_t *p,
                             const trv_metrics_queue *q)
{
    apr_array_header_t *a = apr_array_make(p, 64, sizeof(const char *));
    trv_metrics_route_fig *r;
    trv_metrics_upstream_fig *u;
    int i, nr = trv_metrics_routes(m, p, &r), nu = trv_metrics_upstreams(m, p, &u);

    add(a, "# HELP travel_request_duration_seconds API answers by route since the "
           "server started: time to answer (quantiles from fixed buckets)\n"
           "# TYPE travel_request_duration_seconds summary\n");
    for (i = 0; i < nr; i++) {
        summary(a, p, "travel_request_duration_seconds", "route", label(p, r[i].route),
                r[i].count, r[i].p50_s, r[i].p99_s, r[i].sum_s);
    }
    add(a, "# HELP travel_request_errors_total API answers of 500 and above by route\n"
           "# TYPE travel_request_errors_total counter\n");
    for (i = 0; i < nr; i++) {
        add(a, apr_psprintf(p, "travel_request_errors_total{route=\"%s\"} %" APR_UINT64_T_FMT "\n",
                            label(p, r[i].route), r[i].errors));
    }
    add(a, "# HELP travel_upstream_calls_total Calls to each supplier and the payment "
           "provider\n# TYPE travel_upstream_calls_total counter\n");
    for (i = 0; i < nu; i++) {
        add(a, apr_psprintf(p, "travel_upstream_calls_total{upstream=\"%s\"} %" APR_UINT64_T_FMT "\n",
                            label(p, u[i].upstream), u[i].calls));
    }
    add(a, "# HELP travel_upstream_errors_total Calls that failed: unreachable, 5xx or 429, "
           "or an answer that is not the JSON expected\n"
           "# TYPE travel_upstream_errors_total counter\n");
    for (i = 0; i < nu; i++) {
        add(a, apr_psprintf(p, "travel_upstream_errors_total{upstream=\"%s\"} %" APR_UINT64_T_FMT "\n",
                            label(p, u[i].upstream), u[i].errors));
    }
    add(a, "# HELP travel_upstream_timeouts_total Calls that got no answer in time "
           "(outcome unknown)\n# TYPE travel_upstream_timeouts_total counter\n");
    for (i = 0; i < nu; i++) {
        add(a, apr_psprintf(p, "travel_upstream_timeouts_total{upstream=\"%s\"} %" APR_UINT64_T_FMT "\n",
                            label(p, u[i].upstream), u[i].timeouts));
    }
    add(a, "# HELP travel_upstream_duration_seconds Calls to each supplier and the payment "
           "provider: time to answer (quantiles from fixed buckets)\n"
           "# TYPE travel_upstream_duration_seconds summary\n");
    for (i = 0; i < nu; i++) {
        summary(a, p, "travel_upstream_duration_seconds", "upstream", label(p, u[i].upstream),
                u[i].calls, u[i].p50_s, u[i].p99_s, u[i].sum_s);
    }
    upstream_events(a, p, u, nu);
    {
        trv_metrics_funnel_fig *f;
        int nf = trv_metrics_funnels(m, p, &f);
        add(a, "# HELP travel_searches_per_booking Search requests per booking made (prebook) "
               "since the server started, by family; NaN before the first booking\n"
               "# TYPE travel_searches_per_booking gauge\n");
        for (i = 0; i < nf; i++) {
            add(a, apr_psprintf(p, "travel_searches_per_booking{family=\"%s\"} %s\n",
                                f[i].family, f[i].bookings
                                    ? apr_psprintf(p, "%.3f", (double)f[i].searches
                                                                  / (double)f[i].bookings)
                                    : "NaN"));
        }
    }
    gauge(a, p, "travel_database_up", "1 when the database answered this scrape",
          q->db_up ? "1" : "0");
    if (q->db_up) {
        gauge(a, p, "travel_jobs_queued", "Background jobs waiting in the queue",
              apr_ltoa(p, q->jobs_queued));
        gauge(a, p, "travel_jobs_running", "Background jobs claimed by a worker",
              apr_ltoa(p, q->jobs_running));
        gauge(a, p, "travel_jobs_dead", "Background jobs that failed for good",
              apr_ltoa(p, q->jobs_dead));
        gauge(a, p, "travel_jobs_oldest_wait_seconds",
              "How long the oldest due queued job has waited",
              apr_psprintf(p, "%.3f", q->oldest_job_s));
        gauge(a, p, "travel_webhook_deliveries_pending",
              "Webhook deliveries not yet delivered or failed", apr_ltoa(p, q->deliveries_pending));
        gauge(a, p, "travel_webhook_deliveries_failed",
              "Webhook deliveries that failed for good", apr_ltoa(p, q->deliveries_failed));
    }
    return apr_array_pstrcat(p, a, 0);
}
