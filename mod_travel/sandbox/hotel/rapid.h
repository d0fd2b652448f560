/* The edge of hotel SUPPLIER_C's Expedia Rapid v3 surface (under
 * /hotels/c, the sandbox's stand-in for https://api.ean.com): what every
 * Rapid answer has whatever the handler was. Errors are Rapid's
 * {type, message, fields?: [{name, type, value}]}, a room cancel answers
 * 204 with no body, and the Test header's documented keywords answer
 * their set responses. Written from Rapid's OpenAPI document (EPS Rapid
 * V3, as ExpediaGroup/rapid-java-sdk ships it). */
#ifndef SBX_RAPID_H
#define SBX_RAPID_H

#include "sandbox/sbx_api.h"

#define SBX_RAPID_BASE "/hotels/c"

/* 1 when the path is under SBX_RAPID_BASE. */
int sbx_rapid_path(const char *path);
/* The Test header of a call whose set responses are keywords (NULL
 * ended): 0 when absent or "standard"/"available" (go on as usual), 1
 * when it answered (an error keyword, or 400 for an unknown one).
 * price_changed and sold_out are the caller's: *kw is the keyword. */
int sbx_rapid_test(trv_req *req, trv_resp *resp, const char *const *keywords,
                   const char **kw);
/* Rapid requires Customer-Ip on booking calls: 0 (answered 400) when
 * absent. */
int sbx_rapid_customer_ip(trv_req *req, trv_resp *resp);
/* Rewrites an error answered in the sandbox's envelope into Rapid's
 * shape, and a successful room cancel into 204. */
void sbx_rapid_finish(trv_req *req, trv_resp *resp);

#endif
