/* Reads from a streaming standby (TravelStandbyConnInfo), never older than
 * the client's own writes.
 *
 * Every successful write (a 2xx answer to anything but GET) carries
 * `x-travel-lsn`: PostgreSQL's WAL insert position on the primary after
 * the write committed. A client sends the newest it holds back as
 * `x-travel-min-lsn` on its reads; a read of a booking or of the bookings
 * list is then served by the standby when the standby has replayed at
 * least that far (pg_last_wal_replay_lsn(), checked on the very connection
 * the read then uses), else by the primary. `x-travel-min-lsn: 0/0` says
 * any replayed state will do. A read without the header (or with one that
 * is not an LSN) goes to the primary: nothing the client wrote can be
 * missing there. Authentication always reads the primary, so a revoked
 * key is refused whatever the standby's lag. Answers to the routes that
 * may be served by the standby say which served them in
 * `x-travel-read-from` (standby, primary). docs/operations.md, "Reads from
 * a standby". */
#ifndef TRV_STANDBY_H
#define TRV_STANDBY_H

#include "core/api.h"

/* After authentication: switches req->env to a copy whose database is one
 * standby connection when the request may read there and the standby has
 * replayed what the client asks for. */
void trv_standby_begin(trv_req *req, trv_resp *resp);
/* After the handler, with the env the request came with: gives the
 * standby connection back and restores req->env; on a successful write,
 * adds x-travel-lsn. */
void trv_standby_end(trv_req *req, trv_resp *resp, trv_env *env);

/* Whether `s` is a pg_lsn in its text form (hex/hex, each 1-8 digits). */
int trv_standby_lsn_ok(const char *s);

#endif
