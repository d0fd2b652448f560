/* The offer filters the gateway applies to what a supplier returned:
 * filters.max_stops (every journey) and filters.carriers (every segment's
 * marketing carrier is one of them), read from what the adapter noted
 * beside each offer's text (flight/offer_text.h). */
#ifndef TRV_FLIGHT_OFFER_FILTER_H
#define TRV_FLIGHT_OFFER_FILTER_H

#include "offer_text.h"

#include <jansson.h>

/* 1 when the offer passes. max_stops < 0 and carriers NULL mean no filter. */
int trv_foffer_filter_passes(const trv_foffer_text *offer, int max_stops,
                             const json_t *carriers);

/* The offers (trv_foffer_text) that pass, at most limit of them, as
 * pointers into offers (const trv_foffer_text *); *more is set when offers
 * that pass were left out. */
apr_array_header_t *trv_foffer_filter_apply(apr_pool_t *p, const apr_array_header_t *offers,
                                            int max_stops, const json_t *carriers,
                                            long limit, int *more);

#endif
