#include "test_event.h"
#include "send.h"
#include "core/ids.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

/* The event is written as published already, so the insert's fan-out
 * (sql/044) leaves it alone, and its one delivery is made here with the
 * same fields the fan-out gives one: the URL and live secrets of now. A
 * paused subscription gets neither event nor delivery (status says why). */
static const trv_stmt test_stmt = {"trv_webhook_test_event",
    "WITH s AS (SELECT id, org_id, family, status, url, secret_enc, previous_secret_enc, "
    "previous_secret_expires_at FROM webhook_subscriptions WHERE id = %s AND org_id = %s "
    "AND family = %s AND deleted_at IS NULL FOR SHARE), "
    "e AS (INSERT INTO events (id, org_id, family, type, data, published_at) "
    "SELECT %s, s.org_id, s.family, %s, %s::jsonb, trv_now() FROM s WHERE s.status = 'ACTIVE' "
    "RETURNING id), "
    "d AS (INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status, url, "
    "secrets_enc) SELECT %s, s.id, s.org_id, e.id, 'PENDING', s.url, "
    "CASE WHEN s.previous_secret_enc IS NOT NULL AND s.previous_secret_expires_at > now() "
    "THEN ARRAY[s.secret_enc, s.previous_secret_enc] ELSE ARRAY[s.secret_enc] END "
    "FROM s, e RETURNING id) "
    "SELECT s.status, (SELECT id FROM d) AS delivery_id FROM s"};

typedef struct {
    const char *org_id, *family, *sub_id, *type, *data;
    const char *event_id, *delivery_id;
    apr_status_t outcome;
} test_baton;

static apr_status_t queue_test(trv_dbc *c, apr_pool_t *p, void *baton)
{
    test_baton *b = baton;
    const char *evt = trv_id_new(p, "evt"), *dlv = trv_id_new(p, "dlv");
    trv_rows *rows;
    b->outcome = APR_ENOENT;
    if (trv_db_select(c, p, &test_stmt, &rows,
                      TRV_DB_ARGS(b->sub_id, b->org_id, b->family, evt, b->type, b->data, dlv))
        != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (rows->n != 1) {
        return APR_SUCCESS;
    }
    if (!trv_rows_get(rows, 0, "delivery_id")) {
        b->outcome = APR_EBUSY;
        return APR_SUCCESS;
    }
    if (trv_webhook_send_enqueue(c, p, dlv, 0, 1, 0) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    b->event_id = evt;
    b->delivery_id = dlv;
    b->outcome = APR_SUCCESS;
    return APR_SUCCESS;
}

apr_status_t trv_webhook_send_test(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                   const char *family, const char *sub_id,
                                   const char **event_id, const char **delivery_id)
{
    test_baton b;
    json_t *data = trv_json_bind(p, json_pack("{s:b,s:s,s:s}", "test", 1, "subscription_id",
                                              sub_id, "message",
                                              "A test event: nothing happened to any booking."));
    memset(&b, 0, sizeof(b));
    b.org_id = org_id;
    b.family = family;
    b.sub_id = sub_id;
    b.type = apr_pstrcat(p, family, TRV_WEBHOOK_TEST_SUFFIX, NULL);
    b.data = trv_json_dump(p, data);
    if (trv_db_transaction(c, p, queue_test, &b) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    *event_id = b.event_id;
    *delivery_id = b.delivery_id;
    return b.outcome;
}
