/* Searching, pricing and (de)coding sandbox offers; see offers.h. */
#include "offers.h"

#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_LEN 8
/* 9999-12-31 in days since the epoch: no search reaches further. */
#define SBX_LAST_DAY 2932896L


/* ---- passengers and prices ---- */

int sbx_pax_count(const sbx_offer *o)
{
    return o->q.adults + o->q.children + o->q.infants;
}

int sbx_pax_type(const sbx_offer *o, int i)
{
    return i < o->q.adults ? 0 : i < o->q.adults + o->q.children ? 1 : 2;
}

static apr_int64_t share_whole(apr_int64_t base, int permille, int exp)
{
    apr_int64_t unit = 1;
    int e;
    for (e = 0; e < exp; e++) {
        unit *= 10;
    }
    return ((base * permille / 1000 + unit / 2) / unit) * unit;
}

apr_int64_t sbx_pax_base(const sbx_offer *o, int i, int j)
{
    switch (sbx_pax_type(o, i)) {
    case 0: return o->fare[j].base;
    case 1: return share_whole(o->fare[j].base, SBX_CHILD_PERMILLE, o->exp);
    default: return share_whole(o->fare[j].base, SBX_INFANT_PERMILLE, o->exp);
    }
}

apr_int64_t sbx_pax_tax(const sbx_offer *o, int i, int j)
{
    /* Infants on a lap pay a fifth of the charges. */
    return sbx_pax_type(o, i) == 2 ? o->fare[j].tax / 5 : o->fare[j].tax;
}

static void total_up(sbx_offer *o)
{
    int i, j;
    o->base = o->tax = 0;
    for (i = 0; i < sbx_pax_count(o); i++) {
        for (j = 0; j < o->q.nj; j++) {
            o->base += sbx_pax_base(o, i, j);
            o->tax += sbx_pax_tax(o, i, j);
        }
    }
}

int sbx_offer_carrier_flies(const sbx_world *w, const sbx_offer *o, int j, const char *iata)
{
    int k;
    for (k = 0; iata && k < o->it[j].n; k++) {
        if (strcasecmp(w->airlines[o->it[j].legs[k].mkt].iata, iata) == 0
            || strcasecmp(w->airlines[o->it[j].legs[k].op].iata, iata) == 0) {
            return 1;
        }
    }
    return 0;
}

apr_int64_t sbx_member_discount(const sbx_world *w, const sbx_offer *o, int i,
                                const char *iata)
{
    apr_int64_t d = 0;
    int j;
    if (sbx_pax_type(o, i) == 2) {
        return 0;
    }
    for (j = 0; j < o->q.nj; j++) {
        if (sbx_offer_carrier_flies(w, o, j, iata)) {
            d += sbx_pax_base(o, i, j) * SBX_MEMBER_DISCOUNT_PERMILLE / 1000;
        }
    }
    return d;
}

const sbx_brand *sbx_offer_brand(const sbx_offer *o)
{
    return sbx_brand_get(o->q.cabin, o->brand);
}

static int paying_pax(const sbx_offer *o)
{
    return o->q.adults + o->q.children;
}

apr_int64_t sbx_offer_refund_penalty(const sbx_offer *o)
{
    const sbx_brand *b = sbx_offer_brand(o);
    return b->refund_allowed ? sbx_penalty(b->refund_penalty_eur, o->currency) * paying_pax(o)
                             : 0;
}

apr_int64_t sbx_offer_change_penalty(const sbx_offer *o)
{
    const sbx_brand *b = sbx_offer_brand(o);
    return b->change_allowed ? sbx_penalty(b->change_penalty_eur, o->currency) * paying_pax(o)
                             : 0;
}

int sbx_itin_minutes(const sbx_itin *it)
{
    return (int)((it->legs[it->n - 1].arr_utc - it->legs[0].dep_utc) / 60);
}

int sbx_offer_international(const sbx_world *w, const sbx_offer *o)
{
    int j, k;
    const char *home = w->airports[o->it[0].legs[0].from].country_code;
    for (j = 0; j < o->q.nj; j++) {
        for (k = 0; k < o->it[j].n; k++) {
            if (strcmp(w->airports[o->it[j].legs[k].to].country_code, home) != 0) {
                return 1;
            }
        }
    }
    return 0;
}

static int journey_km(const sbx_itin *it)
{
    int k, km = 0;
    for (k = 0; k < it->n; k++) {
        km += it->legs[k].km;
    }
    return km;
}

