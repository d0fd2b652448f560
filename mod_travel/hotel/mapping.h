/* One hotel, several suppliers: the hotels the suppliers found are grouped
 * into the service's hotels before each gets its one htl_ id.
 *
 * - A shared content code (GIATA-like: SUPPLIER_A's giataId, SUPPLIER_B's
 *   giataCode) is the strongest key: equal codes are one hotel.
 * - A hotel without one (SUPPLIER_C's properties) joins a group of the same
 *   country whose name is equal ignoring case and spacing, whose postal
 *   code is equal, and which stands within TRV_HOTEL_MATCH_M metres
 *   (suppliers place one hotel a few metres apart); else it is a hotel of
 *   its own.
 *
 * The grouping is a pure function (unit tested); the ids are kept in the
 * database (store: hotels, hotel_supplier_ids), so a hotel keeps its id
 * from search to search and to offers. */
#ifndef TRV_HOTEL_MAPPING_H
#define TRV_HOTEL_MAPPING_H

#include "supplier.h"

#define TRV_HOTEL_MATCH_M 200.0

typedef struct trv_hotel_group {
    apr_array_header_t *members;     /* trv_hotel_found *, in supplier row order */
    const trv_hotel_found *cheapest; /* the priced member with the lowest total, or NULL */
    const char *giata;               /* the group's shared code, or NULL */
    const char *name_key;            /* the name folded: lower case, single spaces */
} trv_hotel_group;

/* found: trv_hotel_found * of every supplier asked; returns
 * trv_hotel_group *, sorted by the cheapest total (unpriced last), then
 * name, country, postal code: the order of search results. */
apr_array_header_t *trv_hotel_group_found(apr_pool_t *p, const apr_array_header_t *found);

/* The folded name used to compare names. */
const char *trv_hotel_name_key(apr_pool_t *p, const char *name);

/* Great-circle distance in metres. */
double trv_hotel_distance_m(double lat1, double lon1, double lat2, double lon2);

#endif
