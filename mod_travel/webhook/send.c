#include "send.h"
#include "send_batch.h"
#include "core/fanout.h"
#include "schedule.h"
#include "core/crypt.h"
#include "signature.h"
#include "target.h"
#include "throttle.h"
#include "breaker.h"
#include "slow.h"
#include "awaited.h"
#include "retention.h"
#include "core/json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

const trv_job_spec trv_webhook_send_job = {TRV_WEBHOOK_SEND_JOB, TRV_WEBHOOK_SEND_MAX_RUNS};

apr_status_t trv_webhook_send_enqueue(trv_dbc *c, apr_pool_t *p, const char *delivery_id,
                                      int replay, int attempt,
                                      apr_interval_time_t delay)
{
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:i,s:i}", "delivery_id",
                                                 delivery_id, "replay", replay,
                                                 "attempt", attempt));
    return trv_job_enqueue_spec(c, p, &trv_webhook_send_job, payload, delay, NULL, NULL);
}

/* What a receiver answered, as text PostgreSQL takes: valid UTF-8 without
 * NUL (anything else becomes '?'), cut at TRV_WEBHOOK_KEEP_BODY bytes. */
const char *trv_webhook_clean_text(apr_pool_t *p, const char *buf, apr_size_t len)
{
    char *out;
    apr_size_t i = 0, o = 0;
    if (!buf) {
        return "";
    }
    if (len > TRV_WEBHOOK_KEEP_BODY) {
        len = TRV_WEBHOOK_KEEP_BODY;
    }
    out = apr_palloc(p, len + 1);
    while (i < len) {
        unsigned char ch = (unsigned char)buf[i];
        apr_size_t n = ch < 0x80 ? 1 : (ch & 0xE0) == 0xC0 ? 2 : (ch & 0xF0) == 0xE0 ? 3
                     : (ch & 0xF8) == 0xF0 ? 4 : 0, k;
        int ok = n > 0 && i + n <= len && ch != 0 && ch != 0xC0 && ch != 0xC1 && ch < 0xF5;
        for (k = 1; ok && k < n; k++) {
            ok = ((unsigned char)buf[i + k] & 0xC0) == 0x80;
        }
        if (ok && n == 3) {
            unsigned char c1 = (unsigned char)buf[i + 1];
            ok = !(ch == 0xE0 && c1 < 0xA0) && !(ch == 0xED && c1 >= 0xA0);
        }
        if (ok && n == 4) {
            unsigned char c1 = (unsigned char)buf[i + 1];
            ok = !(ch == 0xF0 && c1 < 0x90) && !(ch == 0xF4 && c1 >= 0x90);
        }
        if (!ok) {
            out[o++] = '?';
            i++;
            continue;
        }
        memcpy(out + o, buf + i, n);
        o += n;
        i += n;
    }
    out[o] = '\0';
    return out;
}


/* How long a batch's jobs are held: the receivers' timeout (the batch's
 * requests run at once) and time to record. A sender that dies holding a
 * batch leaves every job of it due again when the hold runs out, and each
 * attempt is made again. */
#define TRV_WEBHOOK_BATCH_HOLD (TRV_WEBHOOK_TIMEOUT + apr_time_from_sec(5))

/* Opens the item's sealed secrets. NULL, or why not. */
static const char *open_secrets(trv_env *env, apr_pool_t *p, const trv_wh_item *it,
                                apr_array_header_t **out)
{
    json_t *sealed = trv_json_parse(p, it->secrets ? it->secrets : "[]",
                                    strlen(it->secrets ? it->secrets : "[]"), NULL);
    size_t i;
    *out = apr_array_make(p, 2, sizeof(const char *));
    for (i = 0; i < json_array_size(sealed); i++) {
        const char *plain;
        if (!env->cfg->have_secret_key
            || trv_crypt_open(p, env->cfg->secret_key, it->subscription_id,
                              json_string_value(json_array_get(sealed, i)), &plain)
                   != APR_SUCCESS) {
            return "a signing secret cannot be opened (is TravelSecretKeyFile the key "
                   "it was stored with?)";
        }
        APR_ARRAY_PUSH(*out, const char *) = plain;
    }
    return NULL;
}

