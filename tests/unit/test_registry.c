/* The registry: the domains' registrations (routes, job kinds with their
 * attempt limits, event types, supplier rows) built into one table that
 * routing, the workers, webhook subscriptions and supplier code read.
 * Lookups find what was registered and nothing else, capabilities say what
 * a supplier does, the gateway's own domains build, and anything registered
 * twice (or incomplete) is refused with a message naming it. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/registry.h"
#include "flight/enqueue.h"
#include "flight/jobs.h"
#include "flight/supplier.h"
#include "hotel/enqueue.h"
#include "hotel/supplier.h"
#include "gateway/gateway.h"
#include "hotel/cancel_jobs.h"
#include "hotel/cancellation_store.h"
#include "flight/booking_store.h"
#include "hotel/intents.h"
#include "gateway/probe.h"
#include "webhook/outbox.h"
#include "webhook/publish.h"
#include "webhook/retention.h"
#include "webhook/send.h"
#include "watch/watch.h"

static const trv_registry *gateway_registry(apr_pool_t *p)
{
    trv_gateway *gw = NULL;
    const char *err = NULL;
    assert_int_equal(trv_gateway_make(p, &gw, &err), APR_SUCCESS);
    assert_null(err);
    return trv_gateway_registry(gw);
}

/* ---- the gateway's own domains ---- */

static void flight_protocols_are_rows_with_their_adapters(void **state)
{
    const trv_registry *reg = gateway_registry(*state);
    const trv_supplier *a = trv_registry_protocol(reg, "flight", "duffel");
    const trv_supplier *b = trv_registry_protocol(reg, "flight", "liteapi-flights");
    const trv_supplier *alias = trv_registry_protocol(reg, "flight", "travel-air");
    const trv_supplier *row;
    int n = 0;

    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_equal(a->adapter, &trv_flight_supplier_a);
    assert_ptr_equal(b->adapter, &trv_flight_supplier_b);
    assert_string_equal(a->domain, "flight");
    /* Each protocol names the credential its lines must give. */
    assert_string_equal(a->creds.key, "token");
    assert_string_equal(b->creds.key, "api_key");
    for (row = trv_flight_suppliers; row->name; row++, n++) {
        const trv_flight_supplier *s = row->adapter;
        assert_ptr_equal(trv_registry_protocol(reg, "flight", row->name), row);
        assert_null(row->protocol);
        assert_ptr_equal(trv_flight_supplier_of_offer(
                             apr_pstrcat(*state, s->offer_prefix, "x", NULL)), s);
    }
    assert_int_equal(n, 3);
    /* The slot's former protocol name: an alias of LiteAPI Flights' row. */
    assert_non_null(alias);
    assert_ptr_equal(alias->adapter, &trv_flight_supplier_b);
    assert_ptr_equal(trv_supplier_primary(trv_flight_suppliers, alias), b);
    assert_ptr_equal(trv_supplier_primary(trv_flight_suppliers, b), b);
    assert_int_equal(alias->caps, b->caps);
    /* Unknown names, case, wire names: nothing; a hotel protocol is not a
     * flight one, and the lookup across domains finds it with its domain. */
    assert_null(trv_registry_protocol(reg, "flight", "SUPPLIER_A"));
    assert_null(trv_registry_protocol(reg, "flight", "DUFFEL"));
    assert_null(trv_registry_protocol(reg, "flight", "liteapi"));
    assert_string_equal(trv_registry_protocol(reg, "hotel", "liteapi")->domain, "hotel");
    assert_string_equal(trv_protocol_lookup(trv_gateway_domains(), "liteapi")->domain, "hotel");
    assert_ptr_equal(trv_protocol_lookup(trv_gateway_domains(), "duffel"), a);
    assert_string_equal(trv_protocol_lookup(trv_gateway_domains(), "hotelbeds")->domain,
                        "hotel");
    assert_null(trv_protocol_lookup(trv_gateway_domains(), "hotelbed"));
    assert_null(trv_registry_protocol(reg, "nowhere", "duffel"));
    assert_null(trv_registry_protocol(reg, "flight", NULL));
    assert_null(trv_flight_supplier_of_offer("zz_unknown"));
}

/* A site's lines bind wire names to protocols: each bound row is its
 * protocol's row under the wire name, in line order; lookups by wire name
 * reach it, and the input enums list the wire names. */
