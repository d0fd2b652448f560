#include "log.h"

#include <stdarg.h>
#include <stdio.h>

int trv_log_enabled(const trv_log *log, int level)
{
    if (!log || (!log->emit && !log->emit_at)) {
        return 0;
    }
    return !log->enabled || log->enabled(log->baton, level);
}

void trv_log_at(const trv_log *log, const char *file, int line, int level,
                const char *request_id, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    if (!trv_log_enabled(log, level)) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (log->emit_at) {
        log->emit_at(log->baton, file, line, level, request_id ? request_id : "-", buf);
    }
    else {
        log->emit(log->baton, level, request_id ? request_id : "-", buf);
    }
}
