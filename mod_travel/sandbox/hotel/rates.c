/* Hotel rates; see rates.h. */
#include "rates.h"
#include "sandbox/money.h"
#include "sandbox/token.h"
#include "core/clock.h"
#include "core/json_text.h"
#include "core/money.h"

#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 9999-12-31 in days since 1970: the last day a token may name. */
#define LAST_DAY 2932896L

static const int star_base_eur[6] = {0, 0, 70, 105, 160, 290};

static const char *const dear[] = {
    "GB", "FR", "US", "JP", "CH", "NO", "DK", "SE", "IS", "AU", "NL", "IE", "SG", "AE",
    "HK", "IL", "LU", "BE", "AT", "DE", "IT", "CA", "NZ", "FI", "QA", "KW", NULL};
static const char *const cheap[] = {
    "IN", "VN", "ID", "EG", "PK", "BD", "NG", "KE", "MA", "PH", "TH", "MY", "TR", "LK",
    "NP", "CO", "PE", "BO", "MX", "BR", "UA", "KZ", "UZ", "TN", "DZ", "ET", "GH", NULL};

static int listed(const char *cc, const char *const *list)
{
    for (; *list; list++) {
        if (strcmp(cc, *list) == 0) {
            return 1;
        }
    }
    return 0;
}

/* VAT included in room prices, permille. */
static int vat_permille(const char *cc)
{
    static const struct {
        const char *cc;
        int v;
    } t[] = {{"GB", 200}, {"FR", 100}, {"DE", 70}, {"US", 148}, {"JP", 100}, {"IT", 100},
             {"ES", 100}, {"NL", 90}, {"CH", 38}, {"AE", 50}, {"SG", 90}, {"AU", 100}};
    size_t i;
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (strcmp(t[i].cc, cc) == 0) {
            return t[i].v;
        }
    }
    return 100;
}

/* City tax per adult and night (EUR), collected by the hotel. */
static int city_tax_eur(const char *cc)
{
    static const struct {
        const char *cc;
        int eur;
    } t[] = {{"FR", 3}, {"DE", 4}, {"IT", 4}, {"ES", 2}, {"NL", 5}, {"AT", 2}, {"BE", 4},
             {"PT", 2}, {"JP", 2}, {"HR", 1}, {"GR", 2}};
    size_t i;
    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (strcmp(t[i].cc, cc) == 0) {
            return t[i].eur;
        }
    }
    return 0;
}

static apr_int64_t permille(apr_int64_t v, int pm)
{
    return (v * pm + 500) / 1000;
}

static int weekday_permille(long day)
{
    int wd = (int)((day % 7 + 7 + 4) % 7);   /* 1970-01-01 was a Thursday */
    return wd == 5 || wd == 6 ? 1120 : wd == 0 ? 920 : 1000;
}

static int season_permille(long day)
{
    int y, m, d;
    trv_civil_from_days(day, &y, &m, &d);
    return (m >= 6 && m <= 8) ? 1150 : m == 12 ? 1100 : (m <= 2) ? 900 : 1000;
}

static int ahead_permille(long ahead)
{
    return ahead < 3 ? 1150 : ahead < 14 ? 1060 : ahead < 60 ? 1000 : 950;
}

static int supplier_permille(const sbx_hotel *x, int s)
{
    return s == 0 ? 1000 : s == 1 ? 970 + (int)(x->seed % 60)
                                   : 1005 + (int)((x->seed >> 8) % 45);
}

/* Children under 2 stay free; 12 and over count nearly as adults. */
static int occ_permille(const sbx_occ *o)
{
    static const int adults[5] = {0, 850, 1000, 1300, 1550};
    int v = adults[o->adults > 4 ? 4 : o->adults], i;
    for (i = 0; i < o->n_children; i++) {
        v += o->ages[i] < 2 ? 0 : o->ages[i] < 12 ? 150 : 250;
    }
    return v;
}

static int paying_children(const sbx_occ *o)
{
    int i, n = 0;
    for (i = 0; i < o->n_children; i++) {
        n += o->ages[i] >= 2;
    }
    return n;
}

int sbx_room_fits(int room, const sbx_occ *o)
{
    const sbx_room_type *t = sbx_room_type_get(room);
    return t && o->adults <= t->max_adults && o->adults + paying_children(o) <= t->max_occupancy;
}

