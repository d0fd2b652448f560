/* A supplier's part of a hotel search kept in the shared search cache
 * (core/shared_cache.h) for the freshness its line allows (search_cache=):
 * the hotels it sells in the area with their cheapest price for the stay,
 * as its adapter answered them. Keyed by everything that changes that
 * answer: the supplier (name, protocol, URL and credentials, so two
 * virtual hosts with their own accounts never share), the area and the
 * stay (dates, rooms and their guests, currency, the guests' nationality
 * and residence: the source market). Nothing of an organization is in a
 * kept answer. Offers and prebook never read it: a price is asked again
 * before anything is booked.
 *
 * Beside the answers, the htl_ ids of a page of results: a hotel's id is
 * the same for every organization and never changes once given (hotels
 * and hotel_supplier_ids, sql/080_hotels.sql: rows are only added), so a
 * page whose hotels are the same suppliers' same hotels gets the same ids
 * without asking PostgreSQL (hotel_map_page) again. Keyed by the page's
 * hotels, each its suppliers' ids in order: a hotel a new supplier joins
 * is another key, mapped (and its new supplier id kept) in PostgreSQL. */
#ifndef TRV_HOTEL_SEARCH_CACHE_H
#define TRV_HOTEL_SEARCH_CACHE_H

#include "supplier.h"
#include "core/env.h"

/* The key for this supplier, area and stay. */
const char *trv_hotel_search_cache_key(apr_pool_t *p, const trv_upstream *up,
                                       const trv_hotel_area *area, const trv_hotel_stay *stay);
/* 1 with *list (trv_hotel_found, supplier set to `supplier`) and *cached_at
 * when an answer is kept under key, else 0. */
int trv_hotel_search_cache_get(const trv_env *env, apr_pool_t *p, const char *key,
                               const char *supplier, apr_array_header_t **list,
                               apr_time_t *cached_at);
/* Keeps list under key for `fresh` from now. */
void trv_hotel_search_cache_put(const trv_env *env, apr_pool_t *p, const char *key,
                                const apr_array_header_t *list, apr_interval_time_t fresh);

/* The key of a page's ids: page holds its trv_hotel_group pointers. */
const char *trv_hotel_search_cache_ids_key(apr_pool_t *p, const apr_array_header_t *page);
/* 1 with *ids (n htl_ ids, in page order) when kept under key, else 0. */
int trv_hotel_search_cache_ids_get(const trv_env *env, apr_pool_t *p, const char *key, int n,
                                   const char *const **ids);
/* Keeps the n ids under key for `fresh` from now. */
void trv_hotel_search_cache_ids_put(const trv_env *env, apr_pool_t *p, const char *key,
                                    const char *const *ids, int n, apr_interval_time_t fresh);

#endif
