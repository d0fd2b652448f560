/* How a part of the service outside a domain (the dashboard) reads that
 * domain's bookings: the domain registers its access (trv_domain's
 * bookings, registry.h) and answers with the documents its own API
 * renders, read through its own store, so the organization scope, the
 * filters and the statuses a reader sees (EXPIRED past an offer's expiry)
 * are the domain's and nobody else's. Nobody outside includes the
 * domain's store or rendering headers. */
#ifndef TRV_BOOKING_ACCESS_H
#define TRV_BOOKING_ACCESS_H

#include "db.h"

#include <apr_tables.h>
#include <jansson.h>

typedef struct trv_booking_query {
    const char *org_id;
    const char *status;         /* as a reader sees it; NULL: any */
    const char *supplier;       /* NULL: any */
    const char *created_from;   /* RFC 3339, inclusive; NULL: open */
    const char *created_to;     /* RFC 3339, inclusive; NULL: open */
    long limit, offset;         /* newest first */
} trv_booking_query;

/* One page of the organization's bookings as GET /v1/<domain>/bookings
 * renders each (const json_t *, pool-bound) in *docs, *total every match;
 * APR_EGENERAL when the database failed. */
typedef apr_status_t trv_booking_list_fn(trv_dbc *c, apr_pool_t *p, const trv_booking_query *q,
                                         apr_array_header_t **docs, long *total);

/* One booking of the organization, whichever of its users made it, as GET
 * /v1/<domain>/bookings/{id} renders it (pool-bound); APR_NOTFOUND when
 * the organization has no such booking, APR_EGENERAL when the database
 * failed. */
typedef apr_status_t trv_booking_get_fn(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                        const char *id, const json_t **doc);

/* What a domain answers; either may be NULL (not offered). */
typedef struct trv_booking_access {
    trv_booking_list_fn *list;
    trv_booking_get_fn *get;
} trv_booking_access;

#endif
