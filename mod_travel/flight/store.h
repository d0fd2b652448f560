/* Flight bookings in PostgreSQL: every statement the flight code runs. */
#ifndef TRV_FLIGHT_STORE_H
#define TRV_FLIGHT_STORE_H

#include "core/db.h"

#include <apr_time.h>

typedef struct trv_flight_filter {
    const char *org_id;
    const char *user_id;
    const char *status;             /* NULL: any */
    const char *supplier;           /* NULL: any */
    const char *supplier_reference; /* NULL: any; exact match */
    const char *created_from;       /* RFC 3339, inclusive; NULL: open */
    const char *created_to;         /* RFC 3339, inclusive; NULL: open */
    int sort_by_total;              /* else created_at */
    int ascending;
    long limit;
    long offset;
} trv_flight_filter;

/* One page of bookings; *total is the count of every match. */
apr_status_t trv_flight_store_list(trv_dbc *c, apr_pool_t *p,
                                   const trv_flight_filter *f, trv_rows **page,
                                   long *total);

/* The booking if it belongs to this organization and user: 404 otherwise. */
apr_status_t trv_flight_store_get(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                  const char *user_id, const char *id, trv_rows **row);

#endif
