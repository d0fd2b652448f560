/* The offer_reference the API hands out wraps the supplier's own reference
 * with what the gateway must know at bags and prebook without asking
 * anyone: which supplier priced it, the party it was priced for and when it
 * expires. It is bound to the organization that searched by an HMAC under
 * the server's secret key (TravelSecretKeyFile), so another organization's
 * reference, or an edited one, is refused. URL-safe (base64url), so it can
 * be a path segment. */
#ifndef TRV_FLIGHT_OFFER_REF_H
#define TRV_FLIGHT_OFFER_REF_H

#include <apr_pools.h>
#include <apr_time.h>

typedef struct trv_foffer_ref {
    const char *supplier;   /* SUPPLIER_A, SUPPLIER_B */
    const char *ref;        /* the supplier's offer reference */
    int adults, children, infants;
    apr_time_t expires_at;  /* 0 when the supplier gave none */
} trv_foffer_ref;

/* key: 32 bytes, or NULL (then references are not bound; configure a key). */
char *trv_foffer_ref_encode(apr_pool_t *p, const unsigned char *key,
                            const char *org_id, const trv_foffer_ref *o);

/* APR_SUCCESS, or APR_EINVAL with *why (malformed, not this organization's). */
apr_status_t trv_foffer_ref_decode(apr_pool_t *p, const unsigned char *key,
                                   const char *org_id, const char *text,
                                   trv_foffer_ref *out, const char **why);

#endif
