/* The registry: what each domain (flight, hotel, webhook, ...) brings to
 * the gateway, as data. A domain describes itself in one trv_domain — its
 * routes, its job kinds with their attempt limits, the event types it
 * emits and its suppliers — and the gateway builds the registry from the
 * list of domains once at startup. Routing, the workers, webhook
 * subscriptions and the features endpoints read the registry; nothing
 * outside a domain lists that domain's names by hand.
 *
 * A supplier protocol is a row: its name (the vendor API it speaks, lower
 * case: "liteapi", "duffel"), its domain, its adapter (the domain's function
 * table, as mod_md's md_http_impl_t), its capabilities and limits (as
 * mod_auth_openidc's cache providers carry a name and flags) and the
 * credentials its lines must give. A site binds its own wire names to
 * protocols in httpd.conf (TravelSupplier NAME PROTOCOL BASE_URL ...): the
 * configuration holds one bound row per line (core/config.h,
 * trv_config_suppliers), a copy of the protocol's row under the wire name.
 * Code that needs to know what a supplier does asks the row's
 * capabilities, never compares its name. Adding a protocol is one adapter
 * file and one row in its domain's protocol table.
 *
 * Everything here is static, read-only data after the build: any thread
 * may read it without locks. */
#ifndef TRV_REGISTRY_H
#define TRV_REGISTRY_H

#include "booking_access.h"
#include "jobs.h"
#include "router.h"

/* ---- suppliers ---- */

struct trv_domain;

/* The supplier charges the traveller itself: the service authorizes and
 * captures nothing, and refunds are the supplier's business. */
#define TRV_SUP_COLLECTS_PAYMENT   0x01u
/* A booking with this supplier can be paid through the payment provider's
 * client SDK (use_payment_sdk) instead of a stored instrument. */
#define TRV_SUP_PAYMENT_SDK        0x02u
/* The supplier sells an offer to one unfinished booking at a time: a
 * second prebook of the same offer is refused while one is unfinished. */
#define TRV_SUP_OFFER_ONCE         0x04u
/* The supplier can tell a cancellation's fee and refund before the
 * cancellation is made. */
#define TRV_SUP_CANCEL_PREVIEW     0x08u
/* The vendor honours an Idempotency-Key header (documents that a repeat
 * of a keyed request answers the first outcome and acts once). Only then
 * does the adapter send one, and only a keyed request may be resent by
 * the HTTP client on a connection that closed without an answer
 * (core/http.h): a vendor that ignores the header would act twice. */
#define TRV_SUP_IDEMPOTENCY_KEY    0x10u
/* The supplier collects the payment through its own payment SDK (with
 * TRV_SUP_COLLECTS_PAYMENT): its prebook opens a payment intent whose
 * client secret the traveller's device confirms with the vendor before
 * book. With use_payment_sdk the prebook hands that secret to the client
 * once (meta.payment_sdk); the service never stores it. */
#define TRV_SUP_VENDOR_SDK         0x20u
/* The vendor asks who the traveller is on its calls (Expedia Rapid:
 * Customer-Ip, Customer-Session-Id, the language): a background call made
 * for one traveller (a watch's check) is not shared with another's. */
#define TRV_SUP_TRAVELLER          0x40u

/* What a supplier accepts in one request; 0 when it sets no limit of its own
 * beyond the API's. */
typedef struct trv_supplier_limits {
    int max_offers_per_request;
    int max_hotels_per_offers_request;
    int max_nights;
} trv_supplier_limits;

/* The credentials a protocol's lines must give: the option that holds its
 * key (sent as the vendor asks: a bearer token, an X-API-Key header...) and,
 * for vendors that sign requests, the option that holds the signing secret.
 * Each may also be given as <option>_file. */
typedef struct trv_supplier_creds {
    const char *key;        /* "token", "api_key" */
    const char *secret;     /* "api_secret", or NULL */
    /* The option naming the vendor's second base URL, for an API served
     * from two hosts (LiteAPI books on book.liteapi.travel): "book_url";
     * NULL when there is none. Required when named. */
    const char *second_base;
} trv_supplier_creds;

typedef struct trv_supplier {
    /* In a protocol table: the protocol's name ("liteapi"). In a bound row:
     * the site's wire name (SUPPLIER_A, LITEAPI), what the API shows and the
     * database stores. */
    const char *name;
    const char *domain;     /* the domain that registers it: "flight", "hotel" */
    const void *adapter;    /* the domain's function table for it */
    unsigned caps;          /* TRV_SUP_* */
    trv_supplier_limits limits;
    trv_supplier_creds creds;
    const char *protocol;   /* a bound row's protocol name; NULL in a protocol table */
} trv_supplier;

/* Whether the supplier has every capability in caps (NULL has none). */
int trv_supplier_can(const trv_supplier *s, unsigned caps);

/* The row named name in a table of rows (a domain's protocols or a
 * configuration's bound suppliers; rows end at a NULL name), or NULL. */
