/* Asking several upstreams at once (the suppliers of a hotel search, the
 * receivers of a webhook batch): a caller that needs every answer waits for the
 * slowest, not for their sum. Each call runs on a thread of its own
 * (trv_fanout: one of the process's kept workers; trv_fanout_patient: one
 * started for it), with pools on the process's call allocator (locked, so
 * its pools may live on any thread); the request thread runs the first call
 * itself and waits for the others, so it never returns before every call
 * has. The HTTP client is shared already by every thread of the child. */
#ifndef TRV_CORE_FANOUT_H
#define TRV_CORE_FANOUT_H

#include <apr_pools.h>
#include <apr_time.h>

/* A pool for one call, a child of parent (destroyed with it) on the
 * process's call allocator (locked; it keeps freed blocks for the next
 * calls), safe to use from another thread; NULL when out of memory. */
apr_pool_t *trv_call_pool(apr_pool_t *parent);

/* Runs fn(batons[i]) for i in 0..n-1, at once; returns when all have.
 * The first call runs in this thread, the others on the process's workers
 * (threads kept from call to call); a call no worker can take runs in this
 * thread too. p: the request's pool (the calls' bookkeeping). */
void trv_fanout(apr_pool_t *p, int n, void (*fn)(void *baton), void **batons);

/* How many workers the process has started (they are kept). */
int trv_fanout_workers(void);

/* At most this many calls of a process go on alone (trv_fanout_patient);
 * beyond it a caller waits for its slow calls as trv_fanout does. */
#define TRV_FANOUT_LATE_MAX 64

/* Runs fn(batons[i]) for i in 0..n-1 at once, each on a thread of its own,
 * and waits at most `patience` for them: a slow upstream then holds up its
 * own call, not the caller (a webhook sender's next batch). done[i] is 1
 * for a call that finished in time; a call still running goes on alone
 * and, once finished, runs late(batons[i]) on its thread instead of being
 * seen by the caller. left(batons[i]) runs in the caller when it stops
 * waiting for a call, before that call's late can start (keep it short: a
 * lock is held); after returning the caller must not touch a late baton. So a baton, and whatever it points to, must outlive
 * the caller's pool when it may be late: give each its own pool
 * (trv_call_pool(NULL)), freed by the caller when done, by late when not.
 * When TRV_FANOUT_LATE_MAX calls of the process are already going on
 * alone, it waits for all, as trv_fanout, first calling overdue(ctx) when
 * overdue is not NULL, in the caller, no lock held: what the caller must
 * not keep waiting as long as its slowest call (a webhook batch's held
 * requests) it can do then. */
void trv_fanout_patient(int n, void (*fn)(void *baton), void (*left)(void *baton),
                        void (*late)(void *baton), void **batons,
                        apr_interval_time_t patience, int *done,
                        void (*overdue)(void *ctx), void *ctx);

/* How many more calls of the process may go on alone now (0 at the cap). */
int trv_fanout_late_room(void);

/* Waits until no call of the process goes on alone, at most max (a child
 * that exits must not free what they use under them). 1 when none is left. */
int trv_fanout_drain(apr_interval_time_t max);

#endif