/* Signs and sends one claimed attempt with its own event id, timestamp
 * and signature, and decides its outcome. 0: sent (it->action SENT);
 * 1: the process is stopping, nothing was decided. */
static int send_one(trv_env *env, apr_pool_t *p, trv_wh_item *it,
                    const apr_array_header_t *secrets)
{
    const char *sig, *url_host;
    trv_webhook_connect_rule rule;
    trv_http_req req;
    trv_http_resp resp;
    int port, https = 0;
    apr_time_t now = apr_time_now();

    memset(&req, 0, sizeof(req));
    memset(&rule, 0, sizeof(rule));
    memset(&resp, 0, sizeof(resp));
    rule.allow = env->cfg->webhook_allow;
    /* The URL was checked when saved; its shape is checked again here and
     * every address it resolves to now at connect time. */
    if (trv_webhook_url_shape(p, it->url, &url_host, &port, &https) != NULL) {
        resp.error = "the URL is not a valid webhook target";
    }
    else {
        rule.https = https;
        req.method = "POST";
        req.url = it->url;
        req.headers = apr_table_make(p, 6);
        apr_table_setn(req.headers, "Content-Type", "application/json");
        if (strcmp(it->family, TRV_WEBHOOK_SERVICE_FAMILY) == 0) {
            /* Watcher events: the service document's own scheme, one
             * secret (re-registering rotates at once, no overlap). */
            sig = secrets->nelts
                ? trv_webhook_sign_service(p, APR_ARRAY_IDX(secrets, 0, const char *),
                                           (long long)apr_time_sec(now), it->body,
                                           strlen(it->body))
                : NULL;
            apr_table_setn(req.headers, "service-signature", sig ? sig : "");
        }
        else {
            sig = trv_webhook_signature(p, secrets, it->event_id,
                                        (long long)apr_time_sec(now), it->body,
                                        strlen(it->body));
            apr_table_setn(req.headers, "webhook-id", it->event_id);
            apr_table_setn(req.headers, "webhook-timestamp",
                           apr_psprintf(p, "%" APR_TIME_T_FMT, apr_time_sec(now)));
            apr_table_setn(req.headers, "webhook-signature", sig ? sig : "");
        }
        req.body = it->body;
        req.body_len = strlen(it->body);
        req.timeout = TRV_WEBHOOK_TIMEOUT;
        req.connect_timeout = apr_time_from_sec(5);
        req.max_response = TRV_WEBHOOK_KEEP_BODY;
        req.keep_truncated = 1;
        /* Receivers deduplicate by the event id (webhook-id, or the body's
         * id for watcher events): a second copy is already expected, as a
         * retry after a timeout sends one. */
        req.keyed = 1;
        /* A receiver taken for hanging gets a connection of its own for
         * each request: at its timeout it ends that one, not one kept for
         * other receivers (of the same host) to reuse. */
        req.alone = trv_webhook_slow_hanging(it->subscription_id, now);
        req.allow_address = trv_webhook_allow_address;
        req.allow_baton = &rule;
        trv_http_perform(env->webhook_http ? env->webhook_http : env->http, p, &req,
                         &resp);
        if (resp.aborted) {
            return 1; /* stopping: the attempt is made again by whoever claims it */
        }
    }

    it->action = TRV_WH_SENT;
    it->response_status = resp.status;
    it->response_body = trv_webhook_clean_text(p, resp.body, resp.body_len);
    it->error = resp.status ? NULL : (resp.error ? resp.error : "no response");
    it->duration_ms = (int)(resp.elapsed / 1000);
    if (trv_webhook_accepted(resp.status)) {
        it->status = TRV_DELIVERY_DELIVERED;
    }
    else if (trv_webhook_next_delay(env->cfg->retry_schedule, it->attempt, resp.status,
                                    resp.headers ? apr_table_get(resp.headers, "Retry-After")
                                                 : NULL,
                                    apr_time_now(), &it->next)) {
        it->status = TRV_DELIVERY_PUBLISHED;
    }
    else {
        it->status = TRV_DELIVERY_FAILED;
    }
    return 0;
}

