/* Logging is a callback so core code never includes httpd.h (the mod_md way).
 * Every message starts with a TRVnnn tag and carries the request id. */
#ifndef TRV_LOG_H
#define TRV_LOG_H

#define TRVLOGNO(n) "TRV" #n ": "

/* Levels match syslog / APLOG numbering. */
#define TRV_LOG_CRIT 2
#define TRV_LOG_ERR 3
#define TRV_LOG_WARNING 4
#define TRV_LOG_NOTICE 5
#define TRV_LOG_INFO 6
#define TRV_LOG_DEBUG 7

typedef struct trv_log {
    void (*emit)(void *baton, int level, const char *request_id, const char *msg);
    void *baton;
} trv_log;

/* Formats and emits "TRVnnn: [request_id] message"; a NULL log is silent. */
void trv_log_msg(const trv_log *log, int level, const char *request_id,
                 const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
