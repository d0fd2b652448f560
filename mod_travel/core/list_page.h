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
#include "errors.h"
#include "transit.h"

#include <apr_hash.h>
#include <apr_pools.h>
#include <apr_tables.h>
#include <jansson.h>
#include <pthread.h>
#include <stddef.h>

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

/* ---- one domain's list query ----
 *
 * What a domain's list differs in is data: its owner condition, how a
 * status filter reads (READY and EXPIRED depend on the clock), its
 * optional exact filters in placeholder order, its totals. The rest (which
 * variant a filter makes, the arguments in placeholder order, the page
 * read row by row with the bookings that need rendering loaded whole) is
 * here. */

/* How a status filter reads: none, a stored status, READY_FOR_COMPLETE
 * (not past its expiry), EXPIRED (stored, or READY past its expiry). */
enum { TRV_LIST_ANY, TRV_LIST_PLAIN, TRV_LIST_READY, TRV_LIST_EXPIRED, TRV_LIST_KINDS };

/* The most optional filters a query may have. */
#define TRV_LIST_MAX_FILTERS 4

/* Where a domain's booking struct keeps what a listed booking with a
 * stored rendering needs (offsetof; each a const char *). */
typedef struct trv_list_stub {
    size_t size, id, revision, list_doc;
} trv_list_stub;

typedef struct trv_list_page_query {
    const trv_list_shape *shape;
    trv_list_stmts *variants;      /* n: TRV_LIST_KINDS << nfilters * TRV_LIST_SORTS * 4 */
    const char *owner_sql;         /* "b.org_id = %s" (+ " AND b.user_id = %s") */
    int nowners;                   /* its placeholders */
    const char *status_sql[TRV_LIST_KINDS]; /* the page's condition per kind */
    int nfilters;
    /* " AND b.supplier = %s", ...; the first is the supplier: the only one
     * the all-time counts (plain total) take */
    const char *filter_sql[TRV_LIST_MAX_FILTERS];
    /* The total's SQL: the all-time counts [status PLAIN][supplier given]
     * (placeholders: owners, status if PLAIN, supplier if given) for the
     * usual list, else the per-day function (owners, status, every filter,
     * NULL ones too). */
    const char *counts[2][2];
    const char *per_day;
    /* ---- what trv_list_page_read reads besides (below) ---- */
    /* Selects (page, n, total) of the owners' kept page where it is
     * current (TRV_LIST_KEPT_STMT). */
    const trv_stmt *kept;
    /* Selects doc, one booking's stored GET rendering where it is current,
     * by (id, owners...) (TRV_LIST_PAGE_STATEMENTS' &stored). */
    const trv_stmt *stored;
    /* Keep the renderings and the owners' usual page (TRV_LIST_PAGE_STATEMENTS'
     * &keep_docs, &keep_head; trv_list_page_keep_docs, _keep_head). */
    const trv_stmt *keep_docs, *keep_head;
    trv_list_stub stub;            /* where a listed booking keeps its rendering */
    /* The bookings that need rendering, whole: ids is a text[] literal ->
     * hash by id. */
    apr_status_t (*load_many)(trv_dbc *c, apr_pool_t *p, const char *ids, apr_hash_t **out);
    /* How a status filter reads: READY_FOR_COMPLETE and EXPIRED depend on
     * the clock (trv_list_kind); the filter was validated against these
     * statuses and stays text for the SQL. */
    const trv_transit_table *statuses;
    int ready, expired;
    /* The request's filters in filter_sql's order: TRV_LIST_FILTER(field)
     * of each (a const char * of trv_list_filter). */
    size_t filters[TRV_LIST_MAX_FILTERS];
} trv_list_page_query;

/* A filter of the request (trv_list_filter, below), as a query names it. */
#define TRV_LIST_FILTER(field) offsetof(trv_list_filter, field)

/* How many statements a query with nfilters optional filters may make:
 * kinds x filters present x sorts x default limit or not x joined or not. */
