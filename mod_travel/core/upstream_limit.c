#include "upstream_limit.h"

#include <apr_atomic.h>
#include <apr_date.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x54524c32u        /* "TRL2": the layout below */
#define UNKNOWN 0xffffffffu      /* remaining: no count known */
#define KEY_LEN 256

typedef struct slot {
    char key[KEY_LEN];           /* "NAME base_url" */
    volatile apr_uint64_t until; /* no call before this (apr_time_t; 0: none) */
    volatile apr_uint64_t reset; /* the end of the window the count is of */
    volatile apr_uint32_t remaining; /* calls left in it, or UNKNOWN */
    /* a live call was refused for the operator's call budget: until then,
     * a failure of this line is that refusal (core/call_budget.h) */
    volatile apr_uint64_t budget_until;
} slot;

struct trv_upstream_limits_shm {
    apr_uint32_t magic;
    volatile apr_uint32_t n;
    slot slots[TRV_UPSTREAM_LIMIT_SLOTS];
};

struct trv_upstream_limits {
    struct trv_upstream_limits_shm *shm;
};

apr_size_t trv_upstream_limits_size(void)
{
    return sizeof(struct trv_upstream_limits_shm);
}

trv_upstream_limits *trv_upstream_limits_attach(apr_pool_t *p, void *mem)
{
    trv_upstream_limits *lim = apr_pcalloc(p, sizeof(*lim));
    struct trv_upstream_limits_shm *s = mem;
    if (s->magic != MAGIC) {
        memset(s, 0, sizeof(*s));
        s->magic = MAGIC;
    }
    lim->shm = s;
    return lim;
}

static void key_of(const trv_upstream *up, char *key)
{
    snprintf(key, KEY_LEN, "%s %s", up->name ? up->name : "", up->base_url ? up->base_url : "");
}

static slot *find(const trv_upstream_limits *lim, const trv_upstream *up)
{
    char key[KEY_LEN];
    apr_uint32_t i, n;
    if (!lim || !up) {
        return NULL;
    }
    key_of(up, key);
    n = apr_atomic_read32(&lim->shm->n);
    for (i = 0; i < n && i < TRV_UPSTREAM_LIMIT_SLOTS; i++) {
        if (strcmp(lim->shm->slots[i].key, key) == 0) {
            return &lim->shm->slots[i];
        }
    }
    return NULL;
}

int trv_upstream_limits_add(trv_upstream_limits *lim, const trv_upstream *up)
{
    slot *s;
    if (find(lim, up)) {
        return 0;
    }
    if (lim->shm->n >= TRV_UPSTREAM_LIMIT_SLOTS) {
        return -1;
    }
    s = &lim->shm->slots[lim->shm->n];
    memset(s, 0, sizeof(*s));
    key_of(up, s->key);
    s->remaining = UNKNOWN;
    apr_atomic_inc32(&lim->shm->n);
    return 0;
}

/* *at = max(*at, t). */
static void raise_to(volatile apr_uint64_t *at, apr_time_t t)
{
    apr_uint64_t seen;
    while ((seen = apr_atomic_read64(at)) < (apr_uint64_t)t) {
        if (apr_atomic_cas64(at, (apr_uint64_t)t, seen) == seen) {
            return;
        }
    }
}

/* When calls may resume (0: now), spending one call of a known window
 * when spend is set. */
static apr_time_t check(slot *s, apr_time_t now, int spend)
{
    apr_time_t until, reset;
    apr_uint32_t left;
    if (!s) {
        return 0;
    }
    until = (apr_time_t)apr_atomic_read64(&s->until);
    if (until > now) {
        return until;
    }
    reset = (apr_time_t)apr_atomic_read64(&s->reset);
    if (reset <= now) {
        return 0; /* no window known, or it is over: the next answer says */
    }
    while ((left = apr_atomic_read32(&s->remaining)) != UNKNOWN) {
        if (left == 0) {
            return reset;
        }
        if (!spend || apr_atomic_cas32(&s->remaining, left - 1, left) == left) {
            return 0;
        }
    }
    return 0;
}

apr_time_t trv_upstream_limit_take(trv_upstream_limits *lim, const trv_upstream *up,
                                   apr_time_t now)
{
    return check(find(lim, up), now, 1);
}

apr_time_t trv_upstream_limit_until(const trv_upstream_limits *lim, const trv_upstream *up,
                                    apr_time_t now)
{
    return check(find(lim, up), now, 0);
}

