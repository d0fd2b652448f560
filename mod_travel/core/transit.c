#include "transit.h"

#include <stddef.h>
#include <string.h>

static int in_range(const trv_transit_table *t, int s)
{
    return s >= 0 && s < t->n;
}

int trv_transit_allowed(const trv_transit_table *t, int from, int to)
{
    return in_range(t, from) && in_range(t, to) && t->allowed[from * t->n + to];
}

int trv_transit_check(const trv_transit_table *t, const trv_log *log,
                      const char *request_id, const char *subject, int from, int to)
{
    if (trv_transit_allowed(t, from, to)) {
        return 1;
    }
    trv_log_msg(log, TRV_LOG_ERR, request_id,
                TRVLOGNO(2650) "%s of %s: %s -> %s refused (not in the transition table)",
                t->machine, subject ? subject : "-", trv_transit_text(t, from),
                trv_transit_text(t, to));
    return 0;
}

const char *trv_transit_text(const trv_transit_table *t, int state)
{
    return in_range(t, state) ? t->names[state] : "?";
}

const char *trv_transit_column_text(const trv_transit_table *t, int state)
{
    return state == 0 ? NULL : trv_transit_text(t, state);
}

int trv_transit_from_column(const trv_transit_table *t, const char *text)
{
    int s;
    if (!text) {
        return 0;
    }
    s = trv_transit_from_text(t, text);
    return s == 0 ? -1 : s;
}

int trv_transit_from_text(const trv_transit_table *t, const char *text)
{
    int i;
    for (i = 0; text && i < t->n; i++) {
        if (strcmp(t->names[i], text) == 0) {
            return i;
        }
    }
    return -1;
}

int trv_transit_or(const trv_transit_table *t, const char *text, int fallback)
{
    int s = trv_transit_from_text(t, text);
    return s < 0 ? fallback : s;
}

int trv_transit_column_or(const trv_transit_table *t, const char *text, int fallback)
{
    int s = trv_transit_from_column(t, text);
    return s < 0 ? fallback : s;
}
