/* Duffel's Offer, Airline and Place as text; see duffel_text.h. */
#include "duffel_text.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

void sbx_dtext_init(sbx_dtext *d, apr_pool_t *p, const sbx_world *w, apr_size_t cap)
{
    trv_jtext_init(&d->t, p, cap);
    d->w = w;
    d->n_places = d->n_airlines = d->n_at = 0;
}

/* sbx_instant, kept for the instants met again. */
static const char *instant(sbx_dtext *d, apr_int64_t secs)
{
    int i;
    const char *s;
    for (i = 0; i < d->n_at; i++) {
        if (d->at[i] == secs) {
            return d->at_text[i];
        }
    }
    s = sbx_instant(d->t.p, secs);
    if (d->n_at < 4) {
        d->at[d->n_at] = secs;
        d->at_text[d->n_at++] = s;
    }
    return s;
}

/* The kept text of entry i, or NULL. */
static const sbx_dtext_kept *kept(const sbx_dtext_kept *k, int n, int i)
{
    int x;
    for (x = 0; x < n; x++) {
        if (k[x].i == i) {
            return &k[x];
        }
    }
    return NULL;
}

/* Writes entry i with write() into its own text, keeps it when there is
 * room, and copies it into d's text. */
static void keep_and_copy(sbx_dtext *d, sbx_dtext_kept *k, int *n, int i,
                          void (*write)(trv_jtext *, const sbx_world *, int))
{
    const sbx_dtext_kept *have = kept(k, *n, i);
    trv_jtext one;
    const char *s;
    apr_size_t len;
    if (have) {
        trv_jtext_raw(&d->t, have->s, have->n);
        return;
    }
    trv_jtext_init(&one, d->t.p, 512);
    write(&one, d->w, i);
    if (!(s = trv_jtext_done(&one, &len))) {
        d->t.bad = 1;
        return;
    }
    if (*n < SBX_DTEXT_KEPT) {
        k[*n].i = i;
        k[*n].s = s;
        k[*n].n = len;
        (*n)++;
    }
    trv_jtext_raw(&d->t, s, len);
}

static void place(trv_jtext *t, const sbx_world *w, int i)
{
    const sbx_airport *a = &w->airports[i];
    char id[8];
    apr_snprintf(id, sizeof(id), "arp_%s", a->iata);
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "type", "airport");
    trv_jtext_kstr(t, "id", id);
    trv_jtext_kstr(t, "iata_code", a->iata);
    trv_jtext_kstr(t, "icao_code", a->icao);
    trv_jtext_kstr(t, "name", a->name);
    trv_jtext_kstr(t, "city_name", a->city);
    trv_jtext_knull(t, "iata_city_code");
    trv_jtext_knull(t, "city");
    trv_jtext_kstr(t, "time_zone", a->tz_name);
    trv_jtext_kreal(t, "latitude", a->lat);
    trv_jtext_kreal(t, "longitude", a->lon);
    trv_jtext_kstr(t, "iata_country_code", a->country_code);
    trv_jtext_end(t);
}

static void airline(trv_jtext *t, const sbx_world *w, int i)
{
    const sbx_airline *a = &w->airlines[i];
    char id[8];
    apr_snprintf(id, sizeof(id), "arl_%s", a->iata);
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "id", id);
    trv_jtext_kstr(t, "iata_code", a->iata);
    trv_jtext_kstr(t, "name", a->name);
    trv_jtext_kstr(t, "logo_symbol_url", sbx_logo_url(t->p, a->iata));
    trv_jtext_knull(t, "logo_lockup_url");
    trv_jtext_knull(t, "conditions_of_carriage_url");
    trv_jtext_end(t);
}

void sbx_dtext_place(sbx_dtext *d, int i)
{
    keep_and_copy(d, d->places, &d->n_places, i, place);
}

void sbx_dtext_airline(sbx_dtext *d, int i)
{
    keep_and_copy(d, d->airlines, &d->n_airlines, i, airline);
}

const char *sbx_dtext_cabin(apr_pool_t *p, int cabin)
{
    char *out = apr_pstrdup(p, sbx_cabin_code(cabin)), *c;
    for (c = out; *c; c++) {
        *c = (char)apr_tolower(*c);
    }
    return out;
}

