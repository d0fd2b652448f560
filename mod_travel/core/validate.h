/* Checks for query parameters and JSON fields. Each records a problem in
 * errs (field + reason) and returns a usable default, so a handler checks
 * everything and answers one 422 listing every problem. */
#ifndef TRV_VALIDATE_H
#define TRV_VALIDATE_H

#include "errors.h"

#include <apr_tables.h>
#include <apr_time.h>
#include <jansson.h>

/* Refuses query parameters not in `known` (NULL-terminated) and repeated ones. */
void trv_query_known(apr_table_t *q, const char *const *known, trv_errs *errs);
long trv_query_int(apr_table_t *q, const char *name, long dflt, long min,
                   long max, trv_errs *errs);
/* One of `values` (NULL-terminated); dflt when absent. */
const char *trv_query_enum(apr_table_t *q, const char *name,
                           const char *const *values, const char *dflt,
                           trv_errs *errs);
/* A string of min..max characters; NULL when absent. */
const char *trv_query_str(apr_table_t *q, const char *name, size_t min,
                          size_t max, trv_errs *errs);
/* "true" / "false"; dflt when absent. */
int trv_query_bool(apr_table_t *q, const char *name, int dflt, trv_errs *errs);
/* A date (YYYY-MM-DD) or an RFC 3339 timestamp. A date is its midnight UTC,
 * or with end_of_day its last millisecond. Returns 0 when absent. */
int trv_query_instant(apr_table_t *q, const char *name, int end_of_day,
                      apr_time_t *out, trv_errs *errs);

/* JSON fields. `field` is the full path used in details ("contact.email"). */
const char *trv_json_req_str(const json_t *obj, const char *key,
                             const char *field, int required, size_t min,
                             size_t max, trv_errs *errs);
/* Unknown keys of obj (not in known, NULL-terminated) are refused. */
void trv_json_known(const json_t *obj, const char *prefix,
                    const char *const *known, trv_errs *errs);

/* Printable ASCII (0x20..0x7e), length min..max. */
int trv_printable(const char *s, size_t min, size_t max);
/* An IPv4 or IPv6 address literal and nothing else (no port, no list, no
 * zone); NULL is not. */
int trv_ip_literal(const char *s);

#endif