#define TRV_LIST_VARIANTS(nfilters) \
    (TRV_LIST_KINDS * (1 << (nfilters)) * TRV_LIST_SORTS * 2 * 2)

/* What a domain's list query names, defined once: the cache of its
 * variants (&variants; labels prefix + number), its tables (&shape: its
 * bookings, their stored renderings, the column READY_FOR_COMPLETE expires
 * at), its kept page's statement (&kept, labelled prefix "head") and its
 * one booking's stored rendering (&stored, prefix "doc": none is current
 * for a READY_FOR_COMPLETE booking past its expiry, which reads as
 * EXPIRED before the expiry job stores it); what keeps them: &keep_docs
 * (prefix "keep_docs": renderings of one revision, both together, never
 * over a later revision's, nor over a row without its GET rendering where
 * docs_also is " OR <docs>.doc IS NULL"; "" where none lacks it) and
 * &keep_head (prefix "keep_head": keep_head_sql, the owners' usual page
 * built again, e.g. "SELECT x_list_head_keep(%s)" with owner_sql's
 * placeholders). */
#define TRV_LIST_PAGE_STATEMENTS(prefix, nfilters, table, docs, expires, heads, owner_sql, \
                                 docs_also, keep_head_sql) \
    static const trv_stmt *made[TRV_LIST_VARIANTS(nfilters)]; \
    static trv_list_stmts variants = {prefix, TRV_LIST_VARIANTS(nfilters), made, \
                                      PTHREAD_MUTEX_INITIALIZER}; \
    static const trv_list_shape shape = {table, docs, expires}; \
    static const trv_stmt kept = TRV_LIST_KEPT_STMT(prefix "head", heads, owner_sql); \
    static const trv_stmt stored = {prefix "doc", \
        "SELECT d.doc FROM " table " b JOIN " docs " d ON d.booking_id = b.id " \
        "AND d.revision = b.revision AND NOT (b.status = 'READY_FOR_COMPLETE' " \
        "AND b." expires " <= trv_now()) WHERE b.id = %s AND " owner_sql}; \
    static const trv_stmt keep_docs = {prefix "keep_docs", \
        "INSERT INTO " docs " (booking_id, revision, list_doc, doc) " \
        "SELECT x.booking_id, x.revision, x.list_doc, x.doc " \
        "FROM jsonb_to_recordset(%s::jsonb) " \
        "AS x(booking_id text, revision bigint, list_doc text, doc text) " \
        "ON CONFLICT (booking_id) DO UPDATE SET revision = EXCLUDED.revision, " \
        "list_doc = EXCLUDED.list_doc, doc = EXCLUDED.doc " \
        "WHERE " docs ".revision < EXCLUDED.revision" docs_also}; \
    static const trv_stmt keep_head = {prefix "keep_head", keep_head_sql}

/* Keeps rendered documents: docs is [{booking_id, revision, list_doc,
 * doc}] (the list's and GET's renderings of one revision). A document never
 * replaces one of a later revision. */
apr_status_t trv_list_page_keep_docs(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                     const json_t *docs);
/* Builds and keeps the owners' usual page from the stored renderings,
 * unless one of them is behind or the owners' bookings changed meanwhile.
 * user_id: where the query's owners have it (nowners 2). */
apr_status_t trv_list_page_keep_head(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                     const char *org_id, const char *user_id);

/* A domain store's typed <pfx>_keep_docs(c, p, docs) and
 * <pfx>_keep_head(c, p, org_id user_params) over its list query q (what
 * each does: trv_list_page_keep_docs, _keep_head), declared or defined as
 * `how` says (lifecycle/moves.h's TRV_LIFECYCLE_DECLARED, _DEFINED);
 * user_params, user_arg as TRV_LIFECYCLE_MOVES_TYPED's. */
