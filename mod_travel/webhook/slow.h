/* Slow receivers, as this process sees them. A request still unanswered
 * after TRV_WEBHOOK_PATIENCE goes on alone (core/fanout.h: the sender is
 * not held up by it) and its subscription counts as slow in this process
 * for TRV_WEBHOOK_SLOW_MEMORY, renewed while its requests keep going late
 * or failing, ended by an answer in time. The sender does not wait at all
 * for a request to a slow subscription: it goes on alone from the start.
 *
 * While a subscription has TRV_WEBHOOK_SLOW_MAX requests going on alone
 * here, the sender sends it no more: its requests go back to the queue
 * (not counted as attempts). How long depends on what its requests do:
 *   - they answer, late (a saturated machine, a receiver taking a second):
 *     a slot frees within moments, the request looks again after
 *     TRV_WEBHOOK_PATIENCE;
 *   - it hangs (one of them ended without any answer lately, or one has
 *     been going on for TRV_WEBHOOK_HANGING_SOON..TRV_WEBHOOK_HANGING, by
 *     how fast it answered last): its circuit is open, and it gets
 *     TRV_WEBHOOK_PROBES requests at a time, not TRV_WEBHOOK_SLOW_MAX.
 *     A place frees only at the receiver's timeout, so its held requests
 *     are lined up one TRV_WEBHOOK_TIMEOUT / TRV_WEBHOOK_PROBES apart (the
 *     pace at which its places free), at most TRV_WEBHOOK_SLOW_MEMORY
 *     ahead. Each held request then comes back about when it can go,
 *     instead of every held one being claimed again every moment: a queue
 *     churned by a hanging receiver's requests is what slowed every other
 *     receiver down (the breaker bench: twice the claims, PostgreSQL's CPU
 *     doubled).
 * So a receiver that hangs holds at most TRV_WEBHOOK_SLOW_MAX requests per
 * process until it is taken for hanging (the first second), then one, and
 * takes almost nothing from the senders the other receivers need. */
#ifndef TRV_WEBHOOK_SLOW_H
#define TRV_WEBHOOK_SLOW_H

#include <apr_time.h>

/* How long a sender waits for its batch before letting slow requests go
 * on alone: well above a healthy receiver's answer (milliseconds). */
#define TRV_WEBHOOK_PATIENCE apr_time_from_msec(500)
/* Requests going on alone per subscription and process before it is held
 * back. */
#define TRV_WEBHOOK_SLOW_MAX 8
/* Requests going on alone per subscription and process while it hangs:
 * probes of its circuit. With TRV_WEBHOOK_SLOW_MAX, the requests sent
 * before it was taken for hanging timed out together and as many went
 * together again, every timeout: 16 threads, connections, inbox requests
 * and failures recorded at once every 10 s beside the healthy receivers'
 * requests (the breaker bench), for a receiver none of them reached. */
#define TRV_WEBHOOK_PROBES 1
/* How long a subscription stays slow after its last late or failed one. */
#define TRV_WEBHOOK_SLOW_MEMORY apr_time_from_sec(60)
/* A request going on this long has no answer coming soon: half the
 * receiver's timeout (webhook/send.h). The most a receiver is given. */
#define TRV_WEBHOOK_HANGING apr_time_from_sec(5)
/* ... and the least: a request going on this long hangs when its receiver
 * has no answer in this process's memory (none of its requests that went
 * on alone has answered yet); one that has answered is given twice its
 * last answer's time, within the two (trv_webhook_slow_patience). A
 * receiver that hangs from the start was judged only at 5 s, and until then
 * its held requests came back every half second, each claimed and put back
 * again (the breaker bench's "with" run: its first seconds). A receiver
 * merely late (answering in 1.5 s, say) may be judged hanging before its
 * first answer; that answer ends the line and its 2xx closes the circuit
 * and lets out what it held (breaker.h, sql/410). */
#define TRV_WEBHOOK_HANGING_SOON apr_time_from_sec(1)

/* How a request that went on alone ended. */
typedef enum {
    TRV_SLOW_ANSWERED,   /* a 2xx within TRV_WEBHOOK_PATIENCE: no longer slow */
    TRV_SLOW_LATE,       /* an answer, late or not a 2xx */
    TRV_SLOW_UNANSWERED  /* no answer: a timeout, a connection that failed */
} trv_slow_end;

/* A request to `sub`, started at `started`, goes on alone / has ended.
 * leave returns 1 when `sub` hung in this process just before this end
 * (its circuit may be open by this process's doing: an answer's 2xx then
 * closes it, breaker.h), 0 otherwise. */
void trv_webhook_slow_enter(const char *sub, apr_time_t started);
int trv_webhook_slow_leave(const char *sub, apr_time_t started, trv_slow_end how);

/* How long a request to `sub` may go on before `sub` hangs (above):
 * TRV_WEBHOOK_HANGING_SOON without an answer in memory, else twice the
 * last answer's time, within TRV_WEBHOOK_HANGING_SOON..TRV_WEBHOOK_HANGING. */
apr_interval_time_t trv_webhook_slow_patience(const char *sub);

/* 1 when `sub` is slow in this process now. */
int trv_webhook_slow_known(const char *sub, apr_time_t now);

/* 1 when a request to `sub` is held back now, `admitted` more of its
 * requests being about to go on alone (the same batch's), with *wait
 * until it may look again (above). */
int trv_webhook_slow_held(const char *sub, apr_time_t now, int admitted,
                          apr_interval_time_t *wait);

/* 1 when `sub` hangs in this process now (above: one of its requests
 * ended without an answer lately, or one has been going on for its
 * patience, trv_webhook_slow_patience): its circuit is open, and its held
 * requests are lined up. */
int trv_webhook_slow_hanging(const char *sub, apr_time_t now);

#endif
