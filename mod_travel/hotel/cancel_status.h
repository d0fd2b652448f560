/* The status of a hotel cancellation attempt (hotel_cancellations,
 * sql/110): IN_PROGRESS while the supplier is asked, then SUCCEEDED or
 * FAILED; a repeated cancel resumes a FAILED attempt (IN_PROGRESS again). */
#ifndef TRV_HOTEL_CANCEL_STATUS_H
#define TRV_HOTEL_CANCEL_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_HCANCEL_IN_PROGRESS,
    TRV_HCANCEL_SUCCEEDED,
    TRV_HCANCEL_FAILED
} trv_hcancel_status;

extern const trv_transit_table trv_hcancel_status_table;

/* Texts through the table: trv_transit_text, trv_transit_from_text. */

#endif
