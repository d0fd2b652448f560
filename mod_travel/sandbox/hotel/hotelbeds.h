/* The edge of hotel SUPPLIER_B's Hotelbeds APItude surface (under
 * /hotels/b): what every Hotelbeds answer has whatever the handler was —
 * an auditData object, errors as {auditData, error: {code, message}}, and
 * the throttle of Hotelbeds' API gateway (HTTP 403 "Developer Over Qps"
 * with X-Mashery-Error-Code) where the sandbox's own faults say 429. */
#ifndef SBX_HOTELBEDS_H
#define SBX_HOTELBEDS_H

#include "sandbox/jtext.h"
#include "sandbox/sbx_api.h"

#define SBX_HOTELBEDS_BASE "/hotels/b"

/* 1 when the path is under SBX_HOTELBEDS_BASE. */
int sbx_hotelbeds_path(const char *path);
/* Hotelbeds' auditData for an answer made now. */
json_t *sbx_hotelbeds_audit(trv_req *req);
/* Answers t, a top-level object written as text and left open, with
 * auditData as its last member, as sbx_hotelbeds_finish puts it into a
 * tree (a text answer passes through finish untouched). */
void sbx_hotelbeds_send(trv_req *req, trv_resp *resp, int status, trv_jtext *t);
/* Puts auditData into the answer and rewrites an error answered in the
 * sandbox's envelope (or a 429 fault) into Hotelbeds' shape. */
void sbx_hotelbeds_finish(trv_req *req, trv_resp *resp);

#endif