int sbx_offer_bags(const sbx_offer *o, sbx_bag *out, int max)
{
    int i, j, t, n = 0;
    for (i = 0; i < sbx_pax_count(o); i++) {
        if (sbx_pax_type(o, i) == 2) {
            continue;
        }
        for (j = 0; j < o->q.nj; j++) {
            int km = journey_km(&o->it[j]);
            for (t = SBX_BAG_CHECKED; t <= SBX_BAG_CARRY_ON && n < max; t++) {
                int mq = sbx_bag_max(t, o->q.cabin, o->brand, km);
                if (mq <= 0) {
                    continue;
                }
                snprintf(out[n].suffix, sizeof(out[n].suffix), "p%dj%d%c", i, j,
                         t == SBX_BAG_CHECKED ? 'c' : 'h');
                out[n].pax = i;
                out[n].journey = j;
                out[n].type = t;
                out[n].weight_kg = sbx_bag_weight(t, o->q.cabin);
                out[n].max_qty = mq;
                out[n].unit = sbx_bag_price(t, km, o->currency);
                n++;
            }
        }
    }
    return n;
}

int sbx_bag_find(const sbx_bag *bags, int n, const char *suffix)
{
    int i;
    for (i = 0; i < n; i++) {
        if (strcmp(bags[i].suffix, suffix) == 0) {
            return i;
        }
    }
    return -1;
}

/* ---- search ---- */

const char *sbx_search_check(const sbx_world *w, const sbx_search *q, long today,
                             const char **field, int *journey)
{
    int j;
    (void)w;
    *field = "passengers";
    *journey = -1;
    if (q->adults < 1) {
        return "at least one adult travels";
    }
    if (q->adults + q->children > SBX_MAX_PAX) {
        return "at most 9 passengers with seats";
    }
    if (q->infants > q->adults) {
        return "each infant travels on an adult's lap";
    }
    *field = "journeys";
    if (q->nj < 1 || q->nj > SBX_MAX_JOURNEYS) {
        return "1 to 4 journeys";
    }
    for (j = 0; j < q->nj; j++) {
        *journey = j;
        if (q->j[j].origin == q->j[j].dest) {
            return "origin and destination are the same airport";
        }
        if (q->j[j].day < today) {
            return "the departure date is in the past";
        }
        if (q->j[j].day > today + SBX_MAX_DAYS_AHEAD) {
            return "airlines sell at most 361 days ahead";
        }
        if (j > 0 && q->j[j].day < q->j[j - 1].day) {
            return "journeys must be in date order";
        }
    }
    return NULL;
}

static void price_offer(const sbx_world *w, sbx_offer *o, long today)
{
    int j;
    for (j = 0; j < o->q.nj; j++) {
        sbx_journey_fare(w, &o->it[j], o->q.cabin, o->brand, o->q.j[j].day, today,
                         o->currency, &o->fare[j]);
    }
    total_up(o);
}

static void set_currency(const sbx_world *w, sbx_offer *o)
{
    const char *c = sbx_market_currency(w->airports[o->q.j[0].origin].country_code);
    memcpy(o->currency, c, 4);
    o->exp = sbx_currency_exp(c);
}

static const char *payload(apr_pool_t *p, const sbx_offer *o)
{
    char *s = apr_psprintf(p, "1|%c|%x|%" APR_INT64_T_FMT "|%d|%d|%d|%d|%d|%d", o->supplier,
                           (unsigned)o->nonce, o->expires, o->q.cabin, o->brand, o->q.adults,
                           o->q.children, o->q.infants, o->q.nj);
    int j;
    for (j = 0; j < o->q.nj; j++) {
        s = apr_psprintf(p, "%s|%d-%d-%ld-%d", s, o->q.j[j].origin, o->q.j[j].dest,
                         o->q.j[j].day, o->opt[j]);
    }
    return s;
}

static void sign(const char *key, const char *msg, apr_size_t len, unsigned char *tag)
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    HMAC(EVP_sha256(), key, (int)strlen(key), (const unsigned char *)msg, len, mac, &n);
    memcpy(tag, mac, TAG_LEN);
}

static void set_tag(sbx_offer *o, const unsigned char *tag)
{
    int i;
    for (i = 0; i < TAG_LEN; i++) {
        snprintf(o->tag + 2 * i, 3, "%02x", tag[i]);
    }
}

/* The reference of an offer, signed with key, and *tag the signature
 * (the offer's tag is made from it). */
