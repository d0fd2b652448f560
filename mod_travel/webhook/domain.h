/* The webhook domain as it registers itself with the gateway. */
#ifndef TRV_WEBHOOK_DOMAIN_H
#define TRV_WEBHOOK_DOMAIN_H

#include "core/registry.h"

extern const trv_domain trv_webhook_domain;

#endif
