#include "actions.h"
#include "api_call.h"
#include "account/keys.h"
#include "core/ids.h"
#include "core/registry.h"
#include "webhook/test_event.h"

#include <apr_strings.h>
#include <string.h>

static trv_dash_outcome refuse(trv_dash_notice *n, int status, const char *message)
{
    n->status = status;
    n->message = message;
    return TRV_DASH_SHOW;
}

static trv_dash_outcome db_failed(const trv_dash_ctx *x, trv_dash_notice *n, trv_dbc *c,
                                  const char *what)
{
    trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                TRVLOGNO(1608) "dashboard: %s failed: %s", what,
                c && c->error ? c->error : TRV_DB_UNAVAILABLE);
    if (c) {
        trv_db_close(x->req->env->db, c);
    }
    return refuse(n, 503, "The database did not answer; nothing was changed. Try again.");
}

static trv_dash_outcome create_key(const trv_dash_ctx *x, apr_table_t *form,
                                   trv_dash_notice *n)
{
    apr_pool_t *p = x->req->pool;
    const char *mode = apr_table_get(form, "mode"), *id, *key;
    trv_dbc *c;
    apr_status_t rv;
    int live;

    if (mode && strcmp(mode, "test") != 0 && strcmp(mode, "live") != 0) {
        return refuse(n, 422, "The mode must be test or live.");
    }
    live = mode && strcmp(mode, "live") == 0;
    if (trv_db_open(x->req->env->db, p, &c) != APR_SUCCESS) {
        return db_failed(x, n, NULL, "creating an API key");
    }
    rv = trv_key_create(c, p, x->who.org_id, x->who.user_name, live, &id, &key);
    if (rv != APR_SUCCESS) {
        return db_failed(x, n, c, "creating an API key");
    }
    trv_db_close(x->req->env->db, c);
    /* The key's id, never the key. */
    trv_log_msg(&x->req->log, TRV_LOG_INFO, x->req->request_id,
                TRVLOGNO(1610) "dashboard: login %s created API key %s in %s", x->who.login,
                id, x->who.org_id);
    n->status = 201;
    n->message = apr_pstrcat(p, "Key ", id, " created for user ", x->who.user_name,
                             ". It is shown only this once: copy it now.", NULL);
    n->secret = key;
    return TRV_DASH_SHOW;
}

static trv_dash_outcome revoke_key(const trv_dash_ctx *x, apr_table_t *form,
                                   trv_dash_notice *n, const char **done)
{
    const char *id = apr_table_get(form, "key_id");
    trv_dbc *c;
    apr_status_t rv;

    if (!id || !trv_id_valid(id, "key")) {
        return refuse(n, 422, "No key was named.");
    }
    if (trv_db_open(x->req->env->db, x->req->pool, &c) != APR_SUCCESS) {
        return db_failed(x, n, NULL, "revoking an API key");
    }
    /* The UPDATE's trigger tells every child's key cache (sql/040): the
     * key is refused from the next request on. */
    rv = trv_key_revoke_in_org(c, x->req->pool, x->who.org_id, id);
    if (rv == APR_EGENERAL) {
        return db_failed(x, n, c, "revoking an API key");
    }
    trv_db_close(x->req->env->db, c);
    if (rv == APR_ENOENT) {
        return refuse(n, 404, "There is no such key in this organization.");
    }
    trv_log_msg(&x->req->log, TRV_LOG_INFO, x->req->request_id,
                TRVLOGNO(1611) "dashboard: login %s revoked API key %s", x->who.login, id);
    *done = "key_revoked";
    return TRV_DASH_REDIRECT;
}

/* The subscription path a form names, or NULL: the family must be one the
 * registry knows events of, the ids well-formed (the router checks them
 * again), so nothing from the form shapes the path beyond them. */
static const char *subscription_path(const trv_dash_ctx *x, apr_table_t *form)
{
    const char *family = apr_table_get(form, "family");
    const char *id = apr_table_get(form, "subscription_id");
    const char *const *types;
    if (!family || !id || !trv_id_valid(id, "whs") || !x->req->env->registry) {
        return NULL;
    }
    types = trv_registry_event_types(x->req->env->registry, family);
    if (!types || !types[0] || strchr(family, '/')) {
        return NULL;
    }
    return apr_pstrcat(x->req->pool, "/v1/", family, "/webhook-subscriptions/", id, NULL);
}

/* Send a test event: the webhook engine's own test event
 * (webhook/test_event.h) for the subscription the form names, in the
 * login's organization only; it is then sent, signed and recorded like
 * any delivery, and the page links to it. */
