/* POLICY_ESTIMATE arithmetic (see estimate_calc.h): integer minor units,
 * no floating point, no clock. */
#include "estimate_calc.h"
#include "core/clock.h"
#include "core/money.h"

#include <string.h>

void trv_hotel_terms_of(const json_t *policy, const json_t *price, const char *currency,
                        trv_hotel_room_terms *out)
{
    const json_t *pens = json_object_get(policy, "penalties"), *p;
    trv_money m;
    const char *why;
    size_t i;
    memset(out, 0, sizeof(*out));
    if (!json_is_object(policy) || !json_is_array(pens)
        || json_array_size(pens) > TRV_HOTEL_MAX_PENALTIES
        || trv_money_from_json(price, &m, &why) != APR_SUCCESS
        || strcmp(m.currency, currency) != 0 || m.minor < 0) {
        return;
    }
    out->total_minor = m.minor;
    json_array_foreach(pens, i, p) {
        const json_t *from = json_object_get(p, "from");
        trv_money a;
        if (!json_is_string(from)
            || trv_time_parse(json_string_value(from), &out->pen[i].from) != APR_SUCCESS
            || trv_money_from_json(json_object_get(p, "amount"), &a, &why) != APR_SUCCESS
            || strcmp(a.currency, currency) != 0 || a.minor < 0) {
            out->n = 0;
            return;
        }
        out->pen[i].minor = a.minor;
    }
    out->n = (int)json_array_size(pens);
    out->readable = 1;
}

void trv_hotel_estimate_at(const trv_hotel_room_terms *rooms, int n, apr_time_t at,
                           trv_hotel_estimate *out)
{
    int r, k, all_free = 1;
    apr_time_t deadline = 0;
    memset(out, 0, sizeof(*out));
    if (n <= 0) {
        return;
    }
    for (r = 0; r < n; r++) {
        apr_int64_t fee = 0;
        if (!rooms[r].readable) {
            memset(out, 0, sizeof(*out));
            return;
        }
        for (k = 0; k < rooms[r].n; k++) {
            const trv_hotel_penalty *p = &rooms[r].pen[k];
            if (p->from <= at) {
                if (p->minor > fee) {
                    fee = p->minor;
                }
            }
            else if (p->minor > 0 && (!deadline || p->from < deadline)) {
                deadline = p->from;
            }
        }
        if (fee > rooms[r].total_minor) {
            fee = rooms[r].total_minor;
        }
        if (fee > 0) {
            all_free = 0;
        }
        out->fee_minor += fee;
        out->refund_minor += rooms[r].total_minor - fee;
    }
    out->available = 1;
    out->deadline = all_free ? deadline : 0;
}
