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
/* Rapid requires Customer-Ip on booking calls: 0 (answered 400
 * invalid_input, customer_ip.required) when absent, or when it is not an
 * IPv4 or IPv6 address (customer_ip.invalid). */
int sbx_rapid_customer_ip(trv_req *req, trv_resp *resp);
/* Shopping calls take Customer-Ip optionally: 0 (answered 400) only when
 * one is given that is not an address. */
int sbx_rapid_customer_ip_format(trv_req *req, trv_resp *resp);
/* The language query parameter, required: one of Rapid's 34 languages
 * (ar-SA ... zh-TW); 0 (answered 400, language.required or
 * language.not_supported) otherwise. */
int sbx_rapid_language(trv_req *req, trv_resp *resp);
/* Records the traveller headers the call carried (Customer-Ip,
 * Customer-Session-Id, the language parameter) and its status in
 * sandbox.rapid_travellers by request id (sql/sandbox/290): how the tests
 * see what reached the supplier. */
void sbx_rapid_record(trv_req *req, const trv_resp *resp);
/* Rewrites an error answered in the sandbox's envelope into Rapid's
 * shape, and a successful room cancel into 204. */
void sbx_rapid_finish(trv_req *req, trv_resp *resp);

#endif
