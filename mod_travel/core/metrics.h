/* Figures shared by every child of one httpd: request latencies per route
 * and outcomes per upstream (supplier or payment provider). The memory is
 * the glue's (a shared memory segment made before the children fork, kept
 * over graceful restarts); only atomic operations touch it, so no lock and
 * no scoreboard. What lives in the database (the job queue, deliveries) is
 * read at scrape time (trv_metrics_queue). */
#ifndef TRV_METRICS_H
#define TRV_METRICS_H

#include "db.h"
#include "router.h"

#include <apr_pools.h>

#define TRV_METRICS_ROUTES 128
#define TRV_METRICS_UPSTREAMS 16
#define TRV_METRICS_BUCKETS 16

typedef struct trv_metrics_shm trv_metrics_shm;
typedef struct trv_metrics trv_metrics;

/* Bytes of shared memory trv_metrics_attach needs. */
apr_size_t trv_metrics_size(void);

/* A process-local handle on the shared figures at mem (zeroed by the
 * caller when new, kept as is when reused after a restart): a slot for
 * every route of rt, and one for each name in upstreams (NULL-terminated),
 * found by name when already there, added when not. Call in post_config,
 * before the children fork. */
trv_metrics *trv_metrics_attach(apr_pool_t *p, void *mem, const trv_router *rt,
                                const char *const *upstreams);

/* Records an answered request (route NULL: no route matched). */
void trv_metrics_request(trv_metrics *m, const trv_route *route, int status,
                         apr_interval_time_t elapsed);
/* Records an upstream call: outcome 0 ok, 1 error, 2 timeout, and how
 * long it took. */
void trv_metrics_upstream(trv_metrics *m, const char *name, int outcome,
                          apr_interval_time_t elapsed);

/* What else happens to an upstream's calls, counted apart from the calls
 * themselves. */
typedef enum {
    TRV_METRIC_429,            /* it answered 429 (counted in errors too) */
    TRV_METRIC_BUDGET_REFUSED, /* not sent: its line's call budget was spent
                                * (core/call_budget.h); not a call */
    TRV_METRIC_LIMIT_REFUSED,  /* not sent: it had said it is over its limit */
    TRV_METRIC_CACHE_HIT,      /* a search answered from the search cache */
    TRV_METRIC_CACHE_MISS,     /* a search the cache could have kept, asked */
    TRV_METRIC_DEFERRED,       /* a background check put off (watches yield) */
    TRV_METRIC_SEARCH,         /* a client's search asked this supplier */
    TRV_METRIC_BOOKING,        /* a booking (prebook) made at this supplier */
    TRV_METRIC_EVENTS
} trv_metric_event;
void trv_metrics_upstream_event(trv_metrics *m, const char *name, trv_metric_event e);

/* What the database says, read at scrape time. */
typedef struct trv_metrics_queue {
    int db_up;
    long jobs_queued, jobs_running, jobs_dead;
    double oldest_job_s;      /* how long the oldest due queued job has waited */
    long deliveries_pending;  /* PENDING or PUBLISHED */
    long deliveries_failed;
} trv_metrics_queue;

void trv_metrics_queue_read(trv_dbc *c, apr_pool_t *p, trv_metrics_queue *q);

typedef struct trv_metrics_route_fig {
    const char *route;        /* "GET /v1/flight/bookings/{id}" */
    apr_uint64_t count, errors; /* errors: answers of 500 and above */
    double sum_s, p50_s, p99_s;
} trv_metrics_route_fig;

typedef struct trv_metrics_upstream_fig {
    const char *upstream;
    apr_uint64_t calls, errors, timeouts;
    double sum_s, p50_s, p99_s;   /* the calls' durations */
    apr_uint64_t buckets[TRV_METRICS_BUCKETS]; /* the calls per duration bucket */
    apr_uint64_t events[TRV_METRIC_EVENTS];
} trv_metrics_upstream_fig;

/* A consistent-enough copy to render (each figure read atomically). */
int trv_metrics_routes(const trv_metrics *m, apr_pool_t *p, trv_metrics_route_fig **out);
int trv_metrics_upstreams(const trv_metrics *m, apr_pool_t *p,
                          trv_metrics_upstream_fig **out);

/* Search requests and bookings made (prebook requests) per family since
 * the server started: the searches-per-booking figure. */
typedef struct trv_metrics_funnel_fig {
    const char *family;
    apr_uint64_t searches, bookings;
} trv_metrics_funnel_fig;
int trv_metrics_funnels(const trv_metrics *m, apr_pool_t *p, trv_metrics_funnel_fig **out);

/* The Prometheus text exposition of everything above. */
char *trv_metrics_prometheus(const trv_metrics *m, apr_pool_t *p,
                             const trv_metrics_queue *q);

/* The q-quantile (0..1) of a histogram over trv_metrics_bounds_s, by linear
 * interpolation inside the bucket that holds it; 0 without samples. */
double trv_metrics_quantile(const unsigned long long *buckets, int n, double q);
extern const double trv_metrics_bounds_s[TRV_METRICS_BUCKETS];

#endif
