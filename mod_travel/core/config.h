/* What httpd.conf says, as a plain struct (filled by httpd/config.c), and
 * the value parsers its directives use, so they are unit tested. */
#ifndef TRV_CONFIG_H
#define TRV_CONFIG_H

#include <apr_network_io.h>
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>

struct trv_supplier;

/* An upstream HTTP service: a supplier or the payment provider. */
typedef struct trv_upstream {
    const char *name;              /* SUPPLIER_A, ..., or "payment" */
    const char *protocol;          /* a supplier's protocol ("liteapi"); NULL for payments */
    const char *base_url;          /* no trailing slash */
    const char *api_key;           /* sent as a bearer token (flights, payments) or
                                    * as the supplier's own key header (hotels);
                                    * never logged */
    const char *api_secret;        /* hotel suppliers that sign requests; never logged */
    const char *second_base_url;   /* the vendor's second host (the protocol's
                                    * creds.second_base option), or NULL */
    apr_interval_time_t connect_timeout;
    apr_interval_time_t timeout;
    /* How long a search's answer of this supplier may be served again from
     * the shared search cache (the search_cache= option of a hotel
     * supplier's line); 0: never. */
    apr_interval_time_t search_cache;
    /* The operator's ceiling of calls per second to this line, shared by
     * every child and node (max_calls_per_second=, core/call_budget.h);
     * 0: none. */
    long max_calls_per_second;
    /* Set on a copy of the line by background work (price watches): its
     * calls spend only what live calls leave of the ceiling and never
     * wait for a window or a supplier's limit (they are deferred). */
    int background;
    /* Set on a copy of the line for one call that only reads (a search):
     * a second copy of it changes nothing, so it goes out on a pooled
     * keep-alive connection, and libcurl may resend it if that connection
     * closed unanswered, as for a keyed request (core/http.h, keyed). An
     * unkeyed write (a book, a prebook, a cancel) leaves it 0 and gets a
     * fresh connection. */
    int repeatable;
} trv_upstream;

/* A network the operator allows as a webhook target despite the SSRF rules;
 * plain http:// is accepted only for targets inside one. */
typedef struct trv_cidr {
    int family;                    /* APR_INET or APR_INET6 */
    unsigned char addr[16];
    int bits;
    const char *text;
} trv_cidr;

typedef struct trv_config {
    apr_array_header_t *upstreams;     /* trv_upstream: flight suppliers (TravelSupplier) */
    apr_array_header_t *hotel_upstreams; /* trv_upstream: hotel suppliers (TravelHotelSupplier) */
    /* One bound row per supplier line (struct trv_supplier, core/registry.h:
     * the protocol's row under the line's name), in line order, each list
     * ending at a row with a NULL name. */
    apr_array_header_t *flight_rows;
    apr_array_header_t *hotel_rows;
    const trv_upstream *payment;       /* may be NULL */
    int worker_threads;                /* background threads per child */
    apr_array_header_t *retry_schedule;/* apr_interval_time_t, webhook retries */
    apr_off_t max_body;                /* request body cap in bytes */
    apr_array_header_t *webhook_allow; /* trv_cidr */
    apr_interval_time_t job_lease;
    apr_interval_time_t job_poll;
    apr_size_t max_response;           /* upstream response cap in bytes */
    const char *secret_key_file;
    unsigned char secret_key[32];      /* AES-256 key for secrets at rest */
    int have_secret_key;
    apr_interval_time_t watch_interval; /* between checks of one watch */
    /* Webhook requests per second to one subscription when it sets no
     * max_per_second (TravelWebhookMaxPerSecond); 0: no throttle. */
    int webhook_max_per_second;
    /* A subscription none of whose requests got a 2xx for this long is
     * disabled (TravelWebhookDisableAfter; webhook/breaker.h). */
    apr_interval_time_t webhook_disable_after;
    /* How long deliveries, attempts and events are kept
     * (TravelWebhookRetention; webhook/retention.h). */
    apr_interval_time_t webhook_retention;
    int db_pooled;                     /* TravelDBMode pooled (core/db.h) */
    /* TravelNotifyConnInfo: the direct (unpooled) libpq conninfo the
     * listener LISTENs on (account/key_cache.h); NULL: a pooled connection. */
    const char *notify_conninfo;
    /* TravelStandbyConnInfo: a streaming standby's libpq conninfo; reads
     * that may go there do when it has replayed the client's own writes
     * (gateway/standby.h). NULL: every read goes to DBDParams. */
    const char *standby_conninfo;
    /* TravelNotifyCheck: how often the listener proves again that a NOTIFY
     * reaches it (the bound on a silently lost revocation). */
    apr_interval_time_t notify_check;
    /* How long a hotel search or offers request waits for its suppliers:
     * it answers with those that answered by then (TravelSearchDeadline). */
    apr_interval_time_t search_deadline;
    /* How long a hotel supplier's content (the hotels of an area) is kept
     * parsed in each process; 0: read at every search
     * (TravelHotelContentCache). */
    apr_interval_time_t content_ttl;
    /* How long a supplier call may wait for the supplier's rate limit to
     * end before it is refused (TravelSupplierLimitWait,
     * core/upstream_limit.h); 0: it never waits. */
    apr_interval_time_t supplier_limit_wait;
} trv_config;

