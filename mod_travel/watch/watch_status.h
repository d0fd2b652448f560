/* The status of a watch (watches, sql/120) and the moves the watch code
 * makes: a check fires an active watch (triggered) or its mandate arms it;
 * an armed watch's purchase ends purchased or purchase_failed, or goes
 * back to active (re-priced above max_total); active and armed watches
 * expire at check-in or are canceled. Text only at the edge. */
#ifndef TRV_WATCH_WATCH_STATUS_H
#define TRV_WATCH_WATCH_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_WATCH_ACTIVE,
    TRV_WATCH_ARMED,
    TRV_WATCH_TRIGGERED,
    TRV_WATCH_PURCHASED,
    TRV_WATCH_PURCHASE_FAILED,
    TRV_WATCH_EXPIRED,
    TRV_WATCH_CANCELED
} trv_watch_status;

extern const trv_transit_table trv_watch_status_table;

/* Every status text, NULL-terminated (for query validation). */
extern const char *const trv_watch_statuses[];

/* Its texts through the table: trv_transit_text, trv_transit_from_text. */

/* The one place a watch's move is judged (trv_transit_check). */
int trv_watch_status_transit(const trv_log *log, const char *request_id, const char *watch_id,
                             trv_watch_status from, trv_watch_status to);

#endif
