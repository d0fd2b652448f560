/* travelctl supplier check (supplier_check.c). */
#ifndef TRV_CLI_SUPPLIER_CHECK_H
#define TRV_CLI_SUPPLIER_CHECK_H

#include <apr_pools.h>

/* Tries NAME's line of the httpd configuration file conf (its
 * TravelHotelSupplier line with hotel set, else its TravelSupplier line,
 * else its TravelHotelSupplier line) with one cheap authenticated call,
 * waiting at most timeout seconds; prints the verdict. 0 when the supplier
 * accepted the key, 1 otherwise (the reason: a refused key, a wrong URL, no
 * answer, no connection). */
int trv_cli_supplier_check(apr_pool_t *p, const char *name, const char *conf, int hotel,
                           long timeout);

#endif