typedef struct send_task {
    trv_env *env;
    /* Its own, from the root: a slow request outlives the batch's pool
     * (core/fanout.h); freed by the batch, or by the task when late. */
    apr_pool_t *p;
    trv_wh_item it;                /* a copy in p */
    apr_array_header_t *secrets;   /* in p */
    const char *worker;            /* in p */
    apr_time_t started;
    int stopped;
    int awaited;                   /* tracked by awaited.h until it ends */
} send_task;

static const char *dup_or_null(apr_pool_t *p, const char *s)
{
    return s ? apr_pstrdup(p, s) : NULL;
}

/* A task owning copies of its item and secrets. NULL: out of memory. */
static send_task *task_new(trv_env *env, const trv_job *job, const trv_wh_item *it,
                           const apr_array_header_t *secrets)
{
    apr_pool_t *tp = trv_call_pool(NULL);
    send_task *t;
    int i;
    if (!tp) {
        return NULL;
    }
    t = apr_pcalloc(tp, sizeof(*t));
    t->env = env;
    t->p = tp;
    t->it = *it;
    t->it.job_id = dup_or_null(tp, it->job_id);
    t->it.dlv = dup_or_null(tp, it->dlv);
    t->it.subscription_id = dup_or_null(tp, it->subscription_id);
    t->it.url = dup_or_null(tp, it->url);
    t->it.event_id = dup_or_null(tp, it->event_id);
    t->it.family = dup_or_null(tp, it->family);
    t->it.body = dup_or_null(tp, it->body);
    t->it.secrets = NULL;
    t->secrets = apr_array_make(tp, secrets->nelts, sizeof(const char *));
    for (i = 0; i < secrets->nelts; i++) {
        APR_ARRAY_PUSH(t->secrets, const char *) =
            apr_pstrdup(tp, APR_ARRAY_IDX(secrets, i, const char *));
    }
    t->worker = apr_pstrdup(tp, job->worker);
    t->started = apr_time_now();
    return t;
}

/* One attempt of a batch, on its own thread (core/fanout.h): a slow
 * receiver holds up no other receiver's request. When the process is
 * stopping the attempt is left RELEASE. */
static void send_task_run(void *baton)
{
    send_task *task = baton;
    task->stopped = send_one(task->env, task->p, &task->it, task->secrets);
    if (task->awaited) {
        trv_webhook_awaited_end(task->it.subscription_id, apr_time_now());
    }
    if (task->stopped) {
        task->it.action = TRV_WH_RELEASE;
    }
}

/* Records outcomes, waiting a little while PostgreSQL may be restarting
 * rather than send the same attempts again; then logs the deliveries that
 * failed for good and tells the circuit breaker (breaker.h). */
static apr_status_t record_outcomes(trv_env *env, apr_pool_t *p, const char *worker,
                                    apr_array_header_t *rec, const char **err)
{
    apr_status_t rv = APR_EGENERAL;
    int tries, i;
    for (tries = 0; tries < 20; tries++) {
        rv = trv_wh_batch_record(env, p, worker, rec, err);
        if (rv == APR_SUCCESS || TRV_STOPPING(env)) {
            break;
        }
        apr_sleep(apr_time_from_msec(250 * (tries < 8 ? tries + 1 : 8)));
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rec->nelts; i++) {
        const trv_wh_item *it = &APR_ARRAY_IDX(rec, i, trv_wh_item);
        if (it->recorded && it->status == TRV_DELIVERY_FAILED) {
            trv_log_msg(&env->log, TRV_LOG_NOTICE, NULL,
                        TRVLOGNO(642) "delivery %s failed after %d attempts (last: %d%s%s)",
                        it->dlv, it->attempt, it->response_status, it->error ? ", " : "",
                        it->error ? it->error : "");
        }
    }
    trv_webhook_breaker_note(env, p, rec);
    return APR_SUCCESS;
}

