#include "input.h"
#include "supplier.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *field(apr_pool_t *p, const char *prefix, const char *key)
{
    return prefix ? apr_pstrcat(p, prefix, ".", key, NULL) : key;
}

static const char *at(apr_pool_t *p, const char *prefix, size_t i)
{
    return apr_psprintf(p, "%s[%" APR_SIZE_T_FMT "]", prefix, i);
}

/* An integer field: dflt when absent; min..max. */
static long int_field(const json_t *obj, const char *key, const char *name, int required,
                      long min, long max, long dflt, trv_errs *errs)
{
    const json_t *v = json_object_get(obj, key);
    /* Absent takes the default; null is a value, and not an integer. */
    if (!v) {
        if (required) {
            trv_errs_add(errs, name, "is required");
        }
        return dflt;
    }
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        trv_errs_add(errs, name, "must be an integer from %ld to %ld", min, max);
        return dflt;
    }
    return (long)json_integer_value(v);
}

static int bool_field(const json_t *obj, const char *key, const char *name, int dflt,
                      trv_errs *errs)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) {
        return dflt;
    }
    if (!json_is_boolean(v)) {
        trv_errs_add(errs, name, "must be true or false");
        return dflt;
    }
    return json_is_true(v);
}

static const char *enum_field(apr_pool_t *p, const json_t *obj, const char *key,
                              const char *name, int required, const char *const *values,
                              trv_errs *errs)
{
    const char *v = trv_json_req_str(obj, key, name, required, 1, 64, errs);
    const char *const *k;
    const char *list = NULL;
    if (!v) {
        return NULL;
    }
    for (k = values; *k; k++) {
        if (strcmp(v, *k) == 0) {
            return *k;
        }
        list = list ? apr_pstrcat(p, list, ", ", *k, NULL) : *k;
    }
    trv_errs_add(errs, name, "must be one of %s", list);
    return NULL;
}

/* count characters of [A-Z] (upper) or [A-Z0-9] (alnum). */
static int code_shape(const char *s, size_t len, int digits_ok)
{
    size_t i;
    if (!s || strlen(s) != len) {
        return 0;
    }
    for (i = 0; i < len; i++) {
        if (!(isupper((unsigned char)s[i]) || (digits_ok && isdigit((unsigned char)s[i])))) {
            return 0;
        }
    }
    return 1;
}

static const char *code_field(const json_t *obj, const char *key, const char *name,
                              int required, size_t len, int digits_ok, const char *rule,
                              trv_errs *errs)
{
    const char *v = trv_json_req_str(obj, key, name, required, 1, 16, errs);
    if (v && !code_shape(v, len, digits_ok)) {
        trv_errs_add(errs, name, "%s", rule);
        return NULL;
    }
    return v;
}

static int has_control(const char *s)
{
    for (; s && *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            return 1;
        }
    }
    return 0;
}

static const char *name_field(const json_t *obj, const char *key, const char *name,
                              trv_errs *errs)
{
    const char *v = trv_json_req_str(obj, key, name, 1, 1, 64, errs);
    if (v && (has_control(v) || !*v || isspace((unsigned char)v[0]))) {
        trv_errs_add(errs, name, "must be printable text not starting with a space");
        return NULL;
    }
    return v;
}

static const char *digits_field(const json_t *obj, const char *key, const char *name,
                                size_t min, size_t max, trv_errs *errs)
{
    const char *v = trv_json_req_str(obj, key, name, 1, min, max, errs);
    const char *s;
    if (!v) {
        return NULL;
    }
    for (s = v; *s; s++) {
        if (!isdigit((unsigned char)*s)) {
            trv_errs_add(errs, name, "must be %" APR_SIZE_T_FMT " to %" APR_SIZE_T_FMT
                         " digits", min, max);
            return NULL;
        }
    }
    return v;
}

static long day_of(apr_time_t t)
{
    apr_int64_t s = apr_time_sec(t);
    return (long)(s >= 0 ? s / 86400 : -((-s + 86399) / 86400));
}

/* ---- offers ---- */

static const char *const cabins[] = {"ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST", NULL};