static const char *encode(apr_pool_t *p, const sbx_offer *o, const char *key,
                          unsigned char *tag)
{
    const char *msg = payload(p, o);
    apr_size_t len = strlen(msg);
    unsigned char *buf = apr_palloc(p, len + TAG_LEN);
    memcpy(buf, msg, len);
    sign(key, msg, len, buf + len);
    memcpy(tag, buf + len, TAG_LEN);
    return sbx_b64url(p, buf, len + TAG_LEN);
}

const char *sbx_offer_encode(apr_pool_t *p, const sbx_offer *o, const char *key)
{
    unsigned char tag[TAG_LEN];
    return encode(p, o, key, tag);
}

int sbx_offer_decode(apr_pool_t *p, const sbx_world *w, const char *ref, char supplier,
                     const char *key, apr_int64_t now, sbx_offer *o)
{
    apr_size_t len;
    unsigned char *raw = sbx_b64url_decode(p, ref, &len), tag[TAG_LEN];
    char *msg, *f, *last;
    long v[7];
    int i, j;
    sbx_itin *list;

    if (!raw || len <= TAG_LEN) {
        return -1;
    }
    len -= TAG_LEN;
    sign(key, (const char *)raw, len, tag);
    if (CRYPTO_memcmp(tag, raw + len, TAG_LEN) != 0) {
        return -1;
    }
    msg = apr_pstrmemdup(p, (const char *)raw, len);
    memset(o, 0, sizeof(*o));
    f = apr_strtok(msg, "|", &last);
    if (!f || strcmp(f, "1") != 0 || !(f = apr_strtok(NULL, "|", &last)) || f[0] != supplier
        || f[1]) {
        return -1;
    }
    o->supplier = supplier;
    if (!(f = apr_strtok(NULL, "|", &last))) {
        return -1;
    }
    o->nonce = (apr_uint32_t)strtoul(f, NULL, 16);
    for (i = 0; i < 7; i++) {
        if (!(f = apr_strtok(NULL, "|", &last))) {
            return -1;
        }
        v[i] = atol(f);
    }
    o->expires = v[0];
    o->q.cabin = (int)v[1];
    o->brand = (int)v[2];
    o->q.adults = (int)v[3];
    o->q.children = (int)v[4];
    o->q.infants = (int)v[5];
    o->q.nj = (int)v[6];
    /* Only what a search can have produced: beyond it, the arithmetic on
     * days and passengers overflows. */
    if (!sbx_brand_get(o->q.cabin, o->brand) || o->q.nj < 1 || o->q.nj > SBX_MAX_JOURNEYS
        || o->q.adults < 1 || o->q.children < 0 || o->q.infants < 0
        || o->q.adults + o->q.children > SBX_MAX_PAX || o->q.infants > o->q.adults) {
        return -1;
    }
    list = apr_palloc(p, sizeof(sbx_itin) * SBX_MAX_ITINS);
    for (j = 0; j < o->q.nj; j++) {
        int n;
        if (!(f = apr_strtok(NULL, "|", &last))
            || sscanf(f, "%d-%d-%ld-%d", &o->q.j[j].origin, &o->q.j[j].dest, &o->q.j[j].day,
                      &o->opt[j]) != 4
            || o->q.j[j].origin < 0 || o->q.j[j].origin >= w->n_airports
            || o->q.j[j].dest < 0 || o->q.j[j].dest >= w->n_airports
            || o->q.j[j].day < 0 || o->q.j[j].day > SBX_LAST_DAY) {
            return -1;
        }
        n = sbx_itineraries(w, o->q.j[j].origin, o->q.j[j].dest, o->q.j[j].day, list,
                            SBX_MAX_ITINS);
        if (o->opt[j] < 0 || o->opt[j] >= n) {
            return -1;
        }
        o->it[j] = list[o->opt[j]];
        if (!sbx_cabin_offered(w, &o->it[j], o->q.cabin)) {
            return -1;
        }
    }
    set_tag(o, tag);
    set_currency(w, o);
    price_offer(w, o, (long)(now / 86400));
    o->ref = ref;
    return 0;
}

/* ---- running a search ---- */

typedef struct cand {
    int opt;
    apr_int64_t price;  /* adult base + tax for this journey */
} cand;