#define TRV_LIST_PAGE_KEEP_TYPED(pfx, q, how, user_params, user_arg) \
    apr_status_t pfx##_keep_docs(trv_dbc *c, apr_pool_t *p, const json_t *docs) \
    how(return trv_list_page_keep_docs(&(q), c, p, docs);) \
    apr_status_t pfx##_keep_head(trv_dbc *c, apr_pool_t *p, const char *org_id user_params) \
    how(return trv_list_page_keep_head(&(q), c, p, org_id, user_arg);)

/* A query's status_sql: READY_FOR_COMPLETE reads as such while `ready`
 * (its expiry not passed: a condition on b), EXPIRED as stored or READY
 * past its expiry column `expires`. */
#define TRV_LIST_PAGE_STATUS_SQL(expires, ready) \
    {"", " AND b.status = %s", " AND b.status = 'READY_FOR_COMPLETE' AND " ready, \
     " AND (b.status = 'EXPIRED' OR (b.status = 'READY_FOR_COMPLETE' " \
     "AND b." expires " <= trv_now()))"}

/* A query's counts: sums over its all-time counts table `totals` (n by
 * owners, status and supplier) aliased c, owners its owner condition on c
 * ("c.org_id = %s" ...). */
#define TRV_LIST_PAGE_COUNTS_SUM(totals, owners) \
    "(SELECT coalesce(sum(c.n), 0) FROM " totals " c WHERE " owners
#define TRV_LIST_PAGE_COUNTS(totals, owners) \
    {{TRV_LIST_PAGE_COUNTS_SUM(totals, owners) ")", \
      TRV_LIST_PAGE_COUNTS_SUM(totals, owners) " AND c.supplier = %s)"}, \
     {TRV_LIST_PAGE_COUNTS_SUM(totals, owners) " AND c.status = %s)", \
      TRV_LIST_PAGE_COUNTS_SUM(totals, owners) " AND c.status = %s AND c.supplier = %s)"}}

/* The kept usual page's statement (sql/047, 143) of heads, a table of
 * (owners..., page, n, total, page_gen, gen, valid_until) aliased b;
 * owner_sql as the query's. */
#define TRV_LIST_KEPT_STMT(label, heads, owner_sql) \
    {label, "SELECT b.page, b.n, b.total FROM " heads " b WHERE " owner_sql " " \
     "AND b.page_gen = b.gen AND (b.valid_until IS NULL OR b.valid_until > trv_now())"}

/* The kind of a status filter: status NULL, else ready/expired as the
 * domain parsed it, else PLAIN (compared as text). */
int trv_list_kind(const char *status, int ready, int expired);

/* Variant v's statement text (malloc'd), for a domain's build callback. */
char *trv_list_page_query_sql(const trv_list_page_query *q, int v);

/* The request a domain's filter makes. */
typedef struct trv_list_ask {
    const char *owners[2];
    const char *status;
    int kind;                      /* of status (trv_list_kind) */
    const char *filters[TRV_LIST_MAX_FILTERS]; /* NULL: absent */
    int sort;                      /* 0..TRV_LIST_SORTS-1 (above) */
    long limit, offset;
} trv_list_ask;

/* The most arguments a request makes. */
#define TRV_LIST_MAX_ARGS (2 * (2 + 1 + TRV_LIST_MAX_FILTERS) + 2)

/* The variant a asks for and its arguments in placeholder order (the
 * total's, then the page's) into args; *nargs how many. */
int trv_list_page_query_args(apr_pool_t *p, const trv_list_page_query *q, const trv_list_ask *a,
                        int joined, const char **args, int *nargs);

/* Runs the statement a asks for (joined or row by row), its arguments in
 * placeholder order (the total's, then the page's), and reads the total;
 * build: the caller's callback making variant v (trv_list_page_query_sql),
 * or NULL: q's own. */
apr_status_t trv_list_page_query_select(trv_dbc *c, apr_pool_t *p, const trv_list_page_query *q,
                                   char *(*build)(int v), const trv_list_ask *a, int joined,
                                   trv_rows **rows, long *total);