static trv_dash_outcome send_test(const trv_dash_ctx *x, apr_table_t *form, trv_dash_notice *n)
{
    apr_pool_t *p = x->req->pool;
    const char *family = apr_table_get(form, "family");
    const char *id = apr_table_get(form, "subscription_id"), *evt = NULL, *dlv = NULL;
    trv_dbc *c;
    apr_status_t rv;

    if (!subscription_path(x, form)) {
        return refuse(n, 422, "No webhook subscription was named.");
    }
    if (trv_db_open(x->req->env->db, p, &c) != APR_SUCCESS) {
        return db_failed(x, n, NULL, "sending a test event");
    }
    rv = trv_webhook_send_test(c, p, x->who.org_id, family, id, &evt, &dlv);
    if (rv == APR_EGENERAL) {
        return db_failed(x, n, c, "sending a test event");
    }
    trv_db_close(x->req->env->db, c);
    if (rv == APR_ENOENT) {
        return refuse(n, 404, "There is no such subscription in this organization.");
    }
    if (rv == APR_EBUSY) {
        return refuse(n, 409, "The subscription is paused: resume it to send it a test "
                              "event.");
    }
    trv_log_msg(&x->req->log, TRV_LOG_INFO, x->req->request_id,
                TRVLOGNO(2900) "dashboard: login %s sent test event %s to %s (delivery %s)",
                x->who.login, evt, id, dlv);
    /* On to the delivery's page, where its attempts appear. */
    n->link = apr_pstrcat(p, "?delivery=", dlv, "&done=test_sent", NULL);
    return TRV_DASH_REDIRECT;
}

/* A webhook button: the API's own handler, its answer turned into the
 * page's notice. */
static trv_dash_outcome webhook_action(const trv_dash_ctx *x, apr_table_t *form,
                                       const char *action, trv_dash_notice *n,
                                       const char **done)
{
    apr_pool_t *p = x->req->pool;
    const char *path = subscription_path(x, form), *dlv;
    trv_resp resp;

    if (!path) {
        return refuse(n, 422, "No webhook subscription was named.");
    }
    if (strcmp(action, "pause") == 0 || strcmp(action, "resume") == 0) {
        int pause = action[0] == 'p';
        trv_dash_api(x, "PATCH", path,
                     pause ? "{\"status\":\"PAUSED\"}" : "{\"status\":\"ACTIVE\"}", &resp);
        *done = pause ? "paused" : "resumed";
    }
    else if (strcmp(action, "rotate_secret") == 0) {
        trv_dash_api(x, "POST", apr_pstrcat(p, path, "/rotate-secret", NULL), NULL, &resp);
        if (resp.status == 200) {
            n->status = 200;
            n->message = apr_pstrcat(p, "The signing secret of ",
                                     apr_table_get(form, "subscription_id"),
                                     " was rotated; the previous one is still signed "
                                     "with for 24 hours. The new secret is shown only "
                                     "this once:", NULL);
            n->secret = json_string_value(json_object_get(resp.data, "signing_secret"));
            return TRV_DASH_SHOW;
        }
    }
    else {
        dlv = apr_table_get(form, "delivery_id");
        if (!dlv || !trv_id_valid(dlv, "dlv")) {
            return refuse(n, 422, "No delivery was named.");
        }
        trv_dash_api(x, "POST", apr_pstrcat(p, path, "/deliveries/", dlv, "/replay", NULL),
                     NULL, &resp);
        *done = "replayed";
    }
    if (resp.status >= 200 && resp.status < 300) {
        return TRV_DASH_REDIRECT;
    }
    return refuse(n, resp.status, trv_dash_api_message(&resp));
}

trv_dash_outcome trv_dash_action(const trv_dash_ctx *x, apr_table_t *form,
                                 trv_dash_notice *notice, const char **done)
{
    const char *action = apr_table_get(form, "action");
    memset(notice, 0, sizeof(*notice));
    *done = NULL;
    if (!action) {
        return refuse(notice, 422, "The form named no action.");
    }
    if (strcmp(action, "create_key") == 0) {
        return create_key(x, form, notice);
    }
    if (strcmp(action, "revoke_key") == 0) {
        return revoke_key(x, form, notice, done);
    }
    if (strcmp(action, "send_test") == 0) {
        return send_test(x, form, notice);
    }
    if (strcmp(action, "pause") == 0 || strcmp(action, "resume") == 0
        || strcmp(action, "rotate_secret") == 0 || strcmp(action, "replay") == 0) {
        return webhook_action(x, form, action, notice, done);
    }
    return refuse(notice, 422, "The form named an unknown action.");
}

const char *trv_dash_done_message(const char *done)
{
    static const char *const messages[][2] = {
        {"key_revoked", "The key is revoked: the API refuses it from now on."},
        {"paused", "The subscription is paused: new events are not sent to it."},
        {"resumed", "The subscription is active again."},
        {"replayed", "The delivery is queued to be sent again."},
        {"test_sent", "A test event is queued for the subscription: this is its delivery. "
                      "Reload the page to see its attempts."},
    };
    size_t i;
    for (i = 0; done && i < sizeof(messages) / sizeof(messages[0]); i++) {
        if (strcmp(messages[i][0], done) == 0) {
            return messages[i][1];
        }
    }
    return NULL;
}