static int offer_cmp(const void *x, const void *y)
{
    const sbx_offer *a = *(sbx_offer *const *)x, *b = *(sbx_offer *const *)y;
    apr_int64_t ta = a->base + a->tax, tb = b->base + b->tax;
    if (ta != tb) {
        return ta < tb ? -1 : 1;
    }
    if (a->it[0].legs[0].dep_utc != b->it[0].legs[0].dep_utc) {
        return a->it[0].legs[0].dep_utc < b->it[0].legs[0].dep_utc ? -1 : 1;
    }
    return a->brand - b->brand;
}

int sbx_search_run(apr_pool_t *p, const sbx_world *w, const sbx_search *q, char supplier,
                   const char *key, apr_int64_t now, apr_int64_t ttl, int limit,
                   apr_uint32_t nonce, sbx_offer **out, int *truncated)
{
    sbx_itin *its[SBX_MAX_JOURNEYS];
    int nits[SBX_MAX_JOURNEYS];
    long today = (long)(now / 86400);
    int j, b, i, n = 0, cap;
    sbx_offer **all, proto;

    *truncated = 0;
    memset(&proto, 0, sizeof(proto));
    proto.supplier = supplier;
    proto.q = *q;
    proto.expires = now + ttl;
    proto.nonce = nonce;
    set_currency(w, &proto);
    for (j = 0; j < q->nj; j++) {
        its[j] = apr_palloc(p, sizeof(sbx_itin) * SBX_MAX_ITINS);
        nits[j] = sbx_itineraries(w, q->j[j].origin, q->j[j].dest, q->j[j].day, its[j],
                                  SBX_MAX_ITINS);
        if (nits[j] == 0) {
            return 0;
        }
    }
    cap = nits[0] * sbx_brand_count(q->cabin);
    all = apr_palloc(p, sizeof(sbx_offer *) * (apr_size_t)(cap ? cap : 1));
    for (b = 0; b < sbx_brand_count(q->cabin); b++) {
        /* Every journey's options priced for this brand. */
        cand *c[SBX_MAX_JOURNEYS];
        for (j = 0; j < q->nj; j++) {
            c[j] = apr_palloc(p, sizeof(cand) * (apr_size_t)nits[j]);
            for (i = 0; i < nits[j]; i++) {
                sbx_fare f;
                c[j][i].opt = -1;
                if (!sbx_cabin_offered(w, &its[j][i], q->cabin)) {
                    continue;
                }
                sbx_journey_fare(w, &its[j][i], q->cabin, b, q->j[j].day, today,
                                 proto.currency, &f);
                c[j][i].opt = i;
                c[j][i].price = f.base + f.tax;
            }
        }
        for (i = 0; i < nits[0]; i++) {
            sbx_offer *o;
            int ok = 1;
            if (c[0][i].opt < 0) {
                continue;
            }
            o = apr_palloc(p, sizeof(*o));
            *o = proto;
            o->brand = b;
            o->opt[0] = i;
            o->it[0] = its[0][i];
            /* Later journeys: the cheapest option that leaves after the
             * previous one lands, on the same airline when it can. */
            for (j = 1; j < q->nj && ok; j++) {
                int k, best = -1, best_same = 0;
                const sbx_itin *prev = &o->it[j - 1];
                for (k = 0; k < nits[j]; k++) {
                    int same;
                    if (c[j][k].opt < 0
                        || its[j][k].legs[0].dep_utc < prev->legs[prev->n - 1].arr_utc + 7200) {
                        continue;
                    }
                    same = its[j][k].legs[0].mkt == o->it[0].legs[0].mkt;
                    if (best < 0 || (same && !best_same)
                        || (same == best_same && c[j][k].price < c[j][best].price)) {
                        best = k;
                        best_same = same;
                    }
                }
                if (best < 0) {
                    ok = 0;
                    break;
                }
                o->opt[j] = best;
                o->it[j] = its[j][best];
            }
            if (!ok) {
                continue;
            }
            price_offer(w, o, today);
            all[n++] = o;
        }
    }
    qsort(all, (size_t)n, sizeof(*all), offer_cmp);
    if (limit > 0 && n > limit) {
        *truncated = 1;
        n = limit;
    }
    *out = apr_palloc(p, sizeof(sbx_offer) * (apr_size_t)(n ? n : 1));
    for (i = 0; i < n; i++) {
        /* One signature makes both the reference and the tag (the payload
         * holds neither). */
        unsigned char tag[TAG_LEN];
        (*out)[i] = *all[i];
        (*out)[i].ref = encode(p, &(*out)[i], key, tag);
        set_tag(&(*out)[i], tag);
    }
    return n;
}