static void lines_bind_wire_names_to_protocols(void **state)
{
    apr_pool_t *p = *state;
    trv_config cfg;
    trv_upstream u;
    const trv_supplier *rows, *duffel = trv_protocol_lookup(trv_gateway_domains(), "duffel");
    const trv_supplier *air = trv_protocol_lookup(trv_gateway_domains(), "travel-air");
    const char *const *names;

    memset(&cfg, 0, sizeof(cfg));
    assert_null(trv_config_suppliers(&cfg, "flight")->name);
    memset(&u, 0, sizeof(u));
    u.name = "CHARTER";
    u.protocol = "travel-air";
    trv_config_add_supplier(p, &cfg, &u, air);
    u.name = "DUFFEL";
    u.protocol = "duffel";
    trv_config_add_supplier(p, &cfg, &u, duffel);
    rows = trv_config_suppliers(&cfg, "flight");
    assert_string_equal(rows[0].name, "CHARTER");
    assert_string_equal(rows[0].protocol, "travel-air");
    assert_ptr_equal(rows[0].adapter, &trv_flight_supplier_b);
    assert_true(trv_supplier_can(&rows[0], TRV_SUP_COLLECTS_PAYMENT));
    assert_string_equal(rows[1].name, "DUFFEL");
    assert_ptr_equal(rows[1].adapter, &trv_flight_supplier_a);
    assert_true(trv_supplier_can(&rows[1], TRV_SUP_PAYMENT_SDK | TRV_SUP_OFFER_ONCE));
    assert_null(rows[2].name);
    assert_ptr_equal(trv_flight_supplier_row(&cfg, "DUFFEL"), &rows[1]);
    assert_null(trv_flight_supplier_row(&cfg, "duffel"));
    assert_null(trv_flight_supplier_row(&cfg, "SUPPLIER_A"));
    assert_string_equal(trv_config_upstream(&cfg, "DUFFEL")->protocol, "duffel");
    /* The hotel list is another list. */
    assert_null(trv_config_suppliers(&cfg, "hotel")->name);
    assert_null(trv_config_supplier(&cfg, "hotel", "DUFFEL"));
    names = trv_flight_supplier_names(&cfg, p);
    assert_string_equal(names[0], "CHARTER");
    assert_string_equal(names[1], "DUFFEL");
    assert_null(names[2]);
}

static void capabilities_say_what_a_supplier_does(void **state)
{
    const trv_registry *reg = gateway_registry(*state);
    const trv_supplier *a = trv_registry_protocol(reg, "flight", "duffel");
    const trv_supplier *b = trv_registry_protocol(reg, "flight", "liteapi-flights");

    /* Duffel: the service takes the payment (the SDK is possible) and the
     * offer is sold once; LiteAPI Flights charges the traveller itself. */
    assert_true(trv_supplier_can(a, TRV_SUP_OFFER_ONCE));
    assert_true(trv_supplier_can(a, TRV_SUP_PAYMENT_SDK));
    assert_true(trv_supplier_can(a, TRV_SUP_OFFER_ONCE | TRV_SUP_PAYMENT_SDK));
    assert_false(trv_supplier_can(a, TRV_SUP_COLLECTS_PAYMENT));
    assert_false(trv_supplier_can(a, TRV_SUP_OFFER_ONCE | TRV_SUP_COLLECTS_PAYMENT));
    assert_true(trv_supplier_can(b, TRV_SUP_COLLECTS_PAYMENT));
    assert_false(trv_supplier_can(b, TRV_SUP_PAYMENT_SDK));
    assert_false(trv_supplier_can(b, TRV_SUP_OFFER_ONCE));
    assert_false(trv_supplier_can(b, TRV_SUP_CANCEL_PREVIEW));
    /* No row: no capability. */
    assert_false(trv_supplier_can(NULL, TRV_SUP_COLLECTS_PAYMENT));
}

/* Whether an adapter sends an Idempotency-Key is its protocol row's word,
 * not each call site's: only a vendor that documents one gets it (and only
 * then may the HTTP client resend the request on a stale connection). */