int sbx_stay_check(long checkin, long checkout, long today, const char **field,
                   const char **reason)
{
    if (checkin < 0) {
        *field = "checkin";
        *reason = "must be a date YYYY-MM-DD";
        return -1;
    }
    if (checkout < 0) {
        *field = "checkout";
        *reason = "must be a date YYYY-MM-DD";
        return -1;
    }
    if (checkin < today || checkin > today + SBX_MAX_DAYS_AHEAD) {
        *field = "checkin";
        *reason = "must be from today to 500 days ahead";
        return -1;
    }
    if (checkout <= checkin || checkout - checkin > SBX_MAX_NIGHTS) {
        *field = "checkout";
        *reason = "must be 1 to 99 nights after check-in";
        return -1;
    }
    return 0;
}

int sbx_occ_check(const sbx_occ *o, const char **reason)
{
    int i;
    if (o->adults < 1 || o->adults > 4) {
        *reason = "adults must be 1 to 4 per room";
        return -1;
    }
    if (o->n_children < 0 || o->n_children > SBX_MAX_CHILDREN) {
        *reason = "at most 4 children per room";
        return -1;
    }
    for (i = 0; i < o->n_children; i++) {
        if (o->ages[i] < 0 || o->ages[i] > 17) {
            *reason = "a child's age must be 0 to 17";
            return -1;
        }
    }
    return 0;
}

/* What a night costs at the hotel before the room, the guests, the date
 * and the rate count: its stars, its country and city, its own level (EUR
 * cents). The same for every night and rate of the hotel, so made once
 * per quote (the country's lists are string compares) rather than per
 * night of every rate ranked. */
static apr_int64_t hotel_base_eur(const sbx_hotels *h, const sbx_hotel *x)
{
    const sbx_hcity *c = &h->cities[x->city];
    apr_int64_t v = (apr_int64_t)star_base_eur[x->stars] * 100;
    v = permille(v, listed(c->country_code, dear) ? 1250 : listed(c->country_code, cheap) ? 600
                                                                                         : 900);
    if (c->rank < 20) {
        v = permille(v, 1150);
    }
    return permille(v, x->price_permille);
}

/* What prices a quote's nights: the hotel's base (hotel_base_eur) and
 * each night's weekday and season factors (a calendar conversion each),
 * made once for the quote, or for all the rates of a hotel ranked at once,
 * rather than per night of every room of every rate. */
typedef struct stay_factors {
    apr_int64_t base;
    int weekday[SBX_MAX_NIGHTS], season[SBX_MAX_NIGHTS];
} stay_factors;

static void stay_factors_of(const sbx_hotels *h, const sbx_hquote *q, stay_factors *f)
{
    int n;
    f->base = hotel_base_eur(h, &h->hotels[q->hotel]);
    for (n = 0; n < q->nights && n < SBX_MAX_NIGHTS; n++) {
        f->weekday[n] = weekday_permille(q->checkin + n);
        f->season[n] = season_permille(q->checkin + n);
    }
}

/* Night n of one room in EUR cents, before the promotion. */
static apr_int64_t night_eur(const sbx_hotels *h, const sbx_hquote *q, const sbx_occ *o,
                             int n, const stay_factors *f)
{
    const sbx_hotel *x = &h->hotels[q->hotel];
    apr_int64_t v = f->base;
    const sbx_board *b = sbx_board_get(q->board);
    v = permille(v, sbx_room_type_get(q->room)->price_permille);
    v = permille(v, occ_permille(o));
    v = permille(v, f->weekday[n]);
    v = permille(v, f->season[n]);
    v = permille(v, ahead_permille(q->checkin - q->today));
    v = permille(v, supplier_permille(x, q->supplier));
    /* Meals: per adult, half for a paying child. */
    v += (apr_int64_t)b->eur_per_adult * 100 * o->adults
       + (apr_int64_t)b->eur_per_adult * 50 * paying_children(o);
    if (q->plan == SBX_PLAN_NONREFUNDABLE) {
        v = permille(v, 880);
    }
    return permille(v, q->factor_permille > 0 ? q->factor_permille : 1000);
}

static void promotion(const sbx_hotel *x, const sbx_hquote *q, sbx_hprice *r)
{
    r->promo_code = r->promo_name = NULL;
    r->promo_percent = 0;
    if (q->checkin - q->today >= 45 && x->seed % 3 == 0) {
        r->promo_code = "EARLYBOOK10";
        r->promo_name = "Early booking: 10% off";
        r->promo_percent = 10;
    }
    else if (q->nights >= 5 && x->seed % 5 == 1) {
        r->promo_code = "LONGSTAY15";
        r->promo_name = "Stay 5 nights or more: 15% off";
        r->promo_percent = 15;
    }
    else if (q->supplier == 2 && (x->seed >> 4) % 4 == 0) {
        r->promo_code = "MEMBERDEAL7";
        r->promo_name = "Member deal: 7% off";
        r->promo_percent = 7;
    }
}

