/* Shared by both modules (mod_travel and mod_travel_sandbox): turning a
 * request_rec into a trv_req and a trv_resp back into a response, the
 * trv_dbsrc over mod_dbd, and logging through httpd. The only place that
 * includes httpd.h besides the module files. */
#ifndef TRV_HTTPD_GLUE_H
#define TRV_HTTPD_GLUE_H

#include "core/api.h"

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"

/* Fills req from r: method, path, query, headers, request id (accepted or
 * generated and already set on the response), and the body read with a cap
 * of max_body bytes (no body is read when max_body < 0). Returns the HTTP status to answer with when the body
 * could not be read (0 when fine). */
int trv_httpd_read_request(request_rec *r, apr_off_t max_body, trv_req *req);

/* Writes resp (the envelope or the error document) and returns OK. */
int trv_httpd_write_response(request_rec *r, const trv_resp *resp);

/* Accepts the caller's x-request-id (1..200 printable ASCII) or makes one. */
const char *trv_httpd_request_id(request_rec *r);

/* Attributes the glue's log lines to module m (call from register_hooks). */
void trv_httpd_glue_init(module *m);

/* Sets req->log to log through r with the request id. */
void trv_httpd_request_log(request_rec *r, trv_req *req);
/* A logger for server-level work (workers), through s. */
trv_log trv_httpd_server_log(server_rec *s);

/* A connection source over mod_dbd for server s; NULL (and an error string)
 * when mod_dbd is not loaded. */
trv_dbsrc *trv_httpd_dbsrc(apr_pool_t *p, server_rec *s);
const char *trv_httpd_dbd_check(void);

#endif
