/* Loyalty membership numbers are stored in full (the airline needs them at
 * book) and only ever shown masked. */
#ifndef TRV_FLIGHT_MASK_H
#define TRV_FLIGHT_MASK_H

#include <apr_pools.h>
#include <jansson.h>

/* "****5678" for "12345678": every character but the last four is a '*';
 * a number of 8 characters or fewer shows only its last half (rounded
 * down), so a short number is never shown whole; "" stays "". */
char *trv_fmask_membership(apr_pool_t *p, const char *number);

/* The passengers as the API shows them: {id, first_name, last_name,
 * loyalty_accounts[] {airline_iata_code, membership_number (masked)}}
 * from the stored passengers (a new reference). */
json_t *trv_fmask_passengers(apr_pool_t *p, const json_t *stored);

#endif
