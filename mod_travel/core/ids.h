/* Identifiers: "<prefix>_<UUIDv7>", time-ordered so ids sort by creation. */
#ifndef TRV_IDS_H
#define TRV_IDS_H

#include <apr_pools.h>
#include <apr_time.h>

#define TRV_ID_MAX_LEN 128

/* "bkg_0193f1c4-7a2e-7c3d-9a1b-2f0c1d2e3f40" for prefix "bkg". */
char *trv_id_new(apr_pool_t *p, const char *prefix);
/* The UUIDv7 text for a given time (exposed for tests of ordering). */
char *trv_uuid7_at(apr_pool_t *p, apr_time_t now);

/* 1 when id is "<prefix>_" followed by [A-Za-z0-9-]+ and at most 128 chars:
 * the service document's path pattern ^prefix_[a-zA-Z0-9-]+$. */
int trv_id_valid(const char *id, const char *prefix);

/* n random bytes from OpenSSL's CSPRNG; APR_EGENERAL on failure. */
apr_status_t trv_random_bytes(unsigned char *buf, apr_size_t n);
/* Random text over [A-Za-z0-9] carrying at least `bytes` bytes of entropy. */
char *trv_random_token(apr_pool_t *p, apr_size_t bytes);

#endif