const char *sbx_dtext_pax_type(int t)
{
    return t == 0 ? "adult" : t == 1 ? "child" : "infant_without_seat";
}

const char *sbx_dtext_pax_id(apr_pool_t *p, const sbx_offer *o, int i)
{
    return apr_psprintf(p, "pas_%08x-%d", (unsigned)o->nonce, i);
}

const char *sbx_dtext_seg_id(apr_pool_t *p, const sbx_offer *o, int j, int k)
{
    return apr_psprintf(p, "seg_%s-%d-%d", o->tag, j, k);
}

/* ---- the offer ---- */

static void condition(trv_jtext *t, const char *key, const sbx_offer *o, int allowed,
                      apr_int64_t penalty)
{
    trv_jtext_kobj(t, key);
    trv_jtext_kbool(t, "allowed", allowed);
    if (allowed) {
        trv_jtext_kstr(t, "penalty_amount", sbx_amount(t->p, penalty, o->currency));
        trv_jtext_kstr(t, "penalty_currency", o->currency);
    }
    else {
        trv_jtext_knull(t, "penalty_amount");
        trv_jtext_knull(t, "penalty_currency");
    }
    trv_jtext_end(t);
}

/* The members of an offer's (or a slice's) conditions, the object left
 * open for a slice's three more. */
static void conditions_open(trv_jtext *t, const sbx_offer *o)
{
    const sbx_brand *b = sbx_offer_brand(o);
    trv_jtext_kobj(t, "conditions");
    condition(t, "refund_before_departure", o, b->refund_allowed, sbx_offer_refund_penalty(o));
    condition(t, "change_before_departure", o, b->change_allowed, sbx_offer_change_penalty(o));
}

static void segment_passengers(sbx_dtext *d, const sbx_offer *o, int km)
{
    trv_jtext *t = &d->t;
    const sbx_brand *b = sbx_offer_brand(o);
    const char *cabin = sbx_dtext_cabin(t->p, o->q.cabin);
    const char *basis = apr_psprintf(t->p, "%c%sSBX", sbx_cabin_code(o->q.cabin)[0],
                                     b->name[0] == 'F' ? "FX" : "LO");
    int i;
    trv_jtext_karr(t, "passengers");
    for (i = 0; i < sbx_pax_count(o); i++) {
        int seat = sbx_pax_type(o, i) != 2;
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "passenger_id", sbx_dtext_pax_id(t->p, o, i));
        trv_jtext_kstr(t, "cabin_class", cabin);
        trv_jtext_kstr(t, "cabin_class_marketing_name", sbx_cabin_display(o->q.cabin));
        trv_jtext_kstr(t, "fare_basis_code", basis);
        trv_jtext_knull(t, "cabin");
        trv_jtext_karr(t, "baggages");
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "type", "checked");
        trv_jtext_kint(t, "quantity", seat ? b->checked_bags : 0);
        trv_jtext_end(t);
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "type", "carry_on");
        trv_jtext_kint(t, "quantity", seat ? sbx_brand_carry_on(b, km) : 0);
        trv_jtext_end(t);
        trv_jtext_end(t);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
}

static void segment(sbx_dtext *d, const sbx_offer *o, int j, int k, int km)
{
    trv_jtext *t = &d->t;
    const sbx_leg *l = &o->it[j].legs[k];
    char dep[20], arr[20];
    sbx_local_format(l->dep_local, dep);
    sbx_local_format(l->arr_local, arr);
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "id", sbx_dtext_seg_id(t->p, o, j, k));
    trv_jtext_key(t, "origin");
    sbx_dtext_place(d, l->from);
    trv_jtext_key(t, "destination");
    sbx_dtext_place(d, l->to);
    trv_jtext_knull(t, "origin_terminal");
    trv_jtext_knull(t, "destination_terminal");
    trv_jtext_kstr(t, "departing_at", dep);
    trv_jtext_kstr(t, "arriving_at", arr);
    trv_jtext_kstr(t, "duration", sbx_duration(t->p, l->block_min));
    trv_jtext_kstr(t, "distance", apr_itoa(t->p, l->km));
    trv_jtext_key(t, "marketing_carrier");
    sbx_dtext_airline(d, l->mkt);
    trv_jtext_kstr(t, "marketing_carrier_flight_number", apr_itoa(t->p, l->flight_no));
    trv_jtext_key(t, "operating_carrier");
    sbx_dtext_airline(d, l->op);
    trv_jtext_kstr(t, "operating_carrier_flight_number", apr_itoa(t->p, l->op_flight_no));
    trv_jtext_kobj(t, "aircraft");
    trv_jtext_kstr(t, "id", apr_pstrcat(t->p, "arc_", l->equipment, NULL));
    trv_jtext_kstr(t, "iata_code", l->equipment);
    trv_jtext_kstr(t, "name", l->equipment);
    trv_jtext_end(t);
    trv_jtext_karr(t, "stops");
    trv_jtext_end(t);
    segment_passengers(d, o, km);
    trv_jtext_end(t);
}

