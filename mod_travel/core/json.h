/* Pool-bound Jansson: a JSON value handed to trv_json_bind() lives until its
 * pool is cleared, so request and job code never calls json_decref itself. */
#ifndef TRV_JSON_H
#define TRV_JSON_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <jansson.h>

/* Flags every serialization uses: compact, and 15 significant digits so a
 * double made from an exact decimal prints back as that decimal. */
#define TRV_JSON_DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

json_t *trv_json_bind(apr_pool_t *p, json_t *v);
char *trv_json_dump(apr_pool_t *p, const json_t *v);
/* Parses buf into a pool-bound value; on failure returns NULL and a message. */
json_t *trv_json_parse(apr_pool_t *p, const char *buf, apr_size_t len,
                       const char **error);
struct trv_rows;

/* The JSON text of column col of row i of a result, parsed and bound to p;
 * NULL for SQL NULL, JSON null or unreadable text. */
json_t *trv_json_column(apr_pool_t *p, const struct trv_rows *r, int i, const char *col);

/* The shape a request body may have. Jansson builds every value of a body
 * on the heap before anyone looks at it, so a 1 MB body of tiny members
 * would cost tens of megabytes per request (and glibc keeps what it once
 * held): the body's text is counted first, in one pass without allocating,
 * and refused when it goes beyond these. */
#define TRV_JSON_MAX_DEPTH 32      /* nested objects and arrays */
#define TRV_JSON_MAX_MEMBERS 256   /* members of one object */
#define TRV_JSON_MAX_ITEMS 1000    /* items of one array */
#define TRV_JSON_MAX_VALUES 10000  /* values in the whole body */
/* NULL when buf[0..len) stays within the limits, else the reason (a
 * sentence for the error detail). Text that is not JSON passes: the parser
 * refuses it. */
const char *trv_json_shape_check(const char *buf, apr_size_t len);

/* Field readers that return NULL / default for absent or mistyped fields. */
const char *trv_json_str(const json_t *obj, const char *key);
json_t *trv_json_strn(const char *s); /* json_string, or json_null for NULL */
/* [{name, value}] of an HTTP header table (NULL: []), in its order: the
 * shape Stripe's forwarding requests give headers. A new reference. */
json_t *trv_json_headers(const apr_table_t *headers);

#endif