/* The joined statement a asks for: *docs and *n as trv_list_joined's. */
apr_status_t trv_list_page_query_joined(trv_dbc *c, apr_pool_t *p, const trv_list_page_query *q,
                                   char *(*build)(int v), const trv_list_ask *a,
                                   const char **docs, long *n, long *total);


/* The statement a asks for read row by row, as an array of the domain's
 * booking pointers in page order: a stub (id, revision, list_doc) for each
 * booking with a stored rendering, the others loaded whole by load_many
 * (ids as a text[] literal -> hash by id); one gone between the two reads
 * (a prebook abandoned) is left out. */
apr_status_t trv_list_page_query_page(trv_dbc *c, apr_pool_t *p, const trv_list_page_query *q,
                                 char *(*build)(int v), const trv_list_ask *a,
                                 const trv_list_stub *stub,
                                 apr_status_t (*load_many)(trv_dbc *c, apr_pool_t *p,
                                                           const char *ids, apr_hash_t **out),
                                 apr_array_header_t **page, long *total);

/* ---- the request ---- */

/* A list request's filters, as GET .../bookings' query string gives them
 * (trv_list_filter_read), for every domain's list; the owner is the
 * caller's. */
typedef struct trv_list_filter {
    const char *org_id;
    const char *user_id;            /* NULL: the organization's (hotels) */
    const char *status;             /* NULL: any (as a reader sees it) */
    const char *supplier;           /* NULL: any */
    const char *supplier_reference; /* NULL: any; exact match (flights) */
    const char *created_from;       /* RFC 3339, inclusive; NULL: open */
    const char *created_to;         /* RFC 3339, inclusive; NULL: open */
    int sort_by_total;              /* else created_at */
    int ascending;
    long limit;
    long offset;
} trv_list_filter;

/* Reads limit, offset, status (one of statuses), supplier (one of
 * suppliers), supplier_reference (with_reference only), created_from,
 * created_to, sort_by and sort_order from query into f, the owner left
 * NULL; every problem goes to errs, an unknown parameter too. */
void trv_list_filter_read(apr_pool_t *p, apr_table_t *query, const char *const *statuses,
                          const char *const *suppliers, int with_reference,
                          trv_list_filter *f, trv_errs *errs);

/* 1 when f asks for the usual page (no filter, newest first, the default
 * size, from the start): the page kept whole (trv_list_head). */
int trv_list_filter_usual(const trv_list_filter *f);

/* {"pagination":{limit, offset, has_more, total}} */
json_t *trv_list_meta(long limit, long offset, long n, long total);

/* ---- one domain's list, as its GET .../bookings reads it ----
 *
 * The reads every domain's list makes, in this order: the usual page as
 * kept whole, else the page joined by PostgreSQL, else row by row for
 * rendering. What the domain gives is data (its query above); how a
 * request becomes a trv_list_ask and which statement serves it is here,
 * once. */

/* The page f asks for, the cheapest way it can be had: the usual page as
 * kept whole, else the page joined by PostgreSQL: *docs (as
 * trv_list_joined's) and *n; else (*docs NULL) *page row by row
 * (trv_list_page_query_page). *total counts every match. f's owners: the
 * organization, and the user where q has two. */
apr_status_t trv_list_page_read(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                const trv_list_filter *f, const char **docs, long *n,
                                apr_array_header_t **page, long *total);
/* The page f asks for row by row only (a reader that renders its own,
 * the dashboard's). */
apr_status_t trv_list_page_rows(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                const trv_list_filter *f, apr_array_header_t **page,
                                long *total);

/* One booking's stored GET rendering in the owners' scope (user_id: where
 * q has two owners): *doc NULL when the booking is not theirs, has none
 * stored for its revision, or time has changed it since. */
apr_status_t trv_list_page_doc(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                               const char *org_id, const char *user_id, const char *id,
                               const char **doc);

#endif