static void idempotency_keys_go_only_to_vendors_that_honour_them(void **state)
{
    const trv_registry *reg = gateway_registry(*state);
    static const char *const without[] = {"liteapi", "hotelbeds", "travel-hotel-b",
                                          "expedia-rapid", "travel-hotel-c",
                                          "duffel-stays", NULL};
    /* A row that says its vendor honours one: the key goes through. */
    static const trv_supplier keyed[] = {
        {"keyed", "hotel", &trv_hotel_supplier_a, TRV_SUP_IDEMPOTENCY_KEY, {0}, {NULL, NULL, NULL},
         NULL},
        {NULL, NULL, NULL, 0, {0}, {NULL, NULL, NULL}, NULL},
    };
    const char *const *name;
    const trv_supplier *row;

    for (name = without; *name; name++) {
        row = trv_registry_protocol(reg, "hotel", *name);
        assert_non_null(row);
        assert_false(trv_supplier_can(row, TRV_SUP_IDEMPOTENCY_KEY));
        assert_null(trv_supplier_idempotency_key(trv_hotel_suppliers, row->adapter, "k-1"));
    }
    /* LiteAPI documents none (its guard is the book's clientReference). */
    row = trv_registry_protocol(reg, "hotel", "liteapi");
    assert_string_equal(trv_supplier_idempotency_key(keyed, row->adapter, "k-1"), "k-1");
    /* An alias asks its protocol's row; an adapter of no row sends none. */
    assert_ptr_equal(trv_supplier_primary(trv_hotel_suppliers,
                                          trv_registry_protocol(reg, "hotel", "travel-hotel-b")),
                     trv_registry_protocol(reg, "hotel", "hotelbeds"));
    assert_null(trv_supplier_idempotency_key(trv_hotel_suppliers, &state, "k-1"));
    assert_null(trv_supplier_idempotency_key(NULL, row->adapter, "k-1"));
    /* Flights: neither Duffel nor LiteAPI Flights documents one, so the
     * flight adapters (which pass their key at every call that changes
     * something, flight/suppliers/wire.h) send none. */
    {
        static const char *const flights[] = {"duffel", "liteapi-flights", "travel-air", NULL};
        for (name = flights; *name; name++) {
            row = trv_registry_protocol(reg, "flight", *name);
            assert_non_null(row);
            assert_false(trv_supplier_can(row, TRV_SUP_IDEMPOTENCY_KEY));
            assert_null(trv_supplier_idempotency_key(trv_flight_suppliers, row->adapter, "k-1"));
        }
        assert_null(trv_supplier_idempotency_key(trv_flight_suppliers, &trv_flight_supplier_a,
                                                 "bkg_1:book:1"));
        /* Duffel's lost answers are found without a key instead. */
        assert_non_null(trv_flight_supplier_a.find_order);
    }
}

static const trv_job_kind *kind_named(const trv_registry *reg, const char *kind)
{
    const trv_job_kind *k;
    for (k = trv_registry_job_kinds(reg); k->kind; k++) {
        if (strcmp(k->kind, kind) == 0) {
            return k;
        }
    }
    return NULL;
}

static void job_kinds_carry_their_runner_and_limit(void **state)
{
    const trv_registry *reg = gateway_registry(*state);
    static const struct {
        const trv_job_spec *spec;
        trv_job_fn *run;
        const void *arg;
    } expect[] = {
        {&trv_probe_job, trv_probe_run},
        {&trv_event_publish_job, trv_event_publish_run},
        {&trv_webhook_send_job, trv_webhook_send_run},
        {&trv_webhook_retention_job, trv_webhook_retention_run},
        {&trv_fjob_complete, trv_fjob_complete_run},
        {&trv_fjob_settle, trv_fjob_settle_run},
        {&trv_fjob_cancel, trv_lifecycle_cancel_run, &trv_fcancel_ops},
        {&trv_fjob_refund, trv_refunds_run, &trv_fbooking_refunds},
        {&trv_fjob_expire, trv_fjob_expire_run},
        {&trv_fjob_prebook_watch, trv_fjob_prebook_watch_run},
        {&trv_fjob_sync, trv_fjob_sync_run},
        {&trv_fjob_release, trv_fjob_release_run},
        {&trv_hjob_complete, trv_hjob_complete_run},
        {&trv_hjob_expire, trv_hjob_expire_run},
        {&trv_hjob_cancel, trv_lifecycle_cancel_run, &trv_hcancel_ops},
        {&trv_hjob_refund, trv_refunds_run, &trv_hcancellation_refunds},
        {&trv_watch_schedule_job, trv_watch_schedule_run},
        {&trv_watch_price_job, trv_watch_price_run},
        {&trv_watch_trip_job, trv_watch_trip_run},
        {&trv_watch_purchase_job, trv_watch_purchase_run},
        {&trv_fjob_render, trv_fjob_render_run},
        {&trv_hjob_release, trv_hjob_release_run},
    };
    const trv_job_kind *k;
    size_t i, n = 0;

    for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
        const trv_job_kind *got = kind_named(reg, expect[i].spec->kind);
        assert_non_null(got);
        assert_ptr_equal(got->run, expect[i].run);
        assert_ptr_equal(got->arg, expect[i].arg);
        /* The limit the workers apply is the one enqueued with. */
        assert_int_equal(got->max_attempts, expect[i].spec->max_attempts);
        assert_true(got->max_attempts >= 1);
        assert_ptr_equal(trv_registry_job(reg, expect[i].spec->kind), expect[i].spec);
    }
    for (k = trv_registry_job_kinds(reg); k->kind; k++) {
        n++;
    }
    assert_int_equal(n, sizeof(expect) / sizeof(expect[0]));
    assert_null(trv_registry_job(reg, "flight.no.such"));
    assert_null(trv_registry_job(reg, NULL));
}

