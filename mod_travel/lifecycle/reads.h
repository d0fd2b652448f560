/* The two reads every booking domain answers the same way:
 *
 *   GET .../bookings       the filter read and checked (422), then the
 *                          page the cheapest way it can be had
 *                          (trv_list_page_read): the usual page as kept
 *                          whole, the page joined by PostgreSQL, or row by
 *                          row with a booking that has no stored rendering
 *                          for its revision rendered for this answer only
 *   GET .../bookings/{id}  the stored rendering of the current revision
 *                          (one query), else the booking read in the
 *                          request's scope (404 outside it) and rendered
 *                          for this answer only
 *
 * Reads write nothing. The domain gives its list query (core/list_page.h),
 * its filter's words, its reader (core/api.h) and its two renderings. */
#ifndef TRV_LIFECYCLE_READS_H
#define TRV_LIFECYCLE_READS_H

#include "core/api.h"
#include "core/list_page.h"

typedef struct trv_lifecycle_reads {
    const trv_list_page_query *list;   /* its owners: the organization (and user) */
    const char *const *statuses;       /* the status filter's values */
    /* The configured suppliers' wire names, NULL-terminated (the supplier
     * filter's values). */
    const char *const *(*suppliers)(const trv_env *env, apr_pool_t *p);
    int with_reference;                /* the supplier_reference filter */
    const char *listing, *reading;     /* "listing flight bookings": log lines */
    const trv_api_booking_reader *reader;
    /* A booking as the API shows it (JSON text), in the list (full 0) or
     * alone (full 1): for one that has no rendering stored for its
     * revision, as its stored ones are made. */
    const char *(*text)(apr_pool_t *p, const void *b, int full);
} trv_lifecycle_reads;

/* GET .../bookings; a failure to open a connection logged under
 * logno_open, a failed read under logno_read. */
void trv_lifecycle_reads_list(trv_req *req, trv_resp *resp, const trv_lifecycle_reads *r,
                              int logno_open, int logno_read);
/* GET .../bookings/{id} (the route's parameter "id"), the same way. */
void trv_lifecycle_reads_get(trv_req *req, trv_resp *resp, const trv_lifecycle_reads *r,
                             int logno_open, int logno_read);

#endif
