/* The hotel endpoints' database steps. Each borrows a connection for its
 * queries alone and gives it back (never held across a supplier call);
 * each answers the request itself (503/500) and returns 0 when the
 * database failed. */
#ifndef TRV_HOTEL_HOTEL_STORE_H
#define TRV_HOTEL_HOTEL_STORE_H

#include "mapping.h"
#include "core/api.h"

/* A saved place of the organization as an area to search: a city place by
 * city and country, a point by its coordinates and radius. *found is 0
 * when the organization has no such place. */
int trv_hhotel_place_area(trv_req *req, trv_resp *resp, const char *place_id,
                          trv_hotel_area *area, int *found);

/* The htl_ id of every group (trv_hotel_group *), in order, made for the
 * hotels seen for the first time: *ids has groups->nelts entries. */
int trv_hhotel_ids_for(trv_req *req, trv_resp *resp, const apr_array_header_t *groups,
                       const char *const **ids);

/* Who sells the hotels named by htl_ ids (each a valid id: letters,
 * digits, - and _): rows {hotel_id, supplier, supplier_hotel_id}. */
int trv_hhotel_sellers(trv_req *req, trv_resp *resp, const char *const *hotel_ids, int n,
                       trv_rows **rows);

/* The htl_ ids of one supplier's hotels (ids as checked above): rows
 * {supplier_hotel_id, hotel_id}; a hotel no search has seen has none. */
int trv_hhotel_ids_of(trv_req *req, trv_resp *resp, const char *supplier,
                      const char *const *sids, int n, trv_rows **rows);

/* A supplier failure as the API answers it: 504 supplier_timeout when it
 * did not answer in time, else 502 supplier_error. */
void trv_hhotel_upstream_fail(trv_req *req, trv_resp *resp, trv_up_status st,
                              const char *who, const char *message);

#endif
