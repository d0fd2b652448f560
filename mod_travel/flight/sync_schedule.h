/* When a confirmed order is read from its supplier again (airline-initiated
 * changes): a scheduled chain of flight.order.sync jobs, one at a time per
 * booking, instead of reads triggered by whoever reads the booking. The
 * first read comes a few seconds after confirmation (migration 040); each
 * read schedules the next, more often as the next departure comes closer,
 * and the chain ends once the last journey has departed. */
#ifndef TRV_FLIGHT_SYNC_SCHEDULE_H
#define TRV_FLIGHT_SYNC_SCHEDULE_H

#include <apr_time.h>
#include <jansson.h>

#define TRV_FSYNC_MIN apr_time_from_sec(60)
#define TRV_FSYNC_MAX apr_time_from_sec(6 * 3600)

/* The delay to the next read of an order with these stored journeys, or 0
 * when there is none (every journey has departed, or none has a departure
 * time to go by). A twenty-fourth of the time to the next departure, between
 * TRV_FSYNC_MIN and TRV_FSYNC_MAX. Departure times are local to the
 * airport; read as UTC they are off by hours at most, which moves the
 * cadence, not its shape. */
apr_interval_time_t trv_fsync_next(const json_t *journeys, apr_time_t now);

#endif