static void event_types_belong_to_their_family(void **state)
{
    const trv_registry *reg = gateway_registry(*state);
    const char *const *hotel = trv_registry_event_types(reg, "hotel");
    const char *const *t;
    int n = 0;

    assert_string_equal(hotel[0], "hotel.booking.confirmed");
    assert_string_equal(hotel[1], "hotel.booking.canceled");
    assert_string_equal(hotel[2], "hotel.booking.cancellation_failed");
    assert_null(hotel[3]);
    for (t = trv_registry_event_types(reg, "flight"); *t; t++, n++) {
        assert_int_equal(strncmp(*t, "flight.", 7), 0);
        assert_true(trv_registry_event_type_known(reg, "flight", *t));
        assert_false(trv_registry_event_type_known(reg, "hotel", *t));
    }
    assert_int_equal(n, 5);
    assert_true(trv_registry_event_type_known(reg, "flight", "flight.booking.confirmed"));
    assert_true(trv_registry_event_type_known(reg, "flight",
                                              "flight.booking.airline_initiated_change"));
    assert_false(trv_registry_event_type_known(reg, "flight", "flight.booking"));
    assert_false(trv_registry_event_type_known(reg, "flight", NULL));
    /* A family that emits nothing has an empty list, not a NULL one. */
    assert_null(trv_registry_event_types(reg, "system")[0]);
    assert_null(trv_registry_event_types(reg, "nowhere")[0]);
    assert_null(trv_registry_event_types(NULL, "flight")[0]);
}

static int has_route(const trv_registry *reg, const char *method, const char *pattern)
{
    const trv_route *r;
    for (r = trv_registry_routes(reg); r->method; r++) {
        if (strcmp(r->method, method) == 0 && strcmp(r->pattern, pattern) == 0) {
            return 1;
        }
    }
    return 0;
}

static void subscriptions_exist_for_each_event_family(void **state)
{
    const trv_registry *reg = gateway_registry(*state);
    assert_true(has_route(reg, "POST", "/v1/flight/webhook-subscriptions"));
    assert_true(has_route(reg, "POST", "/v1/hotel/webhook-subscriptions"));
    assert_true(has_route(reg, "POST", "/v1/hotel/webhook-subscriptions/{id:whs}/"
                                       "deliveries/{delivery_id:dlv}/replay"));
    assert_false(has_route(reg, "POST", "/v1/system/webhook-subscriptions"));
    assert_false(has_route(reg, "POST", "/v1/webhook/webhook-subscriptions"));
    assert_true(has_route(reg, "POST", "/v1/flight/prebook"));
    assert_int_equal(trv_registry_domain_count(reg), 5);
    assert_non_null(trv_registry_domain(reg, "hotel"));
    /* The watch domain's events (family travel) go to its own endpoint. */
    assert_non_null(trv_registry_domain(reg, "watch"));
    assert_true(trv_registry_event_type_known(reg, "travel", "travel.hotel.watch.triggered"));
    assert_false(has_route(reg, "POST", "/v1/travel/webhook-subscriptions"));
    assert_false(has_route(reg, "POST", "/v1/watch/webhook-subscriptions"));
    assert_true(has_route(reg, "POST", "/v1/watcher/webhooks"));
}

/* ---- refusals ---- */

