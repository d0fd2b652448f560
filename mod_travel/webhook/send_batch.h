/* The sender's two statements, for a batch of attempts at once: the claim
 * of up to TRV_WEBHOOK_BATCH due attempts (the job the worker claimed and
 * more, FOR UPDATE SKIP LOCKED, oldest first) with their deliveries, and
 * the record of every outcome. Per delivery the database work was three
 * statements (the queue's claim, this claim, the record); a full batch
 * shares them. Each attempt is still signed and sent on its own (send.c). */
#ifndef TRV_WEBHOOK_SEND_BATCH_H
#define TRV_WEBHOOK_SEND_BATCH_H

#include "delivery_status.h"
#include "core/jobs.h"

/* At most this many attempts per batch. */
#define TRV_WEBHOOK_BATCH 16

/* What an item of a batch becomes. */
typedef enum {
    TRV_WH_SENT,     /* sent: its outcome recorded, its job removed */
    TRV_WH_DONE,     /* nothing to send (recorded already, replayed): job removed */
    TRV_WH_RELEASE,  /* not sent (stopping): due again at once */
    TRV_WH_RETRY,    /* not sent (the secret cannot be opened): after retry_in */
    TRV_WH_WAIT      /* not sent (throttle.h): due again after next, not counted */
} trv_wh_action;

typedef struct trv_wh_item {
    /* The job, and the attempt it names. */
    const char *job_id;
    int job_attempt;
    const char *dlv;
    int replay, attempt;
    /* Set when this batch took the attempt (else the job is stale). */
    int claimed;
    const char *subscription_id, *url, *event_id, *family, *body;
    const char *secrets; /* JSON array of sealed secrets */
    int max_per_second;  /* the subscription's throttle, 0: the site's */
    apr_time_t failing_since; /* the subscription's, when claimed; 0: none */
    /* The outcome, filled in by the sender. */
    trv_wh_action action;
    trv_delivery_status status;  /* SENT: DELIVERED, FAILED or PUBLISHED */
    apr_interval_time_t next;    /* SENT+PUBLISHED: next attempt; RETRY: backoff */
    int response_status;
    const char *response_body;   /* clean text */
    const char *error;
    int duration_ms;
    int recorded;                /* the record wrote this delivery's outcome */
    /* WAIT of a subscription that hangs (slow.h): its circuit is open, its
     * new sends are queued due this much later (breaker.h). 0: not so. */
    apr_interval_time_t open_for;
    /* SENT after this process judged its receiver hanging (slow.h): a 2xx
     * closes the circuit even when the claim saw no failure yet (the
     * circuit opened while the request was going on). */
    int closes;
} trv_wh_item;

/* Claims the attempt `job` names and up to TRV_WEBHOOK_BATCH - 1 more due
 * sends (oldest first, as the queue picks), every job held for `hold` (its
 * lease) in the same statement. Fills *items (trv_wh_item, `job` first).
 * Returns the count (0: the job is no longer this worker's), -1 when the
 * database failed. */
int trv_wh_batch_claim(trv_env *env, apr_pool_t *p, const trv_job *job,
                       apr_interval_time_t hold, apr_array_header_t **items, const char **err);

/* Records every item's outcome in one statement (atomic): for SENT the
 * delivery, its attempt row, the next attempt's job and the end of this
 * one; DONE ends the job; RELEASE and RETRY put it back. Sets `recorded`.
 * APR_SUCCESS, or the database's error in *err. */
apr_status_t trv_wh_batch_record(trv_env *env, apr_pool_t *p, const char *worker,
                                 apr_array_header_t *items, const char **err);

#endif
