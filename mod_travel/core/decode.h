/* The one decoding rule for what arrives in the request line: the query
 * string is split into name=value pairs and percent-decoded here, the path
 * (decoded by httpd) is checked here, and both must be well-formed UTF-8
 * without control characters. A pair or a path that breaks the rule is a
 * detail of a 422, never dropped and never handed on to PostgreSQL (which
 * refuses invalid UTF-8 with an error). */
#ifndef TRV_DECODE_H
#define TRV_DECODE_H

#include "errors.h"
#include "utf8.h"

#include <apr_tables.h>


/* Decodes args (the raw query string, may be NULL) into t: pairs separated
 * by '&', name and value split at the first '=', '+' is a space, %XX a
 * byte. Empty pieces ("a=1&&b=2") are skipped. Each pair that cannot be
 * decoded adds a detail to errs and is not added to t. */
void trv_query_decode(apr_pool_t *p, const char *args, apr_table_t *t,
                      trv_errs *errs);
/* Checks a decoded request path; adds a detail for field "path" and
 * returns 0 when it breaks the rule. */
int trv_path_check(const char *path, trv_errs *errs);

#endif