/* The batch stops waiting for this request: its subscription is slow in
 * this process until it ends (slow.h). */
static void send_task_left(void *baton)
{
    send_task *task = baton;
    trv_webhook_slow_enter(task->it.subscription_id, task->started);
}

/* A request the batch stopped waiting for, now answered (or timed out):
 * it records its own outcome, on its own thread. Its job was held for
 * TRV_WEBHOOK_BATCH_HOLD, past the receiver's timeout; if the record
 * fails, the job is due again when the hold ends and the attempt is made
 * again. */
static void send_task_late(void *baton)
{
    send_task *task = baton;
    apr_array_header_t *rec = apr_array_make(task->p, 1, sizeof(trv_wh_item));
    const char *err = NULL;
    trv_wh_item *it = &task->it;
    /* A 2xx from a receiver this process took for hanging closes its
     * circuit, which may have opened after this request's claim. */
    it->closes = trv_webhook_slow_leave(it->subscription_id, task->started,
                                        it->action != TRV_WH_SENT ? TRV_SLOW_LATE
                                        : it->status == TRV_DELIVERY_DELIVERED
                                                && apr_time_from_msec(it->duration_ms)
                                                       < TRV_WEBHOOK_PATIENCE
                                            ? TRV_SLOW_ANSWERED
                                        : it->response_status == 0 ? TRV_SLOW_UNANSWERED
                                                                   : TRV_SLOW_LATE);
    *(trv_wh_item *)apr_array_push(rec) = task->it;
    if (record_outcomes(task->env, task->p, task->worker, rec, &err) != APR_SUCCESS) {
        trv_log_msg(&task->env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(641) "delivery %s attempt %d: recording the result failed "
                    "(the attempt will be made again): %s", task->it.dlv, task->it.attempt,
                    err);
    }
    apr_pool_destroy(task->p);
}

/* A batch whose sender must wait for its slow requests after all (the
 * process's cap of requests going on alone, core/fanout.h) puts its held
 * and throttled requests (WAIT) back to the queue first, in a statement of
 * their own: they would otherwise wait with the record for the slowest
 * request, up to the receivers' timeout, however soon they were due. */
typedef struct held_batch {
    trv_env *env;
    apr_pool_t *p;
    const char *worker;
    apr_array_header_t *items;
    int *put_back;  /* per item: recorded by put_back_held */
} held_batch;

/* A short hold's extra wait, by delivery id over a quarter of a second:
 * due all at once, the held requests of a busy subscription would come
 * back as one burst of claims. */
static apr_interval_time_t spread(const char *dlv)
{
    unsigned h = 5381;
    const char *c;
    for (c = dlv; c && *c; c++) {
        h = h * 33 + (unsigned char)*c;
    }
    return (apr_interval_time_t)(h % 1000) * (TRV_WEBHOOK_PATIENCE / 2000);
}

/* Each request of rec held in line behind a receiver that hung when the
 * batch was judged (hold_slow: its turn up to a minute away, the circuit
 * kept open as long) whose receiver has answered in this process since:
 * the line is over, and it goes back as a short hold. Why: the 2xx that ended the line
 * closes the circuit and lets out the sends queued behind it (sql/410),
 * but only those queued when its note runs; one put back after that
 * waited for its old turn (a late receiver's event delivered 8.6 s after
 * its commit in test_webhook_breaker, whose bound is 6 s). */
static void lines_over(apr_array_header_t *rec)
{
    apr_time_t now = apr_time_now();
    int i;
    for (i = 0; i < rec->nelts; i++) {
        trv_wh_item *it = &APR_ARRAY_IDX(rec, i, trv_wh_item);
        if (it->action == TRV_WH_WAIT && it->open_for > 0
            && !trv_webhook_slow_hanging(it->subscription_id, now)) {
            it->next = TRV_WEBHOOK_PATIENCE + spread(it->dlv);
            it->open_for = 0;
        }
    }
}