apr_int64_t sbx_hotel_utc(const sbx_hotels *h, const sbx_world *w, int hotel,
                          apr_int64_t local)
{
    return sbx_airport_utc(&w->airports[h->cities[h->hotels[hotel].city].airport], local);
}

/* sbx_hquote_price with the stay's factors (stay_factors_of); with terms 0
 * only each room's nights, promotion and total, not its taxes or
 * cancellation policy: ranking a hotel's rates needs their totals alone,
 * and the policy's two local times at the hotel (time-zone lookups) for
 * each of its up to 56 rates were a tenth of a hotel search's sandbox
 * CPU. */
static apr_int64_t price(const sbx_hotels *h, const sbx_world *w, const sbx_hquote *q,
                         apr_int64_t now, sbx_hprice *out, int terms, const stay_factors *f)
{
    const sbx_hotel *x = &h->hotels[q->hotel];
    const char *cc = h->cities[x->city].country_code;
    apr_int64_t all = 0;
    int k, n;
    for (k = 0; k < q->n_rooms; k++) {
        sbx_hprice *r = &out[k];
        const sbx_occ *o = &q->occ[k];
        apr_int64_t tax_eur;
        memset(r, 0, sizeof(*r));
        for (n = 0; n < q->nights; n++) {
            r->nightly[n] = sbx_from_eur(night_eur(h, q, o, n, f), q->currency, 0);
            r->gross += r->nightly[n];
        }
        promotion(x, q, r);
        r->discount = r->gross * r->promo_percent / 100;
        r->total = r->gross - r->discount;
        if (!terms) {
            all += r->total;
            continue;
        }
        r->vat = r->total * vat_permille(cc) / (1000 + vat_permille(cc));
        tax_eur = (apr_int64_t)city_tax_eur(cc) * 100 * o->adults * q->nights;
        if (strcmp(cc, "US") == 0 && x->stars >= 4) {
            tax_eur += (apr_int64_t)25 * 100 * q->nights;   /* a destination fee a room */
        }
        r->due_at_property = tax_eur ? sbx_from_eur(tax_eur, q->currency, 0) : 0;
        if (q->plan == SBX_PLAN_NONREFUNDABLE) {
            r->refundable = 0;
            r->deadline = 0;
            r->n_penalties = 1;
            r->penalties[0].from = now;
            r->penalties[0].amount = r->total;
        }
        else {
            /* Free until 18:00 local, free_cancel_days before arrival; then
             * the first night; from the arrival day's check-in time, all. */
            apr_int64_t first = q->nights ? r->nightly[0] * r->total / (r->gross ? r->gross : 1)
                                          : 0;
            r->refundable = 1;
            r->deadline = sbx_hotel_utc(h, w, q->hotel,
                                        (apr_int64_t)(q->checkin - x->free_cancel_days) * 86400
                                            + 18 * 3600);
            r->n_penalties = 2;
            r->penalties[0].from = r->deadline;
            r->penalties[0].amount = first;
            r->penalties[1].from = sbx_hotel_utc(h, w, q->hotel,
                                                 (apr_int64_t)q->checkin * 86400 + 14 * 3600);
            r->penalties[1].amount = r->total;
        }
        all += r->total;
    }
    return all;
}

apr_int64_t sbx_hquote_price(const sbx_hotels *h, const sbx_world *w, const sbx_hquote *q,
                             apr_int64_t now, sbx_hprice *out)
{
    stay_factors f;
    stay_factors_of(h, q, &f);
    return price(h, w, q, now, out, 1, &f);
}

apr_int64_t sbx_hprice_fee(const sbx_hprice *r, apr_int64_t t)
{
    apr_int64_t fee = 0;
    int i;
    for (i = 0; i < r->n_penalties; i++) {
        if (t >= r->penalties[i].from && r->penalties[i].amount > fee) {
            fee = r->penalties[i].amount;
        }
    }
    return fee;
}

