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

/* The family of a /v1/<family>/... path (its second segment): the routes
 * exist only for the families the registry knows (routes_for). */
const char *trv_webhook_family(const trv_req *req);

#endif
