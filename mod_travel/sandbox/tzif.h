/* Time zones read straight from the system's TZif files (RFC 8536), so the
 * sandbox can turn an airport's local departure time into UTC and back at
 * any date. Read-only after loading, so any number of threads may share a
 * zone; nothing here touches TZ or the C library's time zone state. */
#ifndef SBX_TZIF_H
#define SBX_TZIF_H

#include <apr_pools.h>

/* One POSIX TZ rule date: Jn (julian 1..365, no Feb 29), n (0..365) or
 * Mm.w.d, with the local time of the change in seconds. */
typedef struct sbx_tz_date {
    char kind;                  /* 'J', 'N' or 'M' */
    int day, week, month;
    long secs;
} sbx_tz_date;

/* The footer rule used for instants after the last transition. */
typedef struct sbx_tz_rule {
    int valid;
    long std_off, dst_off;      /* seconds east of UTC */
    int has_dst;
    sbx_tz_date start, end;     /* start: in standard time; end: in DST */
} sbx_tz_rule;

typedef struct sbx_tz {
    const char *name;
    int n;                      /* transitions */
    const apr_int64_t *at;      /* UTC instants, ascending */
    const long *off_after;      /* UTC offset from at[i] on */
    long off_before;            /* offset before the first transition */
    sbx_tz_rule rule;
} sbx_tz;

/* Parses a TZif file image (version 1, 2, 3 or 4). NULL and *err when it
 * is not one. */
sbx_tz *sbx_tz_parse(apr_pool_t *p, const char *name, const unsigned char *buf,
                     apr_size_t len, const char **err);
/* Reads dir/name (e.g. /usr/share/zoneinfo + Europe/London). */
sbx_tz *sbx_tz_load(apr_pool_t *p, const char *dir, const char *name,
                    const char **err);
/* Parses a POSIX TZ string such as "EST5EDT,M3.2.0,M11.1.0". */
int sbx_tz_rule_parse(const char *s, sbx_tz_rule *out);

/* The UTC offset in seconds (east positive) in force at UTC instant t. */
long sbx_tz_offset(const sbx_tz *tz, apr_int64_t t);
/* The UTC instant of a wall-clock time (seconds since 1970 as if local
 * were UTC). An ambiguous time (clocks going back) is its first
 * occurrence; a time that does not exist (clocks going forward) is read
 * with the offset before the change, as most libraries do. */
apr_int64_t sbx_tz_utc_of_local(const sbx_tz *tz, apr_int64_t local);

#endif
