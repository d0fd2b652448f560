/* Organizations, users and API keys: creation (travelctl) and the lookup
 * every request makes. A key is shown once; only its SHA-256 is stored. */
#ifndef TRV_ACCOUNT_KEYS_H
#define TRV_ACCOUNT_KEYS_H

#include "core/db.h"

#include <apr_pools.h>
#include <apr_tables.h>

typedef struct trv_principal {
    const char *org_id;
    const char *user_id;
    const char *key_id;
    const char *mode;      /* "live" or "test" */
    apr_time_t expires_at; /* when the key stops working; 0: never */
} trv_principal;

/* The API key a request carries: its x-api-key header, or else the token
 * of an `Authorization: Bearer <key>` header (RFC 6750: the scheme in any
 * case, one or more spaces); x-api-key wins when both are sent. NULL when
 * neither carries anything. */
const char *trv_key_of_headers(const apr_table_t *headers);

/* Shape check before any lookup: tk_live_ / tk_test_ and printable. */
int trv_key_well_formed(const char *key);

/* APR_SUCCESS and *who, APR_ENOENT for an unknown, revoked or expired key, or
 * APR_EGENERAL when the database failed (c->unavailable says if it is down). */
apr_status_t trv_key_authenticate(trv_dbc *c, apr_pool_t *p, const char *key,
                                  trv_principal *who);

apr_status_t trv_org_create(trv_dbc *c, apr_pool_t *p, const char *name,
                            const char **org_id);
/* Creates the user if new; *key is the only copy of the key. */
apr_status_t trv_key_create(trv_dbc *c, apr_pool_t *p, const char *org_id,
                            const char *user_name, int live, const char **key_id,
                            const char **key);
/* The same, expiring at expires_at (an RFC 3339 instant; NULL: never):
 * from then on the key authenticates no more. */
apr_status_t trv_key_create_expiring(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                     const char *user_name, int live,
                                     const char *expires_at, const char **key_id,
                                     const char **key);
/* APR_ENOENT when no such key. */
apr_status_t trv_key_revoke(trv_dbc *c, apr_pool_t *p, const char *key_id);
/* The user called name in org_id, made if new (keys and dashboard logins
 * act as users), inside the caller's transaction: APR_ENOENT when there is
 * no such organization, APR_EGENERAL when the database failed. */
apr_status_t trv_org_user(trv_dbc *c, apr_pool_t *p, const char *org_id, const char *name,
                          const char **user_id);
/* The same, for a key of org_id only (the dashboard): APR_ENOENT for a key
 * of another organization, as for no key. */
apr_status_t trv_key_revoke_in_org(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                   const char *key_id);
apr_status_t trv_key_list(trv_dbc *c, apr_pool_t *p, const char *org_id,
                          trv_rows **rows);
/* Every organization: id, name, created_at; oldest first. */
apr_status_t trv_org_list(trv_dbc *c, apr_pool_t *p, trv_rows **rows);

#endif
