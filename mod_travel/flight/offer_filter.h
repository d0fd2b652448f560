/* The offer filters the gateway applies to what a supplier returned:
 * filters.max_stops (every journey) and filters.carriers (every segment's
 * marketing carrier is one of them). */
#ifndef TRV_FLIGHT_OFFER_FILTER_H
#define TRV_FLIGHT_OFFER_FILTER_H

#include <jansson.h>

/* 1 when the offer passes. max_stops < 0 and carriers NULL mean no filter. */
int trv_foffer_filter_passes(const json_t *offer, int max_stops, const json_t *carriers);

/* The offers that pass, at most limit of them (a new reference); *more is
 * set when offers that pass were left out. */
json_t *trv_foffer_filter_apply(const json_t *offers, int max_stops, const json_t *carriers,
                                long limit, int *more);

#endif
