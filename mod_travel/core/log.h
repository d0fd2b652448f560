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
    /* Optional. When set it is used instead of emit and also gets the call
     * site (httpd prints file(line) on debug lines, as with its own). */
    void (*emit_at)(void *baton, const char *file, int line, int level,
                    const char *request_id, const char *msg);
    /* Optional: whether a line of this level would be written at all
     * (httpd's LogLevel, per module). NULL: every level is. */
    int (*enabled)(void *baton, int level);
} trv_log;

/* The caller's source position, passed along like mod_md's MD_LOG_MARK. */
#define TRV_LOG_MARK __FILE__, __LINE__

/* Whether level is logged; cheap, to test before computing what to log. */
int trv_log_enabled(const trv_log *log, int level);

/* Formats and emits "TRVnnn: [request_id] message" from file:line, only
 * when the level is enabled (nothing is formatted otherwise); a NULL log is
 * silent. */
void trv_log_at(const trv_log *log, const char *file, int line, int level,
                const char *request_id, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* trv_log_at from the caller's position. */
#define trv_log_msg(log, level, request_id, ...) \
    trv_log_at((log), TRV_LOG_MARK, (level), (request_id), __VA_ARGS__)

/* A debug line: the level test comes first, so the arguments (timings,
 * formatting helpers) are not even evaluated unless LogLevel asks for it. */
#define TRV_DEBUG(log, request_id, ...)                                        \
    do {                                                                       \
        if (trv_log_enabled((log), TRV_LOG_DEBUG)) {                           \
            trv_log_at((log), TRV_LOG_MARK, TRV_LOG_DEBUG, (request_id),       \
                       __VA_ARGS__);                                           \
        }                                                                      \
    } while (0)

#endif
