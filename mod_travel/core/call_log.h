/* The log of a booking's supplier calls (sql/200): the adapters' common
 * call paths (flight/suppliers/wire.c, hotel/suppliers/wire.c) write one row
 * after each call made for a booking, on a connection of its own
 * borrowed for that insert (no connection is held across the HTTP call).
 * A row that cannot be written is only logged at debug level: the booking
 * goes on without it. */
#ifndef TRV_CALL_LOG_H
#define TRV_CALL_LOG_H

#include "env.h"
#include "upstream.h"

typedef struct trv_call_log_entry {
    const char *org_id, *booking_id;
    const char *family;            /* "flight", "hotel" */
    const char *supplier;          /* the upstream's name */
    const char *method, *path;     /* the query of path is not kept */
    const char *request_id;
    const trv_up_result *res;      /* outcome, HTTP status, elapsed */
} trv_call_log_entry;

void trv_call_log_add(trv_env *env, apr_pool_t *p, const trv_call_log_entry *e);

#endif
