/* mod_travel_sandbox: the test-mode suppliers, payment provider and webhook
 * inbox, answering over real HTTP on their own port. */
#ifndef TRV_SANDBOX_H
#define TRV_SANDBOX_H

#include "core/router.h"

extern const trv_route trv_sandbox_inbox_routes[];
/* Records a request to /inbox/<name>[/...] and answers as told. */
void trv_sandbox_inbox_receive(trv_req *req, trv_resp *resp, const char *inbox);

#endif