static void put_back_held(void *ctx)
{
    held_batch *b = ctx;
    apr_array_header_t *rec = apr_array_make(b->p, b->items->nelts, sizeof(trv_wh_item));
    int *from = apr_palloc(b->p, sizeof(int) * (apr_size_t)b->items->nelts);
    const char *err = NULL;
    int i;
    for (i = 0; i < b->items->nelts; i++) {
        const trv_wh_item *it = &APR_ARRAY_IDX(b->items, i, trv_wh_item);
        if (it->action == TRV_WH_WAIT && !b->put_back[i]) {
            from[rec->nelts] = i;
            *(trv_wh_item *)apr_array_push(rec) = *it;
        }
    }
    lines_over(rec);
    /* On failure they stay in the batch's own record. */
    if (rec->nelts > 0 && trv_wh_batch_record(b->env, b->p, b->worker, rec, &err) == APR_SUCCESS) {
        for (i = 0; i < rec->nelts; i++) {
            b->put_back[from[i]] = 1;
        }
    }
}

/* 1 when a request to `sub` goes on alone from the start: its
 * subscription is slow in this process (slow.h), or the requests other
 * batches are waiting for have had no answer lately (awaited.h). */
static int goes_alone(const char *sub, apr_time_t now)
{
    return trv_webhook_slow_known(sub, now) || trv_webhook_awaited_stalled(sub, now);
}

/* The batch waits TRV_WEBHOOK_PATIENCE for its requests; a slower one goes
 * on alone and records itself (send_task_late). Requests that go alone
 * (goes_alone, judged at `now` as hold_slow judged them) go on alone from
 * the start: the batch does not wait for them at all; the others are
 * awaited (awaited.h) while the batch waits. */
static void send_patiently(send_task **tasks, int n, int *done, apr_time_t now,
                           held_batch *held)
{
    void **slow = malloc(sizeof(void *) * (size_t)n), **quick = malloc(sizeof(void *) * (size_t)n);
    int *slow_done = malloc(sizeof(int) * (size_t)n), *quick_done = malloc(sizeof(int) * (size_t)n);
    int *which = malloc(sizeof(int) * (size_t)n);
    int i, ns = 0, nq = 0;
    if (!slow || !quick || !slow_done || !quick_done || !which) {
        trv_fanout_patient(n, send_task_run, send_task_left, send_task_late, (void **)tasks,
                           TRV_WEBHOOK_PATIENCE, done, put_back_held, held);
    }
    else {
        for (i = 0; i < n; i++) {
            /* which: the index in slow, or -1 - the index in quick. */
            if (goes_alone(tasks[i]->it.subscription_id, now)) {
                which[i] = ns;
                slow[ns++] = tasks[i];
            }
            else {
                which[i] = -1 - nq;
                quick[nq++] = tasks[i];
                /* Before its thread starts: its end is on that thread. */
                tasks[i]->awaited = trv_webhook_awaited_begin(tasks[i]->it.subscription_id,
                                                              tasks[i]->started);
            }
        }
        if (ns > 0) {
            trv_fanout_patient(ns, send_task_run, send_task_left, send_task_late, slow, 0,
                               slow_done, put_back_held, held);
        }
        if (nq > 0) {
            trv_fanout_patient(nq, send_task_run, send_task_left, send_task_late, quick,
                               TRV_WEBHOOK_PATIENCE, quick_done, put_back_held, held);
        }
        for (i = 0; i < n; i++) {
            done[i] = which[i] >= 0 ? slow_done[which[i]] : quick_done[-1 - which[i]];
        }
    }
    free(slow);
    free(quick);
    free(slow_done);
    free(quick_done);
    free(which);
}