static json_t *offers_journeys(apr_pool_t *p, const json_t *body, apr_time_t now,
                               trv_errs *errs)
{
    static const char *const known[] = {"origin", "destination", "date", NULL};
    const json_t *js = json_object_get(body, "journeys");
    json_t *out = json_array();
    long today = day_of(now), last_day = -1000000;
    size_t i;

    if (!js || json_is_null(js)) {
        trv_errs_add(errs, "journeys", "is required");
        return out;
    }
    if (!json_is_array(js) || json_array_size(js) < 1 || json_array_size(js) > 4) {
        trv_errs_add(errs, "journeys", "must be a list of 1 to 4 journeys");
        return out;
    }
    for (i = 0; i < json_array_size(js); i++) {
        const json_t *j = json_array_get(js, i);
        const char *name = at(p, "journeys", i), *o, *d, *date;
        apr_time_t t;
        if (!json_is_object(j)) {
            trv_errs_add(errs, name, "must be an object {origin, destination, date}");
            continue;
        }
        trv_json_known(j, name, known, errs);
        o = code_field(j, "origin", field(p, name, "origin"), 1, 3, 0,
                       "must be a three-letter IATA airport code (upper case)", errs);
        d = code_field(j, "destination", field(p, name, "destination"), 1, 3, 0,
                       "must be a three-letter IATA airport code (upper case)", errs);
        if (o && d && strcmp(o, d) == 0) {
            trv_errs_add(errs, field(p, name, "destination"), "must differ from origin");
        }
        date = trv_json_req_str(j, "date", field(p, name, "date"), 1, 10, 10, errs);
        if (date && trv_date_parse(date, &t) != APR_SUCCESS) {
            trv_errs_add(errs, field(p, name, "date"), "must be a date YYYY-MM-DD");
            date = NULL;
        }
        else if (date) {
            long day = day_of(t);
            /* Yesterday UTC is still today somewhere west of UTC. */
            if (day < today - 1) {
                trv_errs_add(errs, field(p, name, "date"), "must not be in the past");
            }
            else if (day > today + 365) {
                trv_errs_add(errs, field(p, name, "date"),
                             "must be at most 365 days from today");
            }
            else if (day < last_day) {
                trv_errs_add(errs, field(p, name, "date"),
                             "must not be before the previous journey's date");
            }
            last_day = day;
        }
        if (o && d && date) {
            json_array_append_new(out, json_pack("{s:s,s:s,s:s}", "origin", o,
                                                 "destination", d, "date", date));
        }
    }
    return out;
}

