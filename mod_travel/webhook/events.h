/* The event types subscriptions can ask for, per family (CONTRACT.md). */
#ifndef TRV_WEBHOOK_EVENTS_H
#define TRV_WEBHOOK_EVENTS_H

/* "flight" or "hotel"; NULL-terminated list. */
const char *const *trv_webhook_event_types(const char *family);
int trv_webhook_event_type_known(const char *family, const char *type);

#endif
