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

int trv_foffer_filter_passes(const trv_foffer_text *offer, int max_stops,
                             const json_t *carriers)
{
    int i;
    if (max_stops >= 0 && offer->stops > max_stops) {
        return 0;
    }
    for (i = 0; carriers && i < offer->carriers->nelts; i++) {
        if (!listed(carriers, APR_ARRAY_IDX(offer->carriers, i, const char *))) {
            return 0;
        }
    }
    return 1;
}

apr_array_header_t *trv_foffer_filter_apply(apr_pool_t *p, const apr_array_header_t *offers,
                                            int max_stops, const json_t *carriers,
                                            long limit, int *more)
{
    apr_array_header_t *out = apr_array_make(p, offers->nelts ? offers->nelts : 1,
                                             sizeof(const trv_foffer_text *));
    int i;
    *more = 0;
    for (i = 0; i < offers->nelts; i++) {
        const trv_foffer_text *o = &APR_ARRAY_IDX(offers, i, trv_foffer_text);
        if (!trv_foffer_filter_passes(o, max_stops, carriers)) {
            continue;
        }
        if ((long)out->nelts >= limit) {
            *more = 1;
            break;
        }
        APR_ARRAY_PUSH(out, const trv_foffer_text *) = o;
    }
    return out;
}
