/* Recovery for a receiver that was down (the flight and hotel families):
 *   GET  /v1/<family>/events?after=&since=&limit=   the organization's event
 *        log of the family, oldest first, each {id, type, created_at, data}
 *        with data as delivered;
 *   POST /v1/<family>/webhook-subscriptions/{id}/recover {since, until}
 *        sends again, once each and in the log's order, every event of the
 *        window whose delivery to that subscription ended FAILED. */
#ifndef TRV_WEBHOOK_RECOVER_H
#define TRV_WEBHOOK_RECOVER_H

#include "core/api.h"

void trv_webhook_events(trv_req *req, trv_resp *resp);
void trv_webhook_recover(trv_req *req, trv_resp *resp);

/* Inside the caller's transaction, the subscription's row locked, before
 * a DISABLED subscription becomes ACTIVE again: queues again, as a
 * recovery in the log's order, every delivery that failed because it was
 * disabled or failed for good since it began failing. *n: how many. */
apr_status_t trv_webhook_resume(trv_dbc *c, apr_pool_t *p, const char *sub, long *n);

/* The family of a /v1/<family>/... path (its second segment): the routes
 * exist only for the families the registry knows (routes_for). */
const char *trv_webhook_family(const trv_req *req);

#endif
