/* Signed tokens the hotel API hands out and takes back (search cursors,
 * offer references): a payload bound to the organization and to its
 * purpose by an HMAC-SHA256 under the server's secret key
 * (TravelSecretKeyFile), base64url so it can sit in a URL. Nothing is
 * stored: any child of any node can check one; an edited token, another
 * organization's, or one made for another purpose (a cursor given as an
 * offer reference) is refused. Payloads are readable by whoever holds the
 * token: they carry nothing secret. */
#ifndef TRV_HOTEL_SEAL_H
#define TRV_HOTEL_SEAL_H

#include <apr_pools.h>

/* key: 32 bytes, or NULL (then a fixed all-zero key: configure one). */
char *trv_hotel_seal(apr_pool_t *p, const unsigned char *key, const char *org_id,
                     const char *purpose, const char *payload);

/* APR_SUCCESS with *payload, or APR_EINVAL (malformed, not signed for this
 * organization and purpose). */
apr_status_t trv_hotel_unseal(apr_pool_t *p, const unsigned char *key, const char *org_id,
                              const char *purpose, const char *text, char **payload);

#endif
