/* A database for the targets whose handlers read a table before they get
 * to the part worth fuzzing (the sandbox's hotel rates read the price
 * control's factors first). Its connections answer the SELECTs named in
 * the source's list with no rows, and fail every other statement the way
 * an unavailable database does (so the handler answers 503). No libpq:
 * tests/fuzz/fake_db.c wraps the library's trv_db_* entry points at link
 * time (-Wl,--wrap, as no_dns.c does for the resolver) and passes every
 * connection that is not one of these on to the real functions. */
#ifndef TRV_FUZZ_FAKE_DB_H
#define TRV_FUZZ_FAKE_DB_H

#include "core/db.h"

/* A source whose SELECTs labelled one of empty_labels (NULL-terminated,
 * static) return no rows. */
trv_dbsrc *fz_db_make(apr_pool_t *p, const char *const *empty_labels);

#endif
