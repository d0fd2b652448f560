/* What the supplier adapters share (wire.h). */
#include "wire.h"
#include "core/json.h"
#include "core/jval.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

trv_up_status trv_fwire_call(trv_flight_ctx *ctx, const trv_flight_supplier *self,
                             const trv_supplier_call_opts *opts, const char *method,
                             const char *path, const json_t *body, trv_up_result *res,
                             trv_sup_err *err)
{
    trv_supplier_call_opts o = *opts;
    o.family = "flight";
    o.who = self->name;
    /* The one place a flight adapter's key is kept or dropped: the
     * protocol row of the calling adapter decides (core/registry.h). */
    o.idempotency_key = trv_supplier_idempotency_key(trv_flight_suppliers, self,
                                                     opts->idempotency_key);
    return trv_supplier_call_send(&ctx->call, &o, 1101, method, path, body, res, err);
}

int trv_fwire_money_read(const trv_jval *amount, const char *currency, trv_money *m)
{
    if (trv_money_minor_of_jval(amount, currency, &m->minor) != 0
        || trv_money_make(m, m->minor, currency) != APR_SUCCESS) {
        return -1;
    }
    return 0;
}

void trv_fwire_money_text(trv_jtext *t, const trv_jval *amount, const char *currency)
{
    trv_money m;
    if (trv_fwire_money_read(amount, currency, &m) == 0) {
        trv_money_write(t, &m);
    }
    else {
        trv_jtext_null(t);
    }
}

json_t *trv_fwire_money(const json_t *amount, const char *currency)
{
    trv_money m;
    if (trv_money_minor_of(amount, currency, &m.minor) != 0
        || trv_money_make(&m, m.minor, currency) != APR_SUCCESS) {
        return NULL;
    }
    return trv_money_json(&m);
}

const char *trv_fwire_decimal(apr_pool_t *p, const json_t *money, const char **currency)
{
    trv_money m;
    const char *reason;
    if (!money || trv_money_from_json(money, &m, &reason) != APR_SUCCESS) {
        return NULL;
    }
    *currency = apr_pstrdup(p, m.currency);
    return trv_money_decimal(p, m.minor, trv_currency_exponent(m.currency));
}

int trv_fwire_iso_minutes(const char *s)
{
    long total = 0;
    int in_time = 0, any = 0;
    if (!s || *s != 'P') {
        return -1;
    }
    for (s++; *s; s++) {
        long v = 0;
        if (*s == 'T') {
            in_time = 1;
            continue;
        }
        if (!isdigit((unsigned char)*s)) {
            return -1;
        }
        while (isdigit((unsigned char)*s)) {
            v = v * 10 + (*s - '0');
            if (v > 100000) {
                return -1;
            }
            s++;
        }
        if (*s == 'D' && !in_time) {
            total += v * 1440;
        }
        else if (*s == 'H' && in_time) {
            total += v * 60;
        }
        else if (*s == 'M' && in_time) {
            total += v;
        }
        else if (*s == 'S' && in_time) {
            total += v / 60;
        }
        else {
            return -1;
        }
        any = 1;
    }
    return any ? (int)total : -1;
}

const char *trv_fwire_local_time(apr_pool_t *p, const char *s)
{
    char *out;
    if (!s || strlen(s) < 16) {
        return s;
    }
    out = apr_pstrndup(p, s, 16);
    out[10] = 'T';
    return apr_pstrcat(p, out, ":00", NULL);
}

const char *trv_fwire_direction(const char *first_origin, const char *dest, size_t j, size_t n)
{
    if (n == 2 && j == 1 && first_origin && dest && strcasecmp(first_origin, dest) == 0) {
        return "INBOUND";
    }
    return "OUTBOUND";
}

void trv_fwire_segment_write(trv_jtext *t, trv_foffer_text *offer, const trv_fwire_segment *s)
{
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "origin", s->origin);
    trv_jtext_kstr(t, "destination", s->destination);
    trv_jtext_kstr(t, "departure_time", s->departure_time);
    trv_jtext_kstr(t, "arrival_time", s->arrival_time);
    trv_jtext_kstr(t, "marketing_flight", s->marketing_flight);
    trv_jtext_kstr(t, "marketing_carrier", s->marketing_carrier);
    trv_jtext_kstr(t, "marketing_carrier_code", s->marketing_carrier_code);
    trv_jtext_kstr(t, "marketing_carrier_logo_url", s->marketing_carrier_logo_url);
    trv_jtext_kstr(t, "operating_carrier", s->operating_carrier);
    trv_jtext_kstr(t, "operating_carrier_code", s->operating_carrier_code);
    trv_jtext_kstr(t, "operating_carrier_logo_url", s->operating_carrier_logo_url);
    trv_jtext_kint(t, "duration_minutes", s->duration_minutes);
    trv_jtext_kstr(t, "cabin_class", s->cabin_class);
    trv_jtext_end(t);
    trv_foffer_text_carrier(offer, s->marketing_carrier_code);
}

void trv_fwire_journey_begin(trv_jtext *t, trv_foffer_text *offer, const trv_fwire_journey *j)
{
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "origin", j->origin);
    trv_jtext_kstr(t, "destination", j->destination);
    trv_jtext_kstr(t, "direction", j->direction);
    trv_jtext_kstr(t, "departure_time", j->departure_time);
    trv_jtext_kstr(t, "arrival_time", j->arrival_time);
    trv_jtext_kint(t, "duration_minutes", j->duration_minutes);
    trv_jtext_kint(t, "stops", j->stops);
    trv_jtext_karr(t, "segments");
    if (j->stops > offer->stops) {
        offer->stops = j->stops;
    }
}

void trv_fwire_journey_end(trv_jtext *t)
{
    trv_jtext_end(t);
    trv_jtext_end(t);
}

void trv_fwire_count_bag(json_t *journeys, json_int_t journey, json_int_t passenger,
                         const char *bag_type, json_int_t quantity)
{
    json_t *segs = json_object_get(json_array_get(journeys, (size_t)journey), "segments");
    const char *field = strcmp(bag_type, "CHECKED") == 0 ? "checked_bags" : "carry_on_bags";
    size_t k;
    for (k = 0; k < json_array_size(segs); k++) {
        json_t *pax = json_object_get(json_array_get(segs, k), "passengers");
        json_t *p = json_array_get(pax, (size_t)passenger);
        if (p) {
            json_object_set_new(p, field, json_integer(json_integer_value(
                                              json_object_get(p, field)) + quantity));
        }
    }
}
