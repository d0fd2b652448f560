/* RFC 8536 TZif reader and POSIX TZ footer rules. */
#include "tzif.h"
#include "core/clock.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define TZIF_MAX (1024 * 1024)

static apr_int64_t floor_div(apr_int64_t a, apr_int64_t b)
{
    apr_int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static apr_uint32_t be32(const unsigned char *b)
{
    return ((apr_uint32_t)b[0] << 24) | ((apr_uint32_t)b[1] << 16)
         | ((apr_uint32_t)b[2] << 8) | (apr_uint32_t)b[3];
}

static apr_int64_t be64(const unsigned char *b)
{
    return (apr_int64_t)(((apr_uint64_t)be32(b) << 32) | be32(b + 4));
}

typedef struct tzif_hdr {
    apr_uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
    int version;
} tzif_hdr;

static int read_hdr(const unsigned char *b, apr_size_t len, tzif_hdr *h)
{
    if (len < 44 || memcmp(b, "TZif", 4) != 0) {
        return 0;
    }
    h->version = b[4] ? b[4] - '0' : 1;
    h->isutcnt = be32(b + 20);
    h->isstdcnt = be32(b + 24);
    h->leapcnt = be32(b + 28);
    h->timecnt = be32(b + 32);
    h->typecnt = be32(b + 36);
    h->charcnt = be32(b + 40);
    return h->typecnt > 0 && h->typecnt <= 256 && h->timecnt < 100000
        && h->leapcnt < 10000 && h->charcnt < 10000;
}

static apr_size_t block_len(const tzif_hdr *h, int tsize)
{
    return (apr_size_t)h->timecnt * (apr_size_t)tsize + h->timecnt + h->typecnt * 6
         + h->charcnt + (apr_size_t)h->leapcnt * (apr_size_t)(tsize + 4)
         + h->isstdcnt + h->isutcnt;
}

/* ---- POSIX TZ strings ---- */

static const char *skip_name(const char *s)
{
    if (*s == '<') {
        const char *e = strchr(s, '>');
        return e ? e + 1 : NULL;
    }
    if (!isalpha((unsigned char)*s)) {
        return NULL;
    }
    while (isalpha((unsigned char)*s)) {
        s++;
    }
    return s;
}

/* [+-]hh[:mm[:ss]]; hours up to 167 (RFC 8536 extension). */
static const char *parse_hms(const char *s, long *out)
{
    int neg = 0;
    long h, m = 0, sec = 0;
    char *end;
    if (*s == '+' || *s == '-') {
        neg = *s == '-';
        s++;
    }
    if (!isdigit((unsigned char)*s)) {
        return NULL;
    }
    h = strtol(s, &end, 10);
    s = end;
    if (*s == ':') {
        m = strtol(s + 1, &end, 10);
        s = end;
        if (*s == ':') {
            sec = strtol(s + 1, &end, 10);
            s = end;
        }
    }
    if (h > 167 || m > 59 || sec > 59) {
        return NULL;
    }
    *out = (h * 3600 + m * 60 + sec) * (neg ? -1 : 1);
    return s;
}

static const char *parse_date(const char *s, sbx_tz_date *d)
{
    char *end;
    d->secs = 7200; /* 02:00 when the rule gives no time */
    if (*s == 'J') {
        d->kind = 'J';
        d->day = (int)strtol(s + 1, &end, 10);
        if (end == s + 1 || d->day < 1 || d->day > 365) {
            return NULL;
        }
        s = end;
    }
    else if (*s == 'M') {
        d->kind = 'M';
        d->month = (int)strtol(s + 1, &end, 10);
        if (*end != '.') {
            return NULL;
        }
        d->week = (int)strtol(end + 1, &end, 10);
        if (*end != '.') {
            return NULL;
        }
        d->day = (int)strtol(end + 1, &end, 10);
        if (d->month < 1 || d->month > 12 || d->week < 1 || d->week > 5 || d->day < 0
            || d->day > 6) {
            return NULL;
        }
        s = end;
    }
    else if (isdigit((unsigned char)*s)) {
        d->kind = 'N';
        d->day = (int)strtol(s, &end, 10);
        if (d->day > 365) {
            return NULL;
        }
        s = end;
    }
    else {
        return NULL;
    }
    if (*s == '/') {
        s = parse_hms(s + 1, &d->secs);
    }
    return s;
}

int sbx_tz_rule_parse(const char *s, sbx_tz_rule *out)
{
    long off;
    memset(out, 0, sizeof(*out));
    if (!(s = skip_name(s)) || !(s = parse_hms(s, &off))) {
        return 0;
    }
    out->std_off = -off; /* POSIX offsets count west of Greenwich */
    out->dst_off = out->std_off;
    if (*s == '\0') {
        out->valid = 1;
        return 1;
    }
    if (!(s = skip_name(s))) {
        return 0;
    }
    out->has_dst = 1;
    out->dst_off = out->std_off + 3600;
    if (*s && *s != ',') {
        if (!(s = parse_hms(s, &off))) {
            return 0;
        }
        out->dst_off = -off;
    }
    if (*s != ',') {
        /* No rule given: POSIX leaves it to the implementation; the US
         * rule is the traditional default. */
        out->start = (sbx_tz_date){'M', 0, 2, 3, 7200};
        out->end = (sbx_tz_date){'M', 0, 1, 11, 7200};
        out->valid = (*s == '\0');
        return out->valid;
    }
    if (!(s = parse_date(s + 1, &out->start)) || *s != ',' ||
        !(s = parse_date(s + 1, &out->end)) || *s != '\0') {
        return 0;
    }
    out->valid = 1;
    return 1;
}

static int is_leap(long y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

/* Days since 1970 of a rule date in year y. */
static long rule_day(const sbx_tz_date *d, long y)
{
    long jan1 = trv_days_from_civil((int)y, 1, 1);
    if (d->kind == 'J') {
        return jan1 + d->day - 1 + ((is_leap(y) && d->day >= 60) ? 1 : 0);
    }
    if (d->kind == 'N') {
        return jan1 + d->day;
    }
    {
        long first = trv_days_from_civil((int)y, d->month, 1);
        int wd1 = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
        int len = mdays[d->month - 1] + ((d->month == 2 && is_leap(y)) ? 1 : 0);
        int day = 1 + (d->day - wd1 + 7) % 7 + (d->week - 1) * 7;
        while (day > len) {
            day -= 7;
        }
        return first + day - 1;
    }
}

static long rule_offset(const sbx_tz_rule *r, apr_int64_t t)
{
    int y, m, d;
    apr_int64_t start, end;
    if (!r->has_dst) {
        return r->std_off;
    }
    trv_civil_from_days((long)floor_div(t + r->std_off, 86400), &y, &m, &d);
    start = (apr_int64_t)rule_day(&r->start, y) * 86400 + r->start.secs - r->std_off;
    end = (apr_int64_t)rule_day(&r->end, y) * 86400 + r->end.secs - r->dst_off;
    if (start < end) {
        return (t >= start && t < end) ? r->dst_off : r->std_off;
    }
    /* Southern hemisphere: DST spans the new year. */
    return (t >= end && t < start) ? r->std_off : r->dst_off;
}

/* ---- TZif ---- */

sbx_tz *sbx_tz_parse(apr_pool_t *p, const char *name, const unsigned char *buf,
                     apr_size_t len, const char **err)
{
    tzif_hdr h;
    const unsigned char *b = buf, *times, *idx, *types;
    int tsize = 4;
    apr_size_t need;
    sbx_tz *tz;
    apr_int64_t *at;
    long *off;
    apr_uint32_t i;

    if (!read_hdr(b, len, &h)) {
        *err = "not a TZif file";
        return NULL;
    }
    need = 44 + block_len(&h, 4);
    if (need > len) {
        *err = "truncated TZif data";
        return NULL;
    }
    if (h.version >= 2) {
        /* Skip the 32-bit block: the 64-bit one that follows is complete. */
        b += need;
        len -= need;
        if (!read_hdr(b, len, &h)) {
            *err = "bad second TZif header";
            return NULL;
        }
        tsize = 8;
        need = 44 + block_len(&h, 8);
        if (need > len) {
            *err = "truncated TZif data";
            return NULL;
        }
    }
    times = b + 44;
    idx = times + (apr_size_t)h.timecnt * (apr_size_t)tsize;
    types = idx + h.timecnt;

    tz = apr_pcalloc(p, sizeof(*tz));
    tz->name = apr_pstrdup(p, name);
    tz->n = (int)h.timecnt;
    at = apr_palloc(p, sizeof(*at) * (h.timecnt + 1));
    off = apr_palloc(p, sizeof(*off) * (h.timecnt + 1));
    for (i = 0; i < h.timecnt; i++) {
        unsigned ti = idx[i];
        if (ti >= h.typecnt) {
            *err = "transition names an unknown type";
            return NULL;
        }
        at[i] = tsize == 8 ? be64(times + (apr_size_t)i * 8)
                           : (apr_int64_t)(apr_int32_t)be32(times + (apr_size_t)i * 4);
        off[i] = (long)(apr_int32_t)be32(types + ti * 6);
    }
    tz->at = at;
    tz->off_after = off;
    /* RFC 8536: before the first transition, time type 0 applies. */
    tz->off_before = (long)(apr_int32_t)be32(types);
    if (tsize == 8 && need < len && b[need] == '\n') {
        const char *f = (const char *)b + need + 1;
        const char *nl = memchr(f, '\n', len - need - 1);
        if (nl && nl > f) {
            char *rule = apr_pstrndup(p, f, (apr_size_t)(nl - f));
            if (!sbx_tz_rule_parse(rule, &tz->rule)) {
                *err = "unreadable POSIX TZ footer";
                return NULL;
            }
        }
    }
    return tz;
}

sbx_tz *sbx_tz_load(apr_pool_t *p, const char *dir, const char *name, const char **err)
{
    apr_file_t *f;
    apr_finfo_t fi;
    apr_pool_t *tmp;
    unsigned char *buf;
    apr_size_t len;
    sbx_tz *tz = NULL;
    const char *path;

    /* Names come from a data file: refuse anything that leaves dir. */
    if (!*name || name[0] == '/' || strstr(name, "..")) {
        *err = "bad zone name";
        return NULL;
    }
    apr_pool_create(&tmp, p);
    path = apr_pstrcat(tmp, dir, "/", name, NULL);
    if (apr_file_open(&f, path, APR_READ | APR_BINARY, 0, tmp) != APR_SUCCESS
        || apr_file_info_get(&fi, APR_FINFO_SIZE, f) != APR_SUCCESS) {
        *err = "cannot read the zone file";
        apr_pool_destroy(tmp);
        return NULL;
    }
    if (fi.size <= 0 || fi.size > TZIF_MAX) {
        *err = "zone file of an unexpected size";
        apr_pool_destroy(tmp);
        return NULL;
    }
    len = (apr_size_t)fi.size;
    buf = apr_palloc(tmp, len);
    if (apr_file_read_full(f, buf, len, &len) != APR_SUCCESS) {
        *err = "cannot read the zone file";
    }
    else {
        tz = sbx_tz_parse(p, name, buf, len, err);
    }
    apr_file_close(f);
    apr_pool_destroy(tmp);
    return tz;
}

long sbx_tz_offset(const sbx_tz *tz, apr_int64_t t)
{
    int lo = 0, hi;
    if (tz->n == 0 || t < tz->at[0]) {
        if (tz->n == 0 && tz->rule.valid) {
            return rule_offset(&tz->rule, t);
        }
        return tz->off_before;
    }
    if (t >= tz->at[tz->n - 1]) {
        return tz->rule.valid ? rule_offset(&tz->rule, t) : tz->off_after[tz->n - 1];
    }
    /* Last transition at or before t. */
    hi = tz->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (tz->at[mid] <= t) {
            lo = mid;
        }
        else {
            hi = mid - 1;
        }
    }
    return tz->off_after[lo];
}

apr_int64_t sbx_tz_utc_of_local(const sbx_tz *tz, apr_int64_t local)
{
    /* The offsets in force a day either side cover every candidate. */
    long o1 = sbx_tz_offset(tz, local - 86400), o2 = sbx_tz_offset(tz, local + 86400);
    apr_int64_t u1 = local - o1, u2 = local - o2;
    int ok1 = sbx_tz_offset(tz, u1) == o1, ok2 = sbx_tz_offset(tz, u2) == o2;
    if (ok1 && ok2) {
        return u1 < u2 ? u1 : u2;
    }
    if (ok1) {
        return u1;
    }
    if (ok2) {
        return u2;
    }
    return u1; /* in a gap */
}
