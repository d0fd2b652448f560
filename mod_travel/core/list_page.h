/* A page of bookings read from their stored renderings (GET
 * /v1/flight/bookings, GET /v1/hotel/bookings): the statement shapes, the
 * cache of statements made per filter combination, and reading a page
 * that PostgreSQL joined into one text. The domains say which table,
 * which filters and how the total is counted; the rest is here, once.
 *
 * A statement yields either
 *  - joined: ONE row (total, n, misses, docs): the page's stored list
 *    renderings joined with ',' in page order (the inside of the JSON
 *    array, byte for byte), how many bookings the page has and how many
 *    of them have no rendering for their revision; or
 *  - row by row: (total, id, revision, list_doc) per booking, list_doc
 *    NULL where it must be rendered; an empty page is one row with only
 *    the total.
 * Both are prepared statements; the total's placeholders come first, then
 * the page's conditions', then (unless the limit is the default) the
 * limit, then the offset. */
#ifndef TRV_CORE_LIST_PAGE_H
#define TRV_CORE_LIST_PAGE_H

#include "db.h"

#include <apr_pools.h>
#include <jansson.h>
#include <pthread.h>

/* The default page size, written into its statements: PostgreSQL plans a
 * LIMIT it does not know as a tenth of the matching rows, which made the
 * generic plan of a filtered page look dearer than one planned for the
 * values, so every execution was planned again (0.6 ms of planning for
 * 0.35 ms of work at a million bookings, docs/performance.md). With the
 * limit known, the cached generic plan is taken. Other sizes stay a
 * parameter. */
#define TRV_LIST_DEFAULT_LIMIT 20

/* Sorts: 0 created_at desc, 1 created_at asc, 2 total_amount desc,
 * 3 total_amount asc (unpriced last both ways); ties by id. */
#define TRV_LIST_SORTS 4

typedef struct trv_list_shape {
    const char *table;   /* the bookings: id, org_id, revision, created_at,
                          * total_amount, status */
    const char *docs;    /* booking_id, revision, list_doc */
    const char *expires; /* READY_FOR_COMPLETE past it reads as EXPIRED: no
                          * stored rendering applies */
} trv_list_shape;

/* The statement's text (malloc'd; NULL when out of memory). total: an SQL
 * expression for the exact total; where: the page's conditions on alias b
 * (its placeholders in apr_dbd syntax). */
char *trv_list_sql(const trv_list_shape *s, const char *total, const char *where, int sort,
                   int default_limit, int joined);

/* Statements made on first use and kept for the process, one per variant
 * number below n; labels are prefix + the number. */
typedef struct trv_list_stmts {
    const char *prefix;
    int n;
    const trv_stmt **made;
    pthread_mutex_t lock;
} trv_list_stmts;

/* build(v) gives the text (malloc'd) of variant v; called once, under
 * the lock. NULL when out of memory. */
const trv_stmt *trv_list_stmt(trv_list_stmts *s, int v, char *(*build)(int v));

/* Runs st and reads the total from its first row. */
apr_status_t trv_list_select(trv_dbc *c, apr_pool_t *p, const trv_stmt *st, int nargs,
                             const char *const *args, trv_rows **rows, long *total);

/* From a joined statement's row: *docs the joined renderings, or NULL when
 * a booking of the page has none (the caller reads the page row by row);
 * *n the page's count. */
void trv_list_joined(const trv_rows *rows, const char **docs, long *n);

/* The usual page kept whole (sql/047, 143): st selects (page, n, total)
 * of the owner's kept page where it is current; *docs as
 * trv_list_joined's, NULL when there is none. */
apr_status_t trv_list_head(trv_dbc *c, apr_pool_t *p, const trv_stmt *st, int nargs,
                           const char *const *args, const char **docs, long *n, long *total);

/* {"pagination":{limit, offset, has_more, total}} */
json_t *trv_list_meta(long limit, long offset, long n, long total);

#endif