static int by_total(const void *a, const void *b)
{
    const sbx_hquote *x = a, *y = b;
    if (x->total != y->total) {
        return x->total < y->total ? -1 : 1;
    }
    if (x->room != y->room) {
        return x->room - y->room;
    }
    if (x->board != y->board) {
        return x->board - y->board;
    }
    return x->plan - y->plan;
}

int sbx_hotel_rates(const sbx_hotels *h, const sbx_world *w, const sbx_hquote *q,
                    apr_int64_t now, sbx_hquote *out, int max)
{
    const sbx_hotel *x = &h->hotels[q->hotel];
    sbx_hquote all[SBX_ROOM_TYPES * SBX_BOARDS * 2];
    sbx_hprice *prices = malloc(sizeof(sbx_hprice) * SBX_MAX_HROOMS);
    stay_factors f;
    int n = 0, r, b, plan, k, i;
    if (!prices) {
        return 0;
    }
    stay_factors_of(h, q, &f);
    for (r = 0; r < SBX_ROOM_TYPES; r++) {
        int fits = (x->rooms >> r) & 1;
        for (k = 0; fits && k < q->n_rooms; k++) {
            fits = sbx_room_fits(r, &q->occ[k]);
        }
        if (!fits) {
            continue;
        }
        for (b = 0; b < SBX_BOARDS; b++) {
            if (!((x->boards >> b) & 1)) {
                continue;
            }
            for (plan = 0; plan < 2; plan++) {
                if (plan == SBX_PLAN_NONREFUNDABLE && !x->nrf) {
                    continue;
                }
                all[n] = *q;
                all[n].room = r;
                all[n].board = b;
                all[n].plan = plan;
                all[n].total = price(h, w, &all[n], now, prices, 0, &f);
                n++;
            }
        }
    }
    free(prices);
    qsort(all, (size_t)n, sizeof(all[0]), by_total);
    for (i = 0; i < n && i < max; i++) {
        out[i] = all[i];
    }
    return i;
}

/* ---- tokens ---- */

/* A room's occupancy, "2" or "2-4,10". */
static void occ_put(trv_jtext *t, const sbx_occ *o)
{
    int i;
    trv_jtext_integer(t, o->adults);
    for (i = 0; i < o->n_children && i < SBX_MAX_CHILDREN; i++) {
        trv_jtext_put(t, i ? "," : "-", 1);
        trv_jtext_integer(t, o->ages[i]);
    }
}

char *sbx_occ_format(apr_pool_t *p, const sbx_occ *o)
{
    trv_jtext t;
    trv_jtext_init(&t, p, 32);
    occ_put(&t, o);
    return (char *)trv_jtext_done(&t, NULL);
}

static int small_int(const char **s, int *v)
{
    char *end;
    long n;
    if (**s < '0' || **s > '9') {
        return -1;
    }
    n = strtol(*s, &end, 10);
    if (n > 99 || end - *s > 2) {
        return -1;
    }
    *v = (int)n;
    *s = end;
    return 0;
}

int sbx_occ_parse(const char *s, sbx_occ *o)
{
    memset(o, 0, sizeof(*o));
    if (!s || small_int(&s, &o->adults) != 0) {
        return -1;
    }
    if (*s == '-') {
        do {
            s++;
            if (o->n_children == SBX_MAX_CHILDREN
                || small_int(&s, &o->ages[o->n_children++]) != 0) {
                return -1;
            }
        } while (*s == ',');
    }
    return *s ? -1 : 0;
}

/* "|" and an integer. */
static void field(trv_jtext *t, apr_int64_t v)
{
    trv_jtext_put(t, "|", 1);
    trv_jtext_integer(t, v);
}

/* The quote's fields, "|" between them, written with the text writer's
 * pieces: through apr_psprintf and apr_pstrcat they were a twentieth of
 * the sandbox's instructions in a hotel search (a token for each of ~150
 * rates). */
char *sbx_hquote_encode(apr_pool_t *p, const sbx_hquote *q, const char *kind,
                        const char *key)
{
    trv_jtext t;
    int k;
    trv_jtext_init(&t, p, 160);
    trv_jtext_put(&t, "h1|", 3);
    trv_jtext_put(&t, kind, strlen(kind));
    field(&t, q->supplier);
    field(&t, q->hotel);
    field(&t, q->room);
    field(&t, q->board);
    field(&t, q->plan);
    field(&t, q->checkin);
    field(&t, q->nights);
    field(&t, q->today);
    trv_jtext_put(&t, "|", 1);
    trv_jtext_put(&t, q->currency, strnlen(q->currency, 3));
    field(&t, q->factor_permille);
    field(&t, q->total);
    field(&t, q->expires);
    trv_jtext_put(&t, "|", 1);
    for (k = 0; k < q->n_rooms && k < SBX_MAX_HROOMS; k++) {
        if (k) {
            trv_jtext_put(&t, ";", 1);
        }
        occ_put(&t, &q->occ[k]);
    }
    if (q->serial) {
        field(&t, q->serial);
    }
    return sbx_token_seal(p, key, trv_jtext_done(&t, NULL));
}

