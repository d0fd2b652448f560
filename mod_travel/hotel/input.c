#include "input.h"
#include "core/clock.h"
#include "core/money.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

long trv_hotel_day(const char *s)
{
    int y, m, d, yy, mm, dd;
    long days;
    char tail;
    if (!s || strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3
        || s[4] != '-' || s[7] != '-' || !isdigit((unsigned char)s[0])
        || !isdigit((unsigned char)s[5]) || !isdigit((unsigned char)s[8])) {
        return -1;
    }
    days = trv_days_from_civil(y, m, d);
    trv_civil_from_days(days, &yy, &mm, &dd);
    return yy == y && mm == m && dd == d ? days : -1; /* 2026-02-30 is no date */
}

static int country_code(const char *s)
{
    return s && strlen(s) == 2 && isupper((unsigned char)s[0]) && isupper((unsigned char)s[1]);
}

static void read_rooms(apr_pool_t *p, const json_t *occ, trv_hotel_stay *stay, trv_errs *errs)
{
    static const char *const known[] = {"adults", "children", NULL};
    const json_t *room;
    size_t i;
    if (!json_is_array(occ) || json_array_size(occ) < 1
        || json_array_size(occ) > TRV_HOTEL_MAX_ROOMS) {
        trv_errs_add(errs, "occupancy", "is required: one entry per room, 1 to %d rooms",
                     TRV_HOTEL_MAX_ROOMS);
        return;
    }
    stay->n_rooms = (int)json_array_size(occ);
    json_array_foreach(occ, i, room) {
        const char *at = apr_psprintf(p, "occupancy[%d]", (int)i);
        const json_t *adults = json_object_get(room, "adults");
        const json_t *children = json_object_get(room, "children"), *age;
        trv_hotel_occ *o = &stay->rooms[i];
        size_t k;
        if (!json_is_object(room)) {
            trv_errs_add(errs, at, "must be an object {adults, children}");
            continue;
        }
        trv_json_known(room, at, known, errs);
        if (!json_is_integer(adults) || json_integer_value(adults) < 1
            || json_integer_value(adults) > 4) {
            trv_errs_add(errs, apr_pstrcat(p, at, ".adults", NULL), "must be an integer from 1 to 4");
        }
        else {
            o->adults = (int)json_integer_value(adults);
        }
        if (!children) {
            continue;
        }
        if (!json_is_array(children) || json_array_size(children) > TRV_HOTEL_MAX_CHILDREN) {
            trv_errs_add(errs, apr_pstrcat(p, at, ".children", NULL),
                         "must be a list of at most %d ages", TRV_HOTEL_MAX_CHILDREN);
            continue;
        }
        json_array_foreach(children, k, age) {
            if (!json_is_integer(age) || json_integer_value(age) < 0
                || json_integer_value(age) > 17) {
                trv_errs_add(errs, apr_psprintf(p, "%s.children[%d]", at, (int)k),
                             "must be an age from 0 to 17");
                continue;
            }
            o->ages[o->n_children++] = (int)json_integer_value(age);
        }
    }
}

void trv_hotel_read_stay(apr_pool_t *p, const json_t *body, long today,
                         trv_hotel_stay *stay, trv_errs *errs)
{
    const char *in = trv_json_req_str(body, "check_in", "check_in", 1, 10, 10, errs);
    const char *out = trv_json_req_str(body, "check_out", "check_out", 1, 10, 10, errs);
    const char *cur = trv_json_req_str(body, "currency", "currency", 1, 3, 3, errs);
    long din = in ? trv_hotel_day(in) : -1, dout = out ? trv_hotel_day(out) : -1;

    memset(stay, 0, sizeof(*stay));
    if (in && din < 0) {
        trv_errs_add(errs, "check_in", "must be a date YYYY-MM-DD");
    }
    else if (in && (din < today || din > today + TRV_HOTEL_MAX_DAYS_AHEAD)) {
        trv_errs_add(errs, "check_in", "must be from today (UTC) to %d days ahead",
                     TRV_HOTEL_MAX_DAYS_AHEAD);
    }
    if (out && dout < 0) {
        trv_errs_add(errs, "check_out", "must be a date YYYY-MM-DD");
    }
    else if (out && din >= 0 && (dout <= din || dout - din > TRV_HOTEL_MAX_NIGHTS)) {
        trv_errs_add(errs, "check_out", "must be 1 to %d nights after check_in",
                     TRV_HOTEL_MAX_NIGHTS);
    }
    stay->check_in = in;
    stay->check_out = out;
    stay->nights = din >= 0 && dout > din ? (int)(dout - din) : 0;
    read_rooms(p, json_object_get(body, "occupancy"), stay, errs);
    stay->nationality = trv_json_req_str(body, "guest_nationality", "guest_nationality", 1, 2,
                                         2, errs);
    if (stay->nationality && !country_code(stay->nationality)) {
        trv_errs_add(errs, "guest_nationality", "must be an ISO 3166 country code (GB)");
    }
    stay->residence = trv_json_req_str(body, "guest_residence", "guest_residence", 1, 2, 2,
                                       errs);
    if (stay->residence && !country_code(stay->residence)) {
        trv_errs_add(errs, "guest_residence", "must be an ISO 3166 country code (GB)");
    }
    if (cur && trv_currency_exponent(cur) < 0) {
        trv_errs_add(errs, "currency", "must be an ISO 4217 currency code (EUR)");
    }
    else if (cur) {
        memcpy(stay->currency, cur, 4);
    }
}

void trv_hotel_check_nights(const trv_hotel_stay *stay, const trv_supplier *row,
                            trv_errs *errs)
{
    if (row && row->limits.max_nights > 0 && stay->nights > row->limits.max_nights) {
        trv_errs_add(errs, "check_out", "%s sells stays of at most %d nights", row->name,
                     row->limits.max_nights);
    }
}
