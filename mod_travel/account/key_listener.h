/* The listener: one thread per child and database that LISTENs for key
 * changes (TRV_KEY_CHANNEL: flushes the key cache) and new jobs
 * (TRV_JOBS_CHANNEL: wakes the workers).
 *
 * A LISTEN behind a transaction-pooling PgBouncer is accepted and then
 * loses its notifications silently, so the listener never trusts it: after
 * every (re)connection, and every TravelNotifyCheck after that, it sends a
 * NOTIFY of its own through env's database source (the path every real
 * notification takes, the pooler included) and waits for it. Only a proven
 * listener turns the key cache on. Unproven, the cache stays off (every
 * request asks the database: a revocation holds at once) and the workers
 * find jobs by polling (TravelJobPollInterval); the state and its reason
 * are in GET /v1/health and the error log says so once per change.
 *
 * The connection is cfg->notify_conninfo's own libpq connection when set
 * (a direct, unpooled one), else one borrowed from env's source for as long
 * as it listens. It reconnects with a backoff while the database is away. */
#ifndef TRV_ACCOUNT_KEY_LISTENER_H
#define TRV_ACCOUNT_KEY_LISTENER_H

#include "key_cache.h"

/* The channel of the listeners' own proof notifications. */
#define TRV_PROBE_CHANNEL "trv_notify_probe"
/* How long a proof NOTIFY may take to come back. */
#define TRV_NOTIFY_PROOF_TIMEOUT apr_time_from_sec(2)

typedef struct trv_key_listener trv_key_listener;
trv_key_listener *trv_key_listener_start(apr_pool_t *pchild, trv_env *env,
                                         trv_key_cache *kc);
/* Stops and joins the thread (also done by a pre-cleanup of pchild). */
void trv_key_listener_stop(trv_key_listener *l);

#endif