#define TRV_DEFAULT_MAX_BODY (1024 * 1024)
#define TRV_DEFAULT_WORKERS 2
#define TRV_DEFAULT_LEASE apr_time_from_sec(60)
#define TRV_DEFAULT_POLL apr_time_from_msec(500)
#define TRV_DEFAULT_WATCH_INTERVAL apr_time_from_sec(900)
#define TRV_DEFAULT_NOTIFY_CHECK apr_time_from_sec(10)
#define TRV_DEFAULT_SEARCH_DEADLINE apr_time_from_sec(8)
#define TRV_DEFAULT_CONTENT_TTL apr_time_from_sec(3600)
#define TRV_DEFAULT_WEBHOOK_DISABLE_AFTER apr_time_from_sec(5 * 86400)
#define TRV_DEFAULT_WEBHOOK_RETENTION apr_time_from_sec(30 * 86400)
#define TRV_DEFAULT_SUPPLIER_LIMIT_WAIT apr_time_from_sec(1)
#define TRV_DEFAULT_MAX_RESPONSE (8 * 1024 * 1024)
#define TRV_DEFAULT_CONNECT_TIMEOUT apr_time_from_sec(5)
#define TRV_DEFAULT_TIMEOUT apr_time_from_sec(30)

/* The production webhook retry schedule: 1m 5m 30m 2h 12h 24h. */
apr_array_header_t *trv_default_retry_schedule(apr_pool_t *p);

/* "90", "90s", "1500ms", "5m", "2h", "1d" -> interval; NULL on success or
 * the reason. */
const char *trv_parse_duration(const char *s, apr_interval_time_t *out);
/* "1048576", "512K", "1M" -> bytes. */
const char *trv_parse_size(const char *s, apr_off_t *out);
/* "127.0.0.0/8", "::1", "10.0.0.0/8" -> network. */
const char *trv_parse_cidr(apr_pool_t *p, const char *s, trv_cidr *out);
/* 1 when the raw address (4 or 16 bytes of `family`) is inside the network. */
int trv_cidr_contains(const trv_cidr *net, int family, const unsigned char *addr);
/* http(s)://host[:port][/path] with no trailing slash, or the reason. */
const char *trv_check_base_url(const char *s);

const trv_upstream *trv_config_upstream(const trv_config *cfg, const char *name);

/* Adds a supplier line: u (copied) bound to protocol, a row of a protocol
 * table; the domain list is the protocol row's domain. Arrays are made from
 * p when the configuration has none yet. */
void trv_config_add_supplier(apr_pool_t *p, trv_config *cfg, const trv_upstream *u,
                             const struct trv_supplier *protocol);

/* The configured suppliers of a domain ("flight", "hotel") as bound rows,
 * in line order, ending at a NULL name (never NULL itself). */
const struct trv_supplier *trv_config_suppliers(const trv_config *cfg, const char *domain);
/* The bound row of one configured supplier name in a domain, or NULL. */
const struct trv_supplier *trv_config_supplier(const trv_config *cfg, const char *domain,
                                               const char *name);
/* A hotel supplier's configuration: hotel and flight suppliers share names
 * (SUPPLIER_A), so each domain has its own directive and list. */
const trv_upstream *trv_config_hotel_upstream(const trv_config *cfg, const char *name);
/* How a domain finds its supplier's line by name: trv_config_upstream
 * (flights), trv_config_hotel_upstream. */
typedef const trv_upstream *(*trv_config_upstream_fn)(const trv_config *cfg, const char *name);
/* How long supplier_calls calls to the supplier of that name (its line
 * found by upstream_of; NULL or not configured: the default timeouts) and
 * payment_calls to the payment provider may take at most (their timeouts),
 * plus a margin: after that a step whose request vanished may be taken over. */
apr_interval_time_t trv_config_call_budget(const trv_config *cfg,
                                           trv_config_upstream_fn upstream_of,
                                           const char *name, int supplier_calls,
                                           int payment_calls);

#endif