/* Requests that go on alone (goes_alone: slow, or stalled) are held
 * back, going back to the queue as throttled ones do, when it has
 * TRV_WEBHOOK_SLOW_MAX going on alone here (TRV_WEBHOOK_PROBES while it
 * hangs; this batch's counted), or when
 * the process has no room left for another request going on alone
 * (core/fanout.h: past it a sender would wait for its slow requests, up to
 * the receivers' timeout, and with it the healthy receivers' next
 * requests). A short wait is spread (spread). */
static void hold_slow(apr_pool_t *p, apr_array_header_t *items, apr_time_t now)
{
    apr_hash_t *admitted = apr_hash_make(p);
    int room = trv_fanout_late_room(), i;
    for (i = 0; i < items->nelts; i++) {
        trv_wh_item *it = &APR_ARRAY_IDX(items, i, trv_wh_item);
        apr_interval_time_t wait = TRV_WEBHOOK_PATIENCE;
        int *k;
        if (!it->claimed || it->action == TRV_WH_WAIT || !goes_alone(it->subscription_id, now)) {
            continue;
        }
        if (!(k = apr_hash_get(admitted, it->subscription_id, APR_HASH_KEY_STRING))) {
            k = apr_pcalloc(p, sizeof(*k));
            apr_hash_set(admitted, it->subscription_id, APR_HASH_KEY_STRING, k);
        }
        if (!trv_webhook_slow_held(it->subscription_id, now, *k, &wait) && room > 0) {
            room--;
            (*k)++;
            continue;
        }
        if (wait <= TRV_WEBHOOK_PATIENCE) {
            wait += spread(it->dlv);
        }
        it->action = TRV_WH_WAIT;
        it->next = wait;
        /* Held in line behind a receiver that hangs: the circuit breaker
         * keeps its new sends out of the queue's claims as long (breaker.h). */
        if (trv_webhook_slow_hanging(it->subscription_id, now)) {
            it->open_for = wait;
        }
    }
}

