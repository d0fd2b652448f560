/* Who collects a booking's payment (column collected_by of flight_payments
 * and hotel_payments): the service, through its payment provider, or the
 * supplier itself. Fixed when the row is written; no moves. */
#ifndef TRV_PAYMENT_COLLECTOR_H
#define TRV_PAYMENT_COLLECTOR_H

typedef enum {
    TRV_COLLECTOR_SERVICE,
    TRV_COLLECTOR_SUPPLIER
} trv_collector;

/* The column text; *_from_text: 1 and *out set for SERVICE or SUPPLIER. */
const char *trv_collector_text(trv_collector c);
int trv_collector_from_text(const char *text, trv_collector *out);

#endif