void trv_finput_offers(apr_pool_t *p, const json_t *body, apr_time_t now,
                       const char *const *suppliers,
                       trv_offers_input *in, trv_errs *errs)
{
    static const char *const known[] = {"journeys", "passengers", "supplier", "limit",
                                        "cabin_class", "filters", NULL};
    static const char *const pknown[] = {"adults", "children", "infants", NULL};
    static const char *const fknown[] = {"max_stops", "carriers", "price", NULL};
    const json_t *pax = json_object_get(body, "passengers");
    const json_t *filters = json_object_get(body, "filters");
    const char *cabin;
    json_t *journeys;

    memset(in, 0, sizeof(*in));
    in->max_stops = -1;
    in->unsupported = trv_json_bind(p, json_array());
    trv_json_known(body, NULL, known, errs);
    journeys = trv_json_bind(p, offers_journeys(p, body, now, errs));
    if (!pax || json_is_null(pax)) {
        trv_errs_add(errs, "passengers", "is required");
    }
    else if (!json_is_object(pax)) {
        trv_errs_add(errs, "passengers", "must be an object {adults, children, infants}");
    }
    else {
        trv_json_known(pax, "passengers", pknown, errs);
        in->adults = (int)int_field(pax, "adults", "passengers.adults", 1, 1, 9, 1, errs);
        in->children = (int)int_field(pax, "children", "passengers.children", 0, 0, 8, 0,
                                      errs);
        in->infants = (int)int_field(pax, "infants", "passengers.infants", 0, 0, 9, 0,
                                     errs);
        if (in->adults + in->children > 9) {
            trv_errs_add(errs, "passengers", "at most 9 seated passengers (adults and "
                         "children) per booking");
        }
        if (in->infants > in->adults) {
            trv_errs_add(errs, "passengers.infants", "must not exceed adults (one infant "
                         "on each adult's lap)");
        }
    }
    in->supplier = enum_field(p, body, "supplier", "supplier", 0,
                              suppliers, errs);
    in->limit = int_field(body, "limit", "limit", 0, 1, TRV_OFFERS_MAX_LIMIT,
                          TRV_OFFERS_DEFAULT_LIMIT, errs);
    cabin = enum_field(p, body, "cabin_class", "cabin_class", 0, cabins, errs);
    if (filters && !json_is_null(filters)) {
        if (!json_is_object(filters)) {
            trv_errs_add(errs, "filters", "must be an object");
        }
        else {
            const json_t *carriers = json_object_get(filters, "carriers");
            const json_t *price = json_object_get(filters, "price");
            trv_json_known(filters, "filters", fknown, errs);
            in->max_stops = (int)int_field(filters, "max_stops", "filters.max_stops", 0,
                                           0, 3, -1, errs);
            if (carriers && !json_is_null(carriers)) {
                size_t i;
                if (!json_is_array(carriers) || json_array_size(carriers) < 1
                    || json_array_size(carriers) > 20) {
                    trv_errs_add(errs, "filters.carriers",
                                 "must be a list of 1 to 20 IATA airline codes");
                }
                else {
                    in->carriers = trv_json_bind(p, json_array());
                    for (i = 0; i < json_array_size(carriers); i++) {
                        const char *c = json_string_value(json_array_get(carriers, i));
                        if (!code_shape(c, 2, 1)) {
                            trv_errs_add(errs, at(p, "filters.carriers", i),
                                         "must be a two-character IATA airline code "
                                         "(upper case)");
                            continue;
                        }
                        json_array_append_new(in->carriers, json_string(c));
                    }
                }
            }
            if (price && !json_is_null(price)) {
                static const char *const pk[] = {"max", NULL};
                const json_t *max = json_object_get(price, "max");
                if (!json_is_object(price) || !json_is_number(max)
                    || json_number_value(max) <= 0) {
                    trv_errs_add(errs, "filters.price", "must be {max: a positive number}");
                }
                else {
                    trv_json_known(price, "filters.price", pk, errs);
                    /* No supplier prices in a currency the caller chooses, so
                     * a price cap cannot be applied: listed, not refused. */
                    json_array_append_new(in->unsupported, json_string("price"));
                }
            }
        }
    }
    in->query = trv_json_bind(p, json_pack("{s:O,s:{s:i,s:i,s:i},s:I}", "journeys", journeys,
                                           "passengers", "adults", in->adults, "children",
                                           in->children, "infants", in->infants, "limit",
                                           (json_int_t)in->limit));
    if (cabin) {
        json_object_set_new(in->query, "cabin_class", json_string(cabin));
    }
}

/* ---- prebook ---- */

static const char *const pax_types[] = {"ADULT", "CHILD", "INFANT", NULL};
static const char *const genders[] = {"F", "M", "X", NULL};

static int email_shape(const char *s)
{
    const char *at_sign = strchr(s, '@'), *dot;
    if (!at_sign || at_sign == s || strchr(at_sign + 1, '@') || has_control(s)
        || strchr(s, ' ')) {
        return 0;
    }
    dot = strrchr(at_sign, '.');
    return dot && dot > at_sign + 1 && dot[1] != '\0';
}

static json_t *prebook_contact(apr_pool_t *p, const json_t *body, trv_errs *errs)
{
    static const char *const known[] = {"first_name", "last_name", "email", "phone_number",
                                        "phone_country_code", NULL};
    const json_t *c = json_object_get(body, "contact");
    const char *fn, *ln, *email, *phone, *cc;
    (void)p;
    if (!c || json_is_null(c)) {
        trv_errs_add(errs, "contact", "is required");
        return NULL;
    }
    if (!json_is_object(c)) {
        trv_errs_add(errs, "contact", "must be an object");
        return NULL;
    }
    trv_json_known(c, "contact", known, errs);
    fn = name_field(c, "first_name", "contact.first_name", errs);
    ln = name_field(c, "last_name", "contact.last_name", errs);
    email = trv_json_req_str(c, "email", "contact.email", 1, 3, 254, errs);
    if (email && !email_shape(email)) {
        trv_errs_add(errs, "contact.email", "must be an email address");
        email = NULL;
    }
    phone = digits_field(c, "phone_number", "contact.phone_number", 4, 15, errs);
    cc = digits_field(c, "phone_country_code", "contact.phone_country_code", 1, 3, errs);
    if (!fn || !ln || !email || !phone || !cc) {
        return NULL;
    }
    return json_pack("{s:s,s:s,s:s,s:s,s:s}", "first_name", fn, "last_name", ln, "email",
                     email, "phone_number", phone, "phone_country_code", cc);
}

