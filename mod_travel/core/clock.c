#include "clock.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>

long trv_days_from_civil(int y, int m, int d)
{
    long era, yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void trv_civil_from_days(long z, int *y, int *m, int *d)
{
    long era, doe, yoe, doy, mp;
    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/* v (0 <= v < 10^n) as n digits, zero-padded. */
static void put_digits(char *o, int v, int n)
{
    while (n-- > 0) {
        o[n] = (char)('0' + v % 10);
        v /= 10;
    }
}

char *trv_time_format(apr_pool_t *p, apr_time_t t)
{
    apr_int64_t ms = t / 1000;
    long days;
    int y, mo, d;
    long sod;
    if (t < 0 && ms * 1000 != t) { /* floor, also for -999..-1 usec */
        ms--;
    }
    days = (long)(ms / 86400000);
    sod = (long)(ms % 86400000);
    if (sod < 0) {
        sod += 86400000;
        days--;
    }
    trv_civil_from_days(days, &y, &mo, &d);
    if (y < 0 || y > 9999) {
        return apr_psprintf(p, "%04d-%02d-%02dT%02ld:%02ld:%02ld.%03ldZ", y, mo, d,
                            sod / 3600000, (sod / 60000) % 60, (sod / 1000) % 60,
                            sod % 1000);
    }
    /* Digits by hand: every offer shows instants (expiry, penalties), and
     * apr_psprintf was a thirtieth of a hotel offers request. */
    {
        char *o = apr_palloc(p, 25);
        put_digits(o, y, 4);
        o[4] = '-';
        put_digits(o + 5, mo, 2);
        o[7] = '-';
        put_digits(o + 8, d, 2);
        o[10] = 'T';
        put_digits(o + 11, (int)(sod / 3600000), 2);
        o[13] = ':';
        put_digits(o + 14, (int)((sod / 60000) % 60), 2);
        o[16] = ':';
        put_digits(o + 17, (int)((sod / 1000) % 60), 2);
        o[19] = '.';
        put_digits(o + 20, (int)(sod % 1000), 3);
        o[23] = 'Z';
        o[24] = '\0';
        return o;
    }
}

static int digits(const char *s, int n, int *out)
{
    int v = 0, i;
    for (i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) {
            return 0;
        }
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

static int days_in_month(int y, int m)
{
    static const int dim[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 ? 28 + leap : dim[m - 1];
}

static int parse_ymd(const char *s, int *y, int *m, int *d)
{
    return digits(s, 4, y) && s[4] == '-' && digits(s + 5, 2, m) && s[7] == '-'
        && digits(s + 8, 2, d) && *y >= 1 && *m >= 1 && *m <= 12 && *d >= 1
        && *d <= days_in_month(*y, *m);
}

apr_status_t trv_date_parse(const char *s, apr_time_t *out)
{
    int y, m, d;
    if (!s || strlen(s) != 10 || !parse_ymd(s, &y, &m, &d)) {
        return APR_EINVAL;
    }
    if (out) {
        *out = (apr_time_t)trv_days_from_civil(y, m, d) * 86400 * APR_USEC_PER_SEC;
    }
    return APR_SUCCESS;
}

apr_status_t trv_time_parse(const char *s, apr_time_t *out)
{
    int y, mo, d, h, mi, sec, oh = 0, om = 0;
    apr_int64_t usec = 0;
    long offset = 0;
    const char *p;

    if (!s || strlen(s) < 20 || !parse_ymd(s, &y, &mo, &d)
        || (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) || s[13] != ':'
        || !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &sec)
        || h > 23 || mi > 59 || sec > 59) {
        return APR_EINVAL;
    }
    p = s + 19;
    if (*p == '.') {
        int n = 0;
        apr_int64_t scale = 100000;
        for (p++; isdigit((unsigned char)*p); p++, n++) {
            if (n < 6) {
                usec += (*p - '0') * scale;
                scale /= 10;
            }
        }
        if (n == 0 || n > 9) {
            return APR_EINVAL;
        }
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    }
    else if ((*p == '+' || *p == '-') && digits(p + 1, 2, &oh) && p[3] == ':'
             && digits(p + 4, 2, &om) && oh <= 23 && om <= 59) {
        offset = (oh * 60L + om) * 60L * (*p == '-' ? -1 : 1);
        p += 6;
    }
    else {
        return APR_EINVAL;
    }
    if (*p) {
        return APR_EINVAL;
    }
    if (out) {
        apr_int64_t secs = (apr_int64_t)trv_days_from_civil(y, mo, d) * 86400
                           + h * 3600 + mi * 60 + sec - offset;
        *out = secs * APR_USEC_PER_SEC + usec;
    }
    return APR_SUCCESS;
}
