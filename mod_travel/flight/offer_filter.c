#include "offer_filter.h"

#include <string.h>

static int listed(const json_t *codes, const char *code)
{
    size_t i;
    for (i = 0; code && i < json_array_size(codes); i++) {
        if (strcmp(json_string_value(json_array_get(codes, i)), code) == 0) {
            return 1;
        }
    }
    return 0;
}

int trv_foffer_filter_passes(const json_t *offer, int max_stops, const json_t *carriers)
{
    const json_t *journeys = json_object_get(offer, "journeys");
    size_t i, j;
    for (i = 0; i < json_array_size(journeys); i++) {
        const json_t *jn = json_array_get(journeys, i);
        const json_t *segs = json_object_get(jn, "segments");
        if (max_stops >= 0) {
            const json_t *stops = json_object_get(jn, "stops");
            /* Stops not stated: count them from the segments. */
            json_int_t n = json_is_integer(stops) ? json_integer_value(stops)
                                                  : (json_int_t)json_array_size(segs) - 1;
            if (n > max_stops) {
                return 0;
            }
        }
        if (carriers) {
            for (j = 0; j < json_array_size(segs); j++) {
                const json_t *code = json_object_get(json_array_get(segs, j),
                                                     "marketing_carrier_code");
                if (!listed(carriers, json_string_value(code))) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

json_t *trv_foffer_filter_apply(const json_t *offers, int max_stops, const json_t *carriers,
                                long limit, int *more)
{
    json_t *out = json_array();
    size_t i;
    *more = 0;
    for (i = 0; i < json_array_size(offers); i++) {
        const json_t *o = json_array_get(offers, i);
        if (!trv_foffer_filter_passes(o, max_stops, carriers)) {
            continue;
        }
        if ((long)json_array_size(out) >= limit) {
            *more = 1;
            break;
        }
        json_array_append(out, (json_t *)o);
    }
    return out;
}