int sbx_hquote_decode(apr_pool_t *p, const char *token, const char *kind, const char *key,
                      const sbx_hotels *h, sbx_hquote *q)
{
    char *msg = sbx_token_open(p, key, token), *f[17], *last, *occ, *one, *t;
    const char *reason;
    int n = 0, k;
    if (!msg) {
        return -1;
    }
    memset(q, 0, sizeof(*q));
    for (t = apr_strtok(msg, "|", &last); t && n < 17; t = apr_strtok(NULL, "|", &last)) {
        f[n++] = t;
    }
    /* 16 fields: a prebook's, with its serial. */
    if (t || (n != 15 && n != 16) || strcmp(f[0], "h1") != 0 || strcmp(f[1], kind) != 0 || strlen(f[10]) != 3) {
        return -1;
    }
    q->supplier = atoi(f[2]);
    q->hotel = atoi(f[3]);
    q->room = atoi(f[4]);
    q->board = atoi(f[5]);
    q->plan = atoi(f[6]);
    q->checkin = atol(f[7]);
    q->nights = atoi(f[8]);
    q->today = atol(f[9]);
    memcpy(q->currency, f[10], 4);
    q->factor_permille = atoi(f[11]);
    q->total = apr_atoi64(f[12]);
    q->expires = apr_atoi64(f[13]);
    q->serial = n == 16 ? (apr_uint32_t)strtoul(f[15], NULL, 10) : 0;
    occ = f[14];
    for (one = apr_strtok(occ, ";", &last); one; one = apr_strtok(NULL, ";", &last)) {
        if (q->n_rooms == SBX_MAX_HROOMS || sbx_occ_parse(one, &q->occ[q->n_rooms++]) != 0) {
            return -1;
        }
    }
    /* Signed by the sandbox, but checked anyway: a key shared between
     * builds must not index outside this catalogue. */
    if (q->hotel < 0 || q->hotel >= h->n_hotels || q->room < 0 || q->room >= SBX_ROOM_TYPES
        || q->board < 0 || q->board >= SBX_BOARDS || q->nights < 1
        || q->nights > SBX_MAX_NIGHTS || q->n_rooms < 1) {
        return -1;
    }
    /* Nor may it carry what the sandbox never signs: days, amounts and
     * factors that would overflow the date and price arithmetic (found by
     * fuzz_sandbox_hotel: a check-in of 2^63 days), an unknown supplier,
     * plan or currency, a room nobody could book. */
    if (q->supplier < 0 || q->supplier >= SBX_HOTEL_SUPPLIERS
        || (q->plan != SBX_PLAN_REFUNDABLE && q->plan != SBX_PLAN_NONREFUNDABLE)
        || q->today < 0 || q->today > LAST_DAY - SBX_MAX_DAYS_AHEAD - SBX_MAX_NIGHTS
        || q->checkin < q->today || q->checkin > q->today + SBX_MAX_DAYS_AHEAD
        || !sbx_currency_known(q->currency) || q->factor_permille < SBX_FACTOR_MIN
        || q->factor_permille > SBX_FACTOR_MAX || q->total < 0 || q->total > TRV_MONEY_MAX_MINOR
        || q->expires < 0 || q->expires > (apr_int64_t)LAST_DAY * 86400) {
        return -1;
    }
    for (k = 0; k < q->n_rooms; k++) {
        if (sbx_occ_check(&q->occ[k], &reason) != 0) {
            return -1;
        }
    }
    return 0;
}

char *sbx_day_format(apr_pool_t *p, long day)
{
    int y, m, d;
    trv_civil_from_days(day, &y, &m, &d);
    return apr_psprintf(p, "%04d-%02d-%02d", y, m, d);
}

long sbx_day_of(const char *s)
{
    apr_time_t t;
    if (!s || trv_date_parse(s, &t) != APR_SUCCESS) {
        return -1;
    }
    return (long)(apr_time_sec(t) / 86400);
}
