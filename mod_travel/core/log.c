#include "log.h"

#include <stdarg.h>
#include <stdio.h>

void trv_log_msg(const trv_log *log, int level, const char *request_id,
                 const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    if (!log || !log->emit) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    log->emit(log->baton, level, request_id ? request_id : "-", buf);
}