static void h(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void run(trv_env *env, apr_pool_t *p, const trv_job *job, trv_job_result *res)
{
    (void)env;
    (void)p;
    (void)job;
    res->outcome = TRV_JOB_DONE;
}

static const int adapter_x = 1, adapter_y = 2;
static const trv_job_spec spec_a = {"t.a", 3}, spec_b = {"t.b", 4};
static const trv_job_spec spec_zero = {"t.zero", 0};
static const trv_route routes_t[] = {{"GET", "/v1/t/things", h, 0}, {NULL, NULL, NULL, 0}};
static const trv_route routes_u[] = {{"GET", "/v1/t/things", h, 0}, {NULL, NULL, NULL, 0}};
static const trv_route routes_v[] = {{"POST", "/v1/t/things", h, 0}, {NULL, NULL, NULL, 0}};
static const trv_job_def jobs_a[] = {{&spec_a, run}, {NULL, NULL}};
static const trv_job_def jobs_ab[] = {{&spec_b, run}, {&spec_a, run}, {NULL, NULL}};
static const trv_job_def jobs_norun[] = {{&spec_b, NULL}, {NULL, NULL}};
static const trv_job_def jobs_zero[] = {{&spec_zero, run}, {NULL, NULL}};
static const char *const events_t[] = {"t.thing.made", NULL};
static const char *const events_t_twice[] = {"t.thing.made", "t.thing.made", NULL};
static const char *const events_u_foreign[] = {"t.thing.made", NULL};
static const char *const events_bare[] = {"t.", NULL};
#define KEY {"api_key", NULL, NULL}
#define END {NULL, NULL, NULL, 0, {0}, {NULL, NULL, NULL}, NULL}
static const trv_supplier sup_t[] = {
    {"proto-x", "t", &adapter_x, TRV_SUP_OFFER_ONCE, {0}, KEY, NULL},
    {"proto-y", "t", &adapter_y, 0, {5, 0, 30}, KEY, NULL},
    END,
};
static const trv_supplier sup_t_twice[] = {
    {"proto-x", "t", &adapter_x, 0, {0}, KEY, NULL},
    {"proto-x", "t", &adapter_y, 0, {0}, KEY, NULL},
    END,
};
static const trv_supplier sup_u_same_name[] = {
    {"proto-x", "u", &adapter_y, TRV_SUP_COLLECTS_PAYMENT, {0}, KEY, NULL},
    END,
};
static const trv_supplier sup_u_own[] = {
    {"proto-u", "u", &adapter_y, TRV_SUP_COLLECTS_PAYMENT, {0}, KEY, NULL},
    END,
};
static const trv_supplier sup_wrong_domain[] = {
    {"proto-x", "t", &adapter_x, 0, {0}, KEY, NULL},
    END,
};
static const trv_supplier sup_no_adapter[] = {
    {"proto-n", "t", NULL, 0, {0}, KEY, NULL},
    END,
};
static const trv_supplier sup_no_key[] = {
    {"proto-k", "t", &adapter_x, 0, {0}, {NULL, NULL, NULL}, NULL},
    END,
};
static const trv_supplier sup_upper[] = {
    {"SUP_X", "t", &adapter_x, 0, {0}, KEY, NULL},
    END,
};

static const trv_domain dom_t = {"t", routes_t, jobs_a, events_t, sup_t, NULL};
static const trv_domain dom_u = {"u", routes_v, NULL, NULL, sup_u_own, NULL};

static const char *refused(apr_pool_t *p, const trv_domain *a, const trv_domain *b)
{
    const trv_domain *list[3] = {a, b, NULL};
    trv_registry *reg = (trv_registry *)&reg;
    const char *err = NULL;
    assert_int_equal(trv_registry_build(p, list, &reg, &err), APR_EINVAL);
    assert_null(reg);
    assert_non_null(err);
    return err;
}

static void a_small_registry_builds(void **state)
{
    const trv_domain *list[] = {&dom_t, &dom_u, NULL};
    trv_registry *reg;
    const char *err = NULL;
    const trv_supplier *y;
    assert_int_equal(trv_registry_build(*state, list, &reg, &err), APR_SUCCESS);
    /* Each domain's protocols are its own. */
    assert_ptr_equal(trv_registry_protocol(reg, "t", "proto-x")->adapter, &adapter_x);
    assert_ptr_equal(trv_registry_protocol(reg, "u", "proto-u")->adapter, &adapter_y);
    assert_null(trv_registry_protocol(reg, "u", "proto-x"));
    assert_true(trv_supplier_can(trv_registry_protocol(reg, "u", "proto-u"),
                                 TRV_SUP_COLLECTS_PAYMENT));
    y = trv_registry_protocol(reg, "t", "proto-y");
    assert_int_equal(y->limits.max_offers_per_request, 5);
    assert_int_equal(y->limits.max_nights, 30);
    /* The same path with another method is another route. */
    assert_true(has_route(reg, "GET", "/v1/t/things"));
    assert_true(has_route(reg, "POST", "/v1/t/things"));
    assert_string_equal(trv_registry_job_kinds(reg)[0].kind, "t.a");
    assert_null(trv_registry_job_kinds(reg)[1].kind);
}

static void duplicates_are_refused(void **state)
{
    apr_pool_t *p = *state;
    trv_domain t2 = dom_t, u = dom_u;

    /* A domain twice. */
    assert_non_null(strstr(refused(p, &dom_t, &dom_t), "domain t is registered twice"));
    /* A route of one domain registered again by another. */
    u.routes = routes_u;
    assert_non_null(strstr(refused(p, &dom_t, &u), "GET /v1/t/things is registered twice"));
    /* A job kind twice, across domains. */
    u = dom_u;
    u.jobs = jobs_ab;
    assert_non_null(strstr(refused(p, &dom_t, &u), "job kind t.a is registered twice"));
    /* An event type twice in one family. */
    t2.event_types = events_t_twice;
    assert_non_null(strstr(refused(p, &t2, NULL),
                           "event type t.thing.made is registered twice"));
    /* A protocol twice in one domain, or in two: a line's protocol names
     * its domain. */
    t2 = dom_t;
    t2.suppliers = sup_t_twice;
    assert_non_null(strstr(refused(p, &t2, NULL), "protocol proto-x is registered twice"));
    u = dom_u;
    u.suppliers = sup_u_same_name;
    assert_non_null(strstr(refused(p, &dom_t, &u), "protocol proto-x is registered twice "
                                                    "(also by t)"));
}

static void incomplete_registrations_are_refused(void **state)
{
    apr_pool_t *p = *state;
    trv_domain t2 = dom_t, u = dom_u, nameless = dom_t;

    /* Another family's event type. */
    u.event_types = events_u_foreign;
    assert_non_null(strstr(refused(p, &u, NULL), "outside its family"));
    u = dom_u;
    u.event_types = events_bare;
    u.name = "t";
    assert_non_null(strstr(refused(p, &u, NULL), "outside its family"));
    /* A row that names another domain than the one registering it. */
    u = dom_u;
    u.suppliers = sup_wrong_domain;
    assert_non_null(strstr(refused(p, &u, NULL), "protocol proto-x names the domain t"));
    /* A protocol without an adapter, without a key credential, or not
     * named in lower case. */
    t2.suppliers = sup_no_adapter;
    assert_non_null(strstr(refused(p, &t2, NULL), "proto-n needs a lower-case name, an "
                                                  "adapter and a key credential"));
    t2.suppliers = sup_no_key;
    assert_non_null(strstr(refused(p, &t2, NULL), "proto-k needs"));
    t2.suppliers = sup_upper;
    assert_non_null(strstr(refused(p, &t2, NULL), "SUP_X needs"));
    /* A job without runner, or without a usable attempt limit. */
    t2 = dom_t;
    t2.jobs = jobs_norun;
    assert_non_null(strstr(refused(p, &t2, NULL), "job kind t.b needs"));
    t2.jobs = jobs_zero;
    assert_non_null(strstr(refused(p, &t2, NULL), "job kind t.zero needs"));
    /* A domain without a name. */
    nameless.name = "";
    assert_non_null(strstr(refused(p, &nameless, NULL), "a domain needs a name"));
    /* Nor one that cannot be a path segment and an event family. */
    nameless.name = "Flight";
    assert_non_null(strstr(refused(p, &nameless, NULL), "(not \"Flight\")"));
    nameless.name = "fl.ight";
    assert_non_null(strstr(refused(p, &nameless, NULL), "a domain needs a name"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(flight_protocols_are_rows_with_their_adapters,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(lines_bind_wire_names_to_protocols,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(capabilities_say_what_a_supplier_does, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(idempotency_keys_go_only_to_vendors_that_honour_them,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(job_kinds_carry_their_runner_and_limit, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(event_types_belong_to_their_family, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(subscriptions_exist_for_each_event_family,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_small_registry_builds, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(duplicates_are_refused, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(incomplete_registrations_are_refused, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
