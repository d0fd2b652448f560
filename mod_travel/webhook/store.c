#include "store.h"
#include "core/json.h"

#include <stdlib.h>
#include <string.h>

static json_t *parsed(apr_pool_t *p, const char *text, json_t *dflt)
{
    json_t *v = text ? trv_json_parse(p, text, strlen(text), NULL) : NULL;
    return v ? json_incref(v) : dflt;
}

json_t *trv_whs_json(apr_pool_t *p, const trv_rows *r, int i)
{
    json_t *s = json_object();
    json_object_set_new(s, "id", json_string(trv_rows_get(r, i, "id")));
    json_object_set_new(s, "url", json_string(trv_rows_get(r, i, "url")));
    json_object_set_new(s, "event_types",
                        parsed(p, trv_rows_get(r, i, "event_types"), json_array()));
    json_object_set_new(s, "status", json_string(trv_rows_get(r, i, "status")));
    /* Why the circuit breaker disabled it (breaker.h); null otherwise. */
    json_object_set_new(s, "disabled_reason",
                        trv_json_strn(trv_rows_get(r, i, "disabled_reason")));
    json_object_set_new(s, "filters", parsed(p, trv_rows_get(r, i, "filters"), json_null()));
    json_object_set_new(s, "max_per_second",
                        trv_rows_get(r, i, "max_per_second")
                            ? json_integer(trv_rows_int(r, i, "max_per_second", 0))
                            : json_null());
    json_object_set_new(s, "signature_scheme",
                        json_string(trv_rows_get(r, i, "signature_scheme")));
    json_object_set_new(s, "public_key", trv_json_strn(trv_rows_get(r, i, "public_key")));
    json_object_set_new(s, "previous_secret_expires_at",
                        trv_json_strn(trv_rows_get(r, i, "previous_secret_expires_at")));
    json_object_set_new(s, "created_at", json_string(trv_rows_get(r, i, "created_at")));
    json_object_set_new(s, "updated_at", json_string(trv_rows_get(r, i, "updated_at")));
    return s;
}

json_t *trv_dlv_json(apr_pool_t *p, const trv_rows *r, int i)
{
    json_t *d = json_object(), *attempts, *a;
    size_t k;
    json_object_set_new(d, "id", json_string(trv_rows_get(r, i, "id")));
    json_object_set_new(d, "status", json_string(trv_rows_get(r, i, "status")));
    json_object_set_new(d, "event", json_pack("{s:s,s:s,s:s,s:o}",
        "id", trv_rows_get(r, i, "event_id"),
        "type", trv_rows_get(r, i, "event_type"),
        "created_at", trv_rows_get(r, i, "event_created_at"),
        "data", parsed(p, trv_rows_get(r, i, "event_data"), json_object())));
    json_object_set_new(d, "replay_count",
                        json_integer(trv_rows_int(r, i, "replay_count", 0)));
    json_object_set_new(d, "failure_reason",
                        trv_json_strn(trv_rows_get(r, i, "failure_reason")));
    attempts = parsed(p, trv_rows_get(r, i, "attempts"), json_array());
    /* "error" says why there was no HTTP response; absent when there was. */
    json_array_foreach(attempts, k, a) {
        if (json_is_null(json_object_get(a, "error"))) {
            json_object_del(a, "error");
        }
    }
    json_object_set_new(d, "attempts", attempts);
    json_object_set_new(d, "created_at", json_string(trv_rows_get(r, i, "created_at")));
    json_object_set_new(d, "published_at", trv_json_strn(trv_rows_get(r, i, "published_at")));
    json_object_set_new(d, "delivered_at", trv_json_strn(trv_rows_get(r, i, "delivered_at")));
    json_object_set_new(d, "failed_at", trv_json_strn(trv_rows_get(r, i, "failed_at")));
    return d;
}
