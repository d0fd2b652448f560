/* A bounded pool of threads per process for work its caller must not wait
 * for (a webhook sender's batch, waiting on its receivers: webhook/send.c).
 * Work is never queued behind other work: it is handed to a thread that is
 * idle now, or to a new one while the pool has fewer than `max`, or it is
 * refused and the caller does it itself. Threads stay for the next piece
 * of work (no thread started and ended per piece). */
#ifndef TRV_CORE_OFFLOAD_H
#define TRV_CORE_OFFLOAD_H

#include <apr_errno.h>
#include <apr_time.h>

/* Runs fn(baton) on a thread of the pool, at once. APR_SUCCESS: it runs
 * (the baton is then the pool's, until fn returns); APR_EAGAIN: `max`
 * threads are busy (or none could start), nothing was run. */
apr_status_t trv_offload(void (*fn)(void *baton), void *baton, int max);

/* Pieces of work running now. */
int trv_offload_busy(void);

/* Waits until no piece of work runs, at most max (a child that exits must
 * not free what they use under them). 1 when none is left. */
int trv_offload_drain(apr_interval_time_t max);

#endif