const trv_supplier *trv_supplier_find(const trv_supplier *rows, const char *name);

/* In a protocol table: the first row with row's adapter, which is row
 * itself unless row is an alias (a protocol's former name, such as
 * travel-hotel-b for hotelbeds). */
const trv_supplier *trv_supplier_primary(const trv_supplier *rows, const trv_supplier *row);

/* key when the protocol row of adapter (its primary row in a protocol
 * table) has TRV_SUP_IDEMPOTENCY_KEY, else NULL: what an adapter sends as
 * Idempotency-Key. Adapters ask this instead of deciding at each call. */
const char *trv_supplier_idempotency_key(const trv_supplier *rows, const void *adapter,
                                         const char *key);

/* The protocol row named protocol, looked up in every domain of a list (as
 * trv_registry_build takes it; its row's domain says whose it is), or NULL
 * when no domain registers that protocol. Configuration time uses it, when
 * the registry is not built yet. */
const trv_supplier *trv_protocol_lookup(const struct trv_domain *const *domains,
                                        const char *protocol);

/* ---- domains ---- */

/* A job kind as a domain registers it: its definition, its runner and
 * what the runner is handed as job->arg (NULL for a runner of its own; a
 * shared runner's domain table, e.g. {&trv_fjob_cancel,
 * trv_lifecycle_cancel_job, &trv_fcancel_ops}). */
typedef struct trv_job_def {
    const trv_job_spec *spec;
    trv_job_fn *run;
    const void *arg;
} trv_job_def;

typedef struct trv_domain trv_domain;

struct trv_domain {
    /* "flight": also the family of its event types ("flight.booking.…")
     * and the path segment of its routes (/v1/flight/…); lower case. */
    const char *name;
    const trv_route *routes;          /* ends at a NULL method; may be NULL */
    const trv_job_def *jobs;          /* ends at a NULL spec; may be NULL */
    /* The event types webhook subscriptions of this family may ask for;
     * ends at NULL; each "<name>.…"; may be NULL. */
    const char *const *event_types;
    /* Its supplier protocols (adapters); ends at a NULL name; may be NULL. */
    const trv_supplier *suppliers;
    /* Routes this domain serves for every other domain that emits events
     * (webhook subscriptions, per family); may be NULL. The table is
     * allocated from p and ends at a NULL method. */
    const trv_route *(*routes_for)(apr_pool_t *p, const trv_domain *emitter);
    /* The family of its event types when it is not the name (the watch
     * domain's events are "travel.hotel.…"); NULL: the name. */
    const char *family;
    /* TRV_DOMAIN_* */
    unsigned flags;
    /* How the parts of the service outside it (the dashboard) read its
     * bookings; NULL for a domain without bookings. */
    const trv_booking_access *bookings;
};

/* The domain delivers its events to an endpoint of its own, not through
 * webhook subscriptions: no /v1/<family>/webhook-subscriptions routes. */
#define TRV_DOMAIN_OWN_ENDPOINT 0x01u

/* The event family of a domain: its family, else its name. */
const char *trv_domain_family(const trv_domain *d);

typedef struct trv_registry trv_registry;

/* Builds the registry from a NULL-terminated list of domains. Refuses
 * (APR_EINVAL, *err says what) a domain without a name (1 to 32 lower-case
 * letters, digits or _, starting with a letter) or registered twice, a route (method and pattern) registered twice, a job kind
 * registered twice or without a runner or attempt limit, an event type
 * registered twice or outside its domain's family, and a supplier
 * registered twice in one domain, without an adapter, or whose row names
 * another domain. */
apr_status_t trv_registry_build(apr_pool_t *p, const trv_domain *const *domains,
                                trv_registry **reg, const char **err);

/* The domains, in registration order. */
int trv_registry_domain_count(const trv_registry *reg);
const trv_domain *trv_registry_domain_at(const trv_registry *reg, int i);
const trv_domain *trv_registry_domain(const trv_registry *reg, const char *name);

/* Every route, the domains' own first (in registration order), then those
 * added for other domains; ends at a NULL method. */
const trv_route *trv_registry_routes(const trv_registry *reg);

/* Every job kind, as the workers take it; ends at a NULL kind. */
const trv_job_kind *trv_registry_job_kinds(const trv_registry *reg);
/* The registered kind, or NULL. */
const trv_job_spec *trv_registry_job(const trv_registry *reg, const char *kind);

/* The event types of one family (a domain name), ends at NULL; an empty
 * list for a family that emits none. */
const char *const *trv_registry_event_types(const trv_registry *reg, const char *family);
int trv_registry_event_type_known(const trv_registry *reg, const char *family,
                                  const char *type);

/* A domain's supplier protocol by name ("liteapi"), or NULL. */
const trv_supplier *trv_registry_protocol(const trv_registry *reg, const char *domain,
                                          const char *protocol);

#endif