static void slices(sbx_dtext *d, const sbx_offer *o)
{
    trv_jtext *t = &d->t;
    const sbx_brand *b = sbx_offer_brand(o);
    int j, k;
    trv_jtext_karr(t, "slices");
    for (j = 0; j < o->q.nj; j++) {
        const sbx_itin *it = &o->it[j];
        int km = 0;
        for (k = 0; k < it->n; k++) {
            km += it->legs[k].km;
        }
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "id", apr_psprintf(t->p, "sli_%s-%d", o->tag, j));
        trv_jtext_key(t, "origin");
        sbx_dtext_place(d, o->q.j[j].origin);
        trv_jtext_kstr(t, "origin_type", "airport");
        trv_jtext_key(t, "destination");
        sbx_dtext_place(d, o->q.j[j].dest);
        trv_jtext_kstr(t, "destination_type", "airport");
        trv_jtext_kstr(t, "duration", sbx_duration(t->p, sbx_itin_minutes(it)));
        trv_jtext_kstr(t, "fare_brand_name", b->name);
        trv_jtext_karr(t, "segments");
        for (k = 0; k < it->n; k++) {
            segment(d, o, j, k, km);
        }
        trv_jtext_end(t);
        conditions_open(t, o);
        trv_jtext_knull(t, "advance_seat_selection");
        trv_jtext_knull(t, "priority_boarding");
        trv_jtext_knull(t, "priority_check_in");
        trv_jtext_end(t);
        trv_jtext_knull(t, "ngs_shelf");
        trv_jtext_kstr(t, "comparison_key", apr_psprintf(t->p, "%s-%d", o->tag, j));
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
}

static void services(trv_jtext *t, const sbx_offer *o)
{
    sbx_bag bags[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2];
    int n = sbx_offer_bags(o, bags, (int)(sizeof(bags) / sizeof(bags[0]))), i, k;
    trv_jtext_karr(t, "available_services");
    for (i = 0; i < n; i++) {
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "id", apr_psprintf(t->p, "ase_%s-%s", o->tag, bags[i].suffix));
        trv_jtext_kstr(t, "type", "baggage");
        trv_jtext_kobj(t, "metadata");
        trv_jtext_kstr(t, "type", bags[i].type == SBX_BAG_CHECKED ? "checked" : "carry_on");
        trv_jtext_kint(t, "maximum_weight_kg", bags[i].weight_kg);
        trv_jtext_knull(t, "maximum_height_cm");
        trv_jtext_knull(t, "maximum_length_cm");
        trv_jtext_knull(t, "maximum_depth_cm");
        trv_jtext_end(t);
        trv_jtext_karr(t, "passenger_ids");
        trv_jtext_str(t, sbx_dtext_pax_id(t->p, o, bags[i].pax));
        trv_jtext_end(t);
        trv_jtext_karr(t, "segment_ids");
        for (k = 0; k < o->it[bags[i].journey].n; k++) {
            trv_jtext_str(t, sbx_dtext_seg_id(t->p, o, bags[i].journey, k));
        }
        trv_jtext_end(t);
        trv_jtext_kstr(t, "total_amount", sbx_amount(t->p, bags[i].unit, o->currency));
        trv_jtext_kstr(t, "total_currency", o->currency);
        trv_jtext_kint(t, "maximum_quantity", bags[i].max_qty);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
}

/* About 90 g of CO2 per passenger-kilometre, as a whole number of kg. */
static const char *emissions(apr_pool_t *p, const sbx_offer *o)
{
    long km = 0;
    int j, k;
    for (j = 0; j < o->q.nj; j++) {
        for (k = 0; k < o->it[j].n; k++) {
            km += o->it[j].legs[k].km;
        }
    }
    return apr_psprintf(p, "%ld", km * sbx_pax_count(o) * 9 / 100);
}

