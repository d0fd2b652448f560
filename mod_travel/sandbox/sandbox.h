/* mod_travel_sandbox: the test-mode suppliers, payment provider and webhook
 * inbox, answering over real HTTP on their own port. */
#ifndef TRV_SANDBOX_H
#define TRV_SANDBOX_H

#include "core/router.h"
#include "world.h"

/* What the sandbox directives say (TravelSandbox*). */
typedef struct sbx_settings {
    const char *data_dir;              /* OpenFlights files */
    const char *zoneinfo_dir;          /* TZif files */
    const char *key_a, *key_b, *key_pay; /* bearer keys of the three APIs */
    /* The hotel APIs: SUPPLIER_A's X-API-Key, SUPPLIER_B's Api-key and
     * the secret of its X-Signature, SUPPLIER_C's EAN APIKey and secret. */
    const char *key_ha, *key_hb, *secret_hb, *key_hc, *secret_hc;
    apr_interval_time_t latency_min, latency_max;
    apr_interval_time_t hang;          /* "Unknown": how long book hangs */
    apr_interval_time_t async_ticketing; /* "Async": ticketing time */
    apr_interval_time_t slow_card;     /* pi_test_slowcard: card readable after */
    apr_interval_time_t offer_ttl_a, offer_ttl_b, hold_ttl;
    int duffel_rate;                   /* SUPPLIER_A's requests a minute per child */
} sbx_settings;

/* The per-server context handed to handlers as req->env: the environment
 * first, so a handler finds the sandbox's part with SBX(req). */
typedef struct sbx_ctx {
    trv_env env;
    const sbx_settings *set;
    const sbx_world *world;            /* NULL when TravelSandboxData is unset */
    const struct sbx_hotels *hotels;   /* the hotel catalogue, with the world */
} sbx_ctx;

#define SBX(req) ((const sbx_ctx *)(req)->env)

/* How the module's handler finishes a request that a fault (faults.h)
 * may have answered. */
typedef enum {
    SBX_FAULT_NONE,           /* handle the request as usual */
    SBX_FAULT_ANSWERED,       /* resp holds the answer */
    SBX_FAULT_GARBAGE,        /* answer resp->status with a body that is not JSON */
    SBX_FAULT_DROP,           /* close the connection without an answer */
    SBX_FAULT_DROP_AFTER      /* handle the request, then close without the answer */
} sbx_fault_outcome;

extern const trv_route trv_sandbox_inbox_routes[];
extern const trv_route sbx_air_a_routes[];
extern const trv_route sbx_air_b_routes[];
extern const trv_route sbx_pay_routes[];
extern const trv_route sbx_pay_forward_routes[];
extern const trv_route sbx_control_routes[];
extern const trv_route sbx_fault_routes[];
extern const trv_route sbx_hotel_a_routes[];
extern const trv_route sbx_hotel_b_routes[];
extern const trv_route sbx_hotel_c_routes[];
extern const trv_route sbx_hotel_control_routes[];
/* Duffel Stays, under SUPPLIER_A's Duffel base (stays/stays.c). */
extern const trv_route sbx_stays_routes[];
extern const trv_route sbx_supplier_list_routes[];

/* Records a request to /inbox/<name>[/...] and answers as told. */
sbx_fault_outcome trv_sandbox_inbox_receive(trv_req *req, trv_resp *resp, const char *inbox);

/* The dispatcher's authentication step: the key of the API a path belongs
 * to (/suppliers/a, /payments: a bearer key; /suppliers/b, /hotels/a: X-API-Key;
 * /hotels/b, /hotels/c: each hotel supplier's own scheme). Other paths
 * pass. */
int sbx_authenticate(trv_req *req, trv_resp *resp);
/* 1 when the path belongs to one of the simulated APIs. */
int sbx_is_api_path(const char *path);
/* The simulated API a path belongs to (supplier_a, supplier_b, payments,
 * hotel_a, hotel_b, hotel_c)
 * or NULL; *rest (may be NULL) is the path under the API's base, *which
 * (may be NULL) its place in that list, below SBX_APIS. */
#define SBX_APIS 6
const char *sbx_api_of(const char *path, const char **rest, int *which);

#endif