void trv_upstream_limit_budget_spent(trv_upstream_limits *lim, const trv_upstream *up,
                                     apr_time_t until)
{
    slot *s = find(lim, up);
    if (s) {
        raise_to(&s->budget_until, until);
    }
}

apr_time_t trv_upstream_limit_budget_until(const trv_upstream_limits *lim,
                                           const trv_upstream *up, apr_time_t now)
{
    slot *s = find(lim, up);
    apr_time_t until = s ? (apr_time_t)apr_atomic_read64(&s->budget_until) : 0;
    return until > now ? until : 0;
}

apr_time_t trv_upstream_limit_time(const char *value, const char *date, apr_time_t now)
{
    apr_time_t t, sent;
    char *end;
    double v;
    if (!value || !*value) {
        return 0;
    }
    v = strtod(value, &end);
    if (end != value && *end == '\0' && v >= 0 && value[0] >= '0' && value[0] <= '9') {
        if (v <= 365.0 * 86400) {
            t = now + (apr_time_t)(v * APR_USEC_PER_SEC); /* delta seconds */
            return t > now + TRV_UPSTREAM_LIMIT_MAX ? now + TRV_UPSTREAM_LIMIT_MAX : t;
        }
        t = (apr_time_t)(v * APR_USEC_PER_SEC);         /* epoch seconds */
    }
    else if ((t = apr_date_parse_rfc(value)) == APR_DATE_BAD) {
        return 0;
    }
    /* An instant of the supplier's clock: counted from its Date. */
    if (date && (sent = apr_date_parse_rfc(date)) != APR_DATE_BAD) {
        t = now + (t - sent);
    }
    return t > now + TRV_UPSTREAM_LIMIT_MAX ? now + TRV_UPSTREAM_LIMIT_MAX : t;
}

/* The IETF draft's name, else the older X- one many APIs still send. */
static const char *header(const apr_table_t *h, const char *name, const char *x_name)
{
    const char *v = h ? apr_table_get(h, name) : NULL;
    return v ? v : h ? apr_table_get(h, x_name) : NULL;
}

apr_time_t trv_upstream_limit_note(trv_upstream_limits *lim, const trv_upstream *up,
                                   apr_time_t now, int status, const apr_table_t *headers)
{
    slot *s = find(lim, up);
    const char *date = headers ? apr_table_get(headers, "Date") : NULL;
    const char *remaining = header(headers, "ratelimit-remaining", "x-ratelimit-remaining");
    apr_time_t reset = trv_upstream_limit_time(
        header(headers, "ratelimit-reset", "x-ratelimit-reset"), date, now);
    apr_time_t at;
    if (status == 429) {
        at = trv_upstream_limit_time(headers ? apr_table_get(headers, "Retry-After") : NULL,
                                     date, now);
        if (at <= 0) {
            at = reset > now ? reset : now + TRV_UPSTREAM_LIMIT_DEFAULT;
        }
        if (s) {
            raise_to(&s->until, at);
        }
        return at;
    }
    if (s && remaining && reset > now) {
        apr_int64_t left = apr_atoi64(remaining);
        apr_atomic_set32(&s->remaining, left < 0 ? 0 : left >= UNKNOWN ? UNKNOWN - 1
                                                                        : (apr_uint32_t)left);
        apr_atomic_set64(&s->reset, (apr_uint64_t)reset);
        if (left <= 0) {
            raise_to(&s->until, reset);
        }
    }
    return 0;
}

int trv_upstream_limits_figures(const trv_upstream_limits *lim, apr_pool_t *p, apr_time_t now,
                                trv_upstream_limit_fig **out)
{
    apr_uint32_t i, n = lim ? apr_atomic_read32(&lim->shm->n) : 0;
    *out = apr_pcalloc(p, sizeof(**out) * (n + 1));
    for (i = 0; i < n && i < TRV_UPSTREAM_LIMIT_SLOTS; i++) {
        slot *s = &lim->shm->slots[i];
        apr_uint32_t left = apr_atomic_read32(&s->remaining);
        (*out)[i].line = apr_pstrdup(p, s->key);
        (*out)[i].until = check(s, now, 0);
        (*out)[i].remaining = left == UNKNOWN
                                      || (apr_time_t)apr_atomic_read64(&s->reset) <= now
                                  ? -1 : (long)left;
    }
    return (int)i;
}