static json_t *loyalty(apr_pool_t *p, const json_t *pax, const char *name, trv_errs *errs)
{
    static const char *const known[] = {"airline_iata_code", "membership_number", NULL};
    const json_t *la = json_object_get(pax, "loyalty_accounts");
    const char *lname = field(p, name, "loyalty_accounts");
    json_t *out = json_array();
    size_t i;
    if (!la || json_is_null(la)) {
        return out;
    }
    if (!json_is_array(la) || json_array_size(la) > 5) {
        trv_errs_add(errs, lname, "must be a list of at most 5 accounts");
        return out;
    }
    for (i = 0; i < json_array_size(la); i++) {
        const json_t *a = json_array_get(la, i);
        const char *an = at(p, lname, i), *code, *num, *s;
        size_t j;
        if (!json_is_object(a)) {
            trv_errs_add(errs, an, "must be an object {airline_iata_code, membership_number}");
            continue;
        }
        trv_json_known(a, an, known, errs);
        code = code_field(a, "airline_iata_code", field(p, an, "airline_iata_code"), 1, 2, 1,
                          "must be a two-character IATA airline code (upper case)", errs);
        num = trv_json_req_str(a, "membership_number", field(p, an, "membership_number"), 1,
                               1, 32, errs);
        for (s = num; s && *s; s++) {
            if (!isalnum((unsigned char)*s)) {
                trv_errs_add(errs, field(p, an, "membership_number"),
                             "must be letters and digits only");
                num = NULL;
                break;
            }
        }
        for (j = 0; code && j < i; j++) {
            const char *other = json_string_value(json_object_get(json_array_get(la, j),
                                                                  "airline_iata_code"));
            if (other && strcmp(other, code) == 0) {
                trv_errs_add(errs, field(p, an, "airline_iata_code"),
                             "one account per airline");
                code = NULL;
                break;
            }
        }
        if (code && num) {
            json_array_append_new(out, json_pack("{s:s,s:s}", "airline_iata_code", code,
                                                 "membership_number", num));
        }
    }
    return out;
}

static json_t *prebook_passengers(apr_pool_t *p, const json_t *body, apr_time_t now,
                                  trv_prebook_input *in, trv_errs *errs)
{
    static const char *const known[] = {"first_name", "last_name", "birthday", "type",
                                        "gender", "nationality", "loyalty_accounts", NULL};
    const json_t *ps = json_object_get(body, "passengers");
    json_t *out = json_array();
    size_t i;
    if (!ps || json_is_null(ps)) {
        trv_errs_add(errs, "passengers", "is required");
        return out;
    }
    if (!json_is_array(ps) || json_array_size(ps) < 1 || json_array_size(ps) > 18) {
        trv_errs_add(errs, "passengers", "must be a list of 1 to 18 passengers");
        return out;
    }
    for (i = 0; i < json_array_size(ps); i++) {
        const json_t *x = json_array_get(ps, i);
        const char *name = at(p, "passengers", i), *fn, *ln, *bd, *type, *gender, *nat;
        json_t *accounts, *one;
        apr_time_t t;
        if (!json_is_object(x)) {
            trv_errs_add(errs, name, "must be an object");
            continue;
        }
        trv_json_known(x, name, known, errs);
        fn = name_field(x, "first_name", field(p, name, "first_name"), errs);
        ln = name_field(x, "last_name", field(p, name, "last_name"), errs);
        bd = trv_json_req_str(x, "birthday", field(p, name, "birthday"), 1, 10, 10, errs);
        if (bd && trv_date_parse(bd, &t) != APR_SUCCESS) {
            trv_errs_add(errs, field(p, name, "birthday"), "must be a date YYYY-MM-DD");
            bd = NULL;
        }
        else if (bd && (day_of(t) > day_of(now) || day_of(now) - day_of(t) > 130 * 366)) {
            trv_errs_add(errs, field(p, name, "birthday"),
                         "must be a real birthday (not in the future)");
            bd = NULL;
        }
        type = enum_field(p, x, "type", field(p, name, "type"), 1, pax_types, errs);
        gender = enum_field(p, x, "gender", field(p, name, "gender"), 1, genders, errs);
        nat = code_field(x, "nationality", field(p, name, "nationality"), 0, 2, 0,
                         "must be a two-letter country code (upper case)", errs);
        accounts = loyalty(p, x, name, errs);
        if (type) {
            if (strcmp(type, "ADULT") == 0) {
                in->adults++;
            }
            else if (strcmp(type, "CHILD") == 0) {
                in->children++;
            }
            else {
                in->infants++;
            }
        }
        if (!fn || !ln || !bd || !type || !gender) {
            json_decref(accounts);
            continue;
        }
        one = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "first_name", fn, "last_name", ln,
                        "birthday", bd, "type", type, "gender", gender, "loyalty_accounts",
                        accounts);
        if (nat) {
            json_object_set_new(one, "nationality", json_string(nat));
        }
        json_array_append_new(out, one);
    }
    return out;
}

