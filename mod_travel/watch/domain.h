/* The watch domain's registration (price and trip watches, the watcher
 * endpoint and event log, mandates). */
#ifndef TRV_WATCH_DOMAIN_H
#define TRV_WATCH_DOMAIN_H

#include "core/registry.h"

extern const trv_domain trv_watch_domain;

#endif