/* The carriers' codes, each once, in the order the segments name them
 * (marketing before operating). */
static void loyalty(sbx_dtext *d, const sbx_offer *o)
{
    const char *seen[SBX_MAX_JOURNEYS * SBX_MAX_LEGS * 2];
    int n = 0, j, k, c, x;
    trv_jtext_karr(&d->t, "supported_loyalty_programmes");
    for (j = 0; j < o->q.nj; j++) {
        for (k = 0; k < o->it[j].n; k++) {
            const char *codes[2] = {d->w->airlines[o->it[j].legs[k].mkt].iata,
                                    d->w->airlines[o->it[j].legs[k].op].iata};
            for (c = 0; c < 2; c++) {
                for (x = 0; x < n && strcmp(seen[x], codes[c]) != 0; x++) {
                }
                if (x == n) {
                    seen[n++] = codes[c];
                    trv_jtext_str(&d->t, codes[c]);
                }
            }
        }
    }
    trv_jtext_end(&d->t);
}

void sbx_dtext_offer(sbx_dtext *d, const sbx_offer *o, apr_int64_t created,
                     apr_int64_t hold, sbx_dtext_services with)
{
    trv_jtext *t = &d->t;
    apr_pool_t *p = t->p;
    const char *made = instant(d, created);
    const char *hold_until = instant(d, created + hold);
    int i;
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "id", apr_pstrcat(p, "off_", o->ref, NULL));
    trv_jtext_kbool(t, "live_mode", 0);
    trv_jtext_kstr(t, "created_at", made);
    trv_jtext_kstr(t, "updated_at", made);
    trv_jtext_kstr(t, "expires_at", instant(d, o->expires));
    trv_jtext_kstr(t, "total_amount", sbx_amount(p, o->base + o->tax, o->currency));
    trv_jtext_kstr(t, "total_currency", o->currency);
    trv_jtext_kstr(t, "base_amount", sbx_amount(p, o->base, o->currency));
    trv_jtext_kstr(t, "base_currency", o->currency);
    trv_jtext_kstr(t, "tax_amount", sbx_amount(p, o->tax, o->currency));
    trv_jtext_kstr(t, "tax_currency", o->currency);
    trv_jtext_kstr(t, "total_emissions_kg", emissions(p, o));
    trv_jtext_key(t, "owner");
    sbx_dtext_airline(d, o->it[0].legs[0].mkt);
    trv_jtext_kbool(t, "passenger_identity_documents_required",
                    sbx_offer_international(d->w, o));
    trv_jtext_karr(t, "supported_passenger_identity_document_types");
    trv_jtext_str(t, "passport");
    trv_jtext_end(t);
    loyalty(d, o);
    conditions_open(t, o);
    trv_jtext_end(t);
    trv_jtext_karr(t, "passengers");
    for (i = 0; i < sbx_pax_count(o); i++) {
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "id", sbx_dtext_pax_id(p, o, i));
        trv_jtext_kstr(t, "type", sbx_dtext_pax_type(sbx_pax_type(o, i)));
        trv_jtext_knull(t, "age");
        trv_jtext_knull(t, "fare_type");
        trv_jtext_karr(t, "loyalty_programme_accounts");
        trv_jtext_end(t);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    slices(d, o);
    trv_jtext_kobj(t, "payment_requirements");
    trv_jtext_kbool(t, "requires_instant_payment", 0);
    trv_jtext_kstr(t, "payment_required_by", hold_until);
    trv_jtext_kstr(t, "price_guarantee_expires_at", hold_until);
    trv_jtext_end(t);
    trv_jtext_karr(t, "private_fares");
    trv_jtext_end(t);
    trv_jtext_kbool(t, "partial", 0);
    if (with == SBX_DTEXT_SERVICES) {
        services(t, o);
    }
    else if (with == SBX_DTEXT_SERVICES_NONE) {
        trv_jtext_karr(t, "available_services");
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
}

json_t *sbx_dtext_tree(sbx_dtext *d)
{
    apr_size_t len;
    const char *s = trv_jtext_done(&d->t, &len);
    return s ? json_loadb(s, len, 0, NULL) : NULL;
}
