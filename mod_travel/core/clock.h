/* Time on the wire: UTC ISO 8601 with milliseconds and Z for instants,
 * YYYY-MM-DD for dates. */
#ifndef TRV_CLOCK_H
#define TRV_CLOCK_H

#include <apr_pools.h>
#include <apr_time.h>

/* "2026-11-22T22:08:46.123Z" */
char *trv_time_format(apr_pool_t *p, apr_time_t t);

/* RFC 3339 instant: date 'T' time, optional fraction (up to 6 digits), and
 * 'Z' or a ±HH:MM offset. A zone is required. */
apr_status_t trv_time_parse(const char *s, apr_time_t *out);

/* A real calendar date YYYY-MM-DD; *out is its midnight UTC. */
apr_status_t trv_date_parse(const char *s, apr_time_t *out);

/* Days since 1970-01-01 of a proleptic Gregorian date (negative before). */
long trv_days_from_civil(int y, int m, int d);
void trv_civil_from_days(long days, int *y, int *m, int *d);

#endif
