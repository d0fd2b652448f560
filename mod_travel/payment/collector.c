#include "collector.h"

#include <string.h>

const char *trv_collector_text(trv_collector c)
{
    switch (c) {
    case TRV_COLLECTOR_SERVICE:
        return "SERVICE";
    case TRV_COLLECTOR_SUPPLIER:
        return "SUPPLIER";
    }
    return "?";
}

int trv_collector_from_text(const char *text, trv_collector *out)
{
    if (text && strcmp(text, "SERVICE") == 0) {
        *out = TRV_COLLECTOR_SERVICE;
        return 1;
    }
    if (text && strcmp(text, "SUPPLIER") == 0) {
        *out = TRV_COLLECTOR_SUPPLIER;
        return 1;
    }
    return 0;
}