static json_t *prebook_services(apr_pool_t *p, const json_t *body, trv_errs *errs)
{
    static const char *const known[] = {"id", "quantity", NULL};
    const json_t *ss = json_object_get(body, "services");
    json_t *out = json_array();
    size_t i, j;
    if (!ss || json_is_null(ss)) {
        return out;
    }
    if (!json_is_array(ss) || json_array_size(ss) > 50) {
        trv_errs_add(errs, "services", "must be a list of at most 50 bag ids");
        return out;
    }
    for (i = 0; i < json_array_size(ss); i++) {
        const json_t *s = json_array_get(ss, i);
        const char *name = at(p, "services", i), *id = NULL;
        long qty = 1;
        if (json_is_string(s)) {
            id = json_string_value(s);
        }
        else if (json_is_object(s)) {
            trv_json_known(s, name, known, errs);
            id = trv_json_req_str(s, "id", field(p, name, "id"), 1, 1, 128, errs);
            qty = int_field(s, "quantity", field(p, name, "quantity"), 0, 1, 9, 1, errs);
        }
        else {
            trv_errs_add(errs, name, "must be a bag id or {id, quantity}");
            continue;
        }
        if (id && (strlen(id) > 128 || strlen(id) < 1 || has_control(id))) {
            trv_errs_add(errs, json_is_string(s) ? name : field(p, name, "id"),
                         "must be a bag id from the offer's bags");
            id = NULL;
        }
        for (j = 0; id && j < json_array_size(out); j++) {
            if (strcmp(trv_json_str(json_array_get(out, j), "id"), id) == 0) {
                trv_errs_add(errs, name, "lists a bag already listed; use quantity");
                id = NULL;
            }
        }
        if (id) {
            json_array_append_new(out, json_pack("{s:s,s:I}", "id", id, "quantity",
                                                 (json_int_t)qty));
        }
    }
    return out;
}

void trv_finput_prebook(apr_pool_t *p, const json_t *body, apr_time_t now,
                        trv_prebook_input *in, trv_errs *errs)
{
    static const char *const known[] = {"offer_reference", "contact", "passengers",
                                        "use_payment_sdk", "services", NULL};
    memset(in, 0, sizeof(*in));
    if (!body) {
        trv_errs_add(errs, "body", "is required: {offer_reference, contact, passengers}");
        return;
    }
    trv_json_known(body, NULL, known, errs);
    in->offer_reference = trv_json_req_str(body, "offer_reference", "offer_reference", 1, 1,
                                           600, errs);
    in->contact = trv_json_bind(p, prebook_contact(p, body, errs));
    in->passengers = trv_json_bind(p, prebook_passengers(p, body, now, in, errs));
    in->use_payment_sdk = bool_field(body, "use_payment_sdk", "use_payment_sdk", 0, errs);
    in->services = trv_json_bind(p, prebook_services(p, body, errs));
    if (in->infants > in->adults) {
        trv_errs_add(errs, "passengers", "at most one INFANT per ADULT");
    }
}

const char *trv_finput_book(apr_pool_t *p, const json_t *body, trv_errs *errs)
{
    static const char *const known[] = {"payment_instrument_id", NULL};
    const char *pi;
    (void)p;
    if (!body) {
        return NULL;
    }
    trv_json_known(body, NULL, known, errs);
    pi = trv_json_req_str(body, "payment_instrument_id", "payment_instrument_id", 0, 1, 128,
                          errs);
    if (pi && !trv_printable(pi, 1, 128)) {
        trv_errs_add(errs, "payment_instrument_id", "must be printable ASCII");
        return NULL;
    }
    return pi;
}
