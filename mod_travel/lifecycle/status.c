/* The shared booking statuses' texts (status.h). */
#include "status.h"

#include <stddef.h>

const char *const trv_booking_statuses[] = {
    "CREATED", "PREBOOK_IN_PROGRESS", "READY_FOR_COMPLETE", "COMPLETE_IN_PROGRESS",
    "CONFIRMED", "CANCEL_IN_PROGRESS", "CANCELED", "FAILED", "EXPIRED", NULL};