void trv_webhook_send_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res)
{
    const char *dlv = trv_json_str(job->payload, "delivery_id");
    int attempt = (int)json_integer_value(json_object_get(job->payload, "attempt"));
    const char *err = NULL;
    apr_array_header_t *items, *rec;
    send_task **tasks;
    int *task_of, *done;
    int n, i, k, ntasks = 0, secret_logged = 0, own_gone;
    apr_status_t rv;
    apr_time_t judged;
    held_batch held;
    trv_wh_item *first;

    if (!dlv || attempt < 1) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload needs delivery_id, replay and attempt";
        return;
    }
    trv_webhook_retention_ensure(env, p);
    /* The receiver has TRV_WEBHOOK_TIMEOUT: the jobs stay ours past it, so
     * no other sender makes the same attempt while this one is waiting. */
    n = trv_wh_batch_claim(env, p, job, TRV_WEBHOOK_BATCH_HOLD, &items, &err);
    if (n < 0) {
        res->outcome = TRV_JOB_RETRY;
        res->error = err;
        return;
    }
    if (n == 0) {
        return; /* DONE: the job is no longer this worker's */
    }
    /* Throttled subscriptions (throttle.h): on a database error nothing is
     * let go and every throttled request waits a spacing. */
    if (trv_webhook_throttle(env, p, items, env->cfg->webhook_max_per_second, &err)
        != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(2106) "the webhook throttle could not be read (throttled "
                    "requests wait): %s", err);
    }
    /* Held and throttled items (WAIT) are not sent; they go back to the
     * queue with the batch's record, after its sends: a statement of their
     * own before the sends would hold up the batch's other receivers. */
    /* Which requests go on alone is judged once, at `judged`, for the hold
     * and the sends alike: one the hold did not count as going alone (no
     * room taken) must not go alone at the send. */
    judged = apr_time_now();
    hold_slow(p, items, judged);
    own_gone = 0;

    tasks = apr_pcalloc(p, sizeof(*tasks) * (apr_size_t)items->nelts);
    task_of = apr_pcalloc(p, sizeof(*task_of) * (apr_size_t)items->nelts);
    done = apr_pcalloc(p, sizeof(*done) * (apr_size_t)items->nelts);
    for (i = 0; i < items->nelts; i++) {
        trv_wh_item *it = &APR_ARRAY_IDX(items, i, trv_wh_item);
        apr_array_header_t *secrets;
        const char *why;
        task_of[i] = -1;
        if (it->action == TRV_WH_WAIT) {
            continue;
        }
        if (!it->dlv || it->attempt < 1) {
            it->action = TRV_WH_RELEASE; /* the queue's own claim marks it dead */
            continue;
        }
        if (!it->claimed) {
            continue; /* DONE: recorded already, replayed, or no longer sendable */
        }
        if ((why = open_secrets(env, p, it, &secrets)) != NULL) {
            if (!secret_logged++) {
                trv_log_msg(&env->log, TRV_LOG_ERR, NULL,
                            TRVLOGNO(640) "delivery %s: %s", it->dlv, why);
            }
            it->action = TRV_WH_RETRY;
            it->error = why;
            it->next = trv_job_backoff(it->job_attempt);
            continue;
        }
        if (TRV_STOPPING(env) || !(tasks[ntasks] = task_new(env, job, it, secrets))) {
            it->action = TRV_WH_RELEASE;
            continue;
        }
        task_of[i] = ntasks++;
    }
    held.env = env;
    held.p = p;
    held.worker = job->worker;
    held.items = items;
    held.put_back = apr_pcalloc(p, sizeof(int) * (apr_size_t)items->nelts);
    if (ntasks > 0) {
        send_patiently(tasks, ntasks, done, judged, &held);
    }
    /* The answered requests' outcomes come back into the batch; the late
     * ones leave it, untouched (their task may be gone already; the
     * worker's own job then ends GONE: its record is the late task's), as
     * do the held ones put back already (put_back_held). */
    for (i = 0, k = 0; i < items->nelts; i++) {
        trv_wh_item *it = &APR_ARRAY_IDX(items, i, trv_wh_item);
        int t = task_of[i];
        if ((t >= 0 && !done[t]) || held.put_back[i]) {
            if (i == 0 && !own_gone) {
                own_gone = 1;
                res->outcome = TRV_JOB_GONE;
            }
            continue;
        }
        if (t >= 0) {
            *it = tasks[t]->it;
        }
        APR_ARRAY_IDX(items, k++, trv_wh_item) = *it;
    }
    items->nelts = k;
    if (items->nelts == 0) {
        goto free_tasks;
    }

    /* The worker's own job goes through the queue's retry and release (its
     * "failed for good" line included); the others are recorded here. */
    first = &APR_ARRAY_IDX(items, 0, trv_wh_item);
    rec = items;
    if (!own_gone && (first->action == TRV_WH_RETRY || first->action == TRV_WH_RELEASE)) {
        res->outcome = first->action == TRV_WH_RETRY ? TRV_JOB_RETRY : TRV_JOB_RELEASE;
        res->error = first->error;
        rec = apr_array_make(p, items->nelts, sizeof(trv_wh_item));
        for (i = 1; i < items->nelts; i++) {
            *(trv_wh_item *)apr_array_push(rec) = APR_ARRAY_IDX(items, i, trv_wh_item);
        }
        if (rec->nelts == 0) {
            goto free_tasks;
        }
    }
    lines_over(rec);
    rv = record_outcomes(env, p, job->worker, rec, &err);
    if (rv != APR_SUCCESS) {
        /* The other jobs of the batch become due when their hold runs out. */
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(641) "delivery %s attempt %d: recording the result failed "
                    "(the attempt will be made again): %s", dlv, attempt, err);
        if (rec == items && !own_gone) {
            res->outcome = TRV_JOB_RETRY;
            res->error = err;
        }
    }
    else if (rec == items && !own_gone) {
        res->outcome = TRV_JOB_GONE; /* removed by the record statement */
    }
free_tasks:
    /* The answered tasks' pools (the late ones free their own). */
    for (i = 0; i < ntasks; i++) {
        if (done[i]) {
            apr_pool_destroy(tasks[i]->p);
        }
    }
}
