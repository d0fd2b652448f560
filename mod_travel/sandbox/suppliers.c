/* GET /sandbox/suppliers: the suppliers this sandbox simulates, each with
 * the protocol it speaks, where it answers and the credentials it accepts,
 * so a client library or a tool (a TravelSupplier line, the vendor's own
 * SDK) can be pointed at it without reading this code. The base URLs are
 * built from the Host the request came to: the answer is right for whoever
 * asks, on whatever port the sandbox listens. */
#include "sandbox.h"
#include "core/api.h"

#include <apr_strings.h>
#include <stddef.h>

/* One simulated supplier: its wire name on the development stack, its kind
 * (flight, hotel), the protocol (as TravelSupplier lines name it), its
 * base path, its other bases (name, path; NULL-ended) and its credential
 * options. The keys come from the TravelSandboxApiKey lines. */
typedef struct sbx_listed {
    const char *name, *kind, *protocol, *path;
    const char *other_base, *other_path;
    const char *key_option, *secret_option;
    size_t key_at, secret_at;   /* offsetof in sbx_settings; secret_at 0: none */
} sbx_listed;

#define KEY(f) offsetof(sbx_settings, f)

static const sbx_listed listed[] = {
    {"SUPPLIER_A", "flight", "duffel", "/suppliers/a", NULL, NULL, "token", NULL,
     KEY(key_a), 0},
    /* LiteAPI Flights (v3.0): api.liteapi.travel/v3.0, X-API-Key. */
    {"SUPPLIER_B", "flight", "liteapi-flights", "/suppliers/b/v3.0", NULL, NULL, "api_key",
     NULL, KEY(key_b), 0},
    /* LiteAPI serves its data and rates on api.liteapi.travel/v3.0 and its
     * prebook, book and bookings on book.liteapi.travel/v3.0. */
    {"SUPPLIER_A", "hotel", "liteapi", "/hotels/a/v3.0", "book", "/hotels/a/book/v3.0",
     "api_key", NULL, KEY(key_ha), 0},
    {"SUPPLIER_B", "hotel", "hotelbeds", "/hotels/b", NULL, NULL, "api_key",
     "api_secret", KEY(key_hb), KEY(secret_hb)},
    /* Expedia Rapid: the base is the host (its paths start /v3). */
    {"SUPPLIER_C", "hotel", "expedia-rapid", "/hotels/c", NULL, NULL, "api_key",
     "api_secret", KEY(key_hc), KEY(secret_hc)},
    /* Duffel Stays: the same Duffel base and token as flights' SUPPLIER_A
     * (its paths start /stays); the fourth hotel supplier, a name of its own. */
    {"DUFFEL_STAYS", "hotel", "duffel-stays", "/suppliers/a", NULL, NULL, "token", NULL,
     KEY(key_a), 0},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0},
};

static const char *setting(const sbx_settings *set, size_t at)
{
    return *(const char *const *)((const char *)set + at);
}

static void list_suppliers(trv_req *req, trv_resp *resp)
{
    const sbx_settings *set = SBX(req)->set;
    const char *host = apr_table_get(req->headers, "Host");
    const char *root = apr_pstrcat(req->pool, "http://", host ? host : "127.0.0.1", NULL);
    const sbx_listed *l;
    json_t *list = json_array();
    for (l = listed; l->name; l++) {
        json_t *bases = json_object(), *creds = json_object();
        const char *key = setting(set, l->key_at);
        if (!key) {
            continue; /* no TravelSandboxApiKey line: it answers nobody */
        }
        if (l->other_base) {
            json_object_set_new(bases, l->other_base,
                                json_string(apr_pstrcat(req->pool, root, l->other_path, NULL)));
        }
        json_object_set_new(creds, l->key_option, json_string(key));
        if (l->secret_option && setting(set, l->secret_at)) {
            json_object_set_new(creds, l->secret_option,
                                json_string(setting(set, l->secret_at)));
        }
        json_array_append_new(list, json_pack(
            "{s:s,s:s,s:s,s:s,s:o,s:o}", "name", l->name, "kind", l->kind,
            "protocol", l->protocol, "base_url", apr_pstrcat(req->pool, root, l->path, NULL),
            "base_urls", bases, "test_credentials", creds));
    }
    trv_ok_document(req, resp, 200, list);
}

const trv_route sbx_supplier_list_routes[] = {
    {"GET", "/sandbox/suppliers", list_suppliers, TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};
