#include "pintent_outcome.h"

#include <stddef.h>

const char *trv_pintent_outcome_text(trv_pintent_outcome o)
{
    switch (o) {
    case TRV_PINTENT_OUTCOME_NONE:
        return NULL;
    case TRV_PINTENT_OUTCOME_VOIDED:
        return "voided";
    case TRV_PINTENT_OUTCOME_CAPTURED:
        return "captured";
    case TRV_PINTENT_OUTCOME_DECLINED:
        return "declined";
    case TRV_PINTENT_OUTCOME_NOT_FOUND:
        return "not_found";
    case TRV_PINTENT_OUTCOME_REJECTED:
        return "rejected";
    case TRV_PINTENT_OUTCOME_UNAVAILABLE:
        return "unavailable";
    case TRV_PINTENT_OUTCOME_CANCELED:
        return "canceled";
    case TRV_PINTENT_OUTCOME_UNREADABLE:
        return "unreadable";
    }
    return NULL;
}
