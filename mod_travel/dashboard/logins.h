/* Dashboard logins (sql/140): the login httpd authenticated (REMOTE_USER)
 * acts as a user of one organization. Granted and revoked by travelctl,
 * read by the dashboard on every request. */
#ifndef TRV_DASHBOARD_LOGINS_H
#define TRV_DASHBOARD_LOGINS_H

#include "core/db.h"

typedef struct trv_dash_who {
    const char *login;
    const char *org_id;
    const char *org_name;
    const char *user_id;
    const char *user_name;
} trv_dash_who;

/* Maps login to a user of org_id named after the login (made if new);
 * a login granted before moves to this organization. APR_ENOENT: no such
 * organization. */
apr_status_t trv_dash_grant(trv_dbc *c, apr_pool_t *p, const char *org_id,
                            const char *login, const char **user_id);
/* APR_ENOENT when the login had no grant. */
apr_status_t trv_dash_revoke(trv_dbc *c, apr_pool_t *p, const char *login);
/* APR_SUCCESS and *who, APR_ENOENT without a grant, APR_EGENERAL when the
 * database failed. */
apr_status_t trv_dash_lookup(trv_dbc *c, apr_pool_t *p, const char *login,
                             trv_dash_who *who);

#endif
