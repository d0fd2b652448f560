/* What the supplier adapters of every domain do after each call
 * (flight/suppliers/wire.c, hotel/suppliers/wire.c): record it for its
 * booking (core/call_log.h) and log an outcome other than OK, in one
 * place. Apart from upstream.c, which the call log itself reads. */
#ifndef TRV_UPSTREAM_NOTE_H
#define TRV_UPSTREAM_NOTE_H

#include "upstream.h"

/* A domain adapter's call as its booking's record and the log see it. */
typedef struct trv_upstream_note {
    const char *family;            /* "flight", "hotel": the call log's */
    /* Set for a call made for a booking: it is recorded (core/call_log.h);
     * booking_id NULL: not recorded. */
    const char *org_id, *booking_id;
    const char *request_id;
    const char *who;               /* the log line's first words: the adapter */
} trv_upstream_note;

/* After an adapter's call of up: records it for its booking and logs an
 * outcome other than OK under logno as "<who> <method> <path>: <status>
 * (HTTP n, <code>) after n ms" (info for a refusal or a not found, else
 * warning), setting *code and *message for the caller's error (the
 * upstream's, else the status's name and "the supplier did not answer").
 * Returns st. */
trv_up_status trv_upstream_note_call(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                     const trv_upstream_note *note, int logno,
                                     const char *method, const char *path, trv_up_status st,
                                     const trv_up_result *res, const char **code,
                                     const char **message);

#endif
