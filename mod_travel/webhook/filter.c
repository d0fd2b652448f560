#include "filter.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

#define MAX_SEGMENT 64
#define MAX_STRING 256

/* "data" then 1..TRV_WEBHOOK_MAX_FILTER_DEPTH segments of [A-Za-z0-9_],
 * dot-separated: the envelope's data is all a filter may look at (the
 * type has event_types). */
static const char *path_problem(const char *path)
{
    const char *s;
    int depth = 0;
    size_t len = 0;
    if (strncmp(path, "data.", 5) != 0) {
        return "must be a path into the event's data, e.g. \"data.booking.status\"";
    }
    for (s = path + 5;; s++) {
        if (*s == '.' || *s == '\0') {
            if (len == 0 || len > MAX_SEGMENT) {
                return "has an empty or over-long segment (1 to 64 of A-Z a-z 0-9 _)";
            }
            if (++depth > TRV_WEBHOOK_MAX_FILTER_DEPTH) {
                return "is deeper than 8 levels below data";
            }
            len = 0;
            if (*s == '\0') {
                return NULL;
            }
            continue;
        }
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
              || (*s >= '0' && *s <= '9') || *s == '_')) {
            return "may hold only A-Z a-z 0-9 _ between dots";
        }
        len++;
    }
}

/* A value a path can be compared with: a string, a number or a boolean. */
static int scalar_ok(const json_t *v)
{
    return (json_is_string(v) && json_string_length(v) <= MAX_STRING) || json_is_number(v)
           || json_is_boolean(v);
}

json_t *trv_webhook_filters_check(apr_pool_t *p, const json_t *filters, trv_errs *errs)
{
    json_t *out, *v;
    const char *path;
    if (!filters || json_is_null(filters)) {
        return NULL;
    }
    if (!json_is_object(filters) || json_object_size(filters) == 0
        || json_object_size(filters) > TRV_WEBHOOK_MAX_FILTERS) {
        trv_errs_add(errs, "filters", "must be null or an object of 1 to %d paths, e.g. "
                     "{\"data.booking.status\": [\"CONFIRMED\"]}", TRV_WEBHOOK_MAX_FILTERS);
        return NULL;
    }
    out = trv_json_bind(p, json_object());
    json_object_foreach((json_t *)filters, path, v) {
        const char *field = apr_pstrcat(p, "filters.", path, NULL), *why;
        json_t *list;
        size_t i, j;
        if ((why = path_problem(path))) {
            trv_errs_add(errs, field, "%s", why);
            continue;
        }
        if (!json_is_array(v)) {
            if (!scalar_ok(v)) {
                trv_errs_add(errs, field, "must be a string (at most %d characters), a "
                             "number, a boolean, or a list of 1 to %d of them", MAX_STRING,
                             TRV_WEBHOOK_MAX_FILTER_VALUES);
                continue;
            }
            json_object_set_new(out, path, json_pack("[O]", v));
            continue;
        }
        if (json_array_size(v) == 0 || json_array_size(v) > TRV_WEBHOOK_MAX_FILTER_VALUES) {
            trv_errs_add(errs, field, "must list 1 to %d values",
                         TRV_WEBHOOK_MAX_FILTER_VALUES);
            continue;
        }
        list = json_array();
        for (i = 0; i < json_array_size(v); i++) {
            const json_t *one = json_array_get(v, i);
            if (!scalar_ok(one)) {
                trv_errs_add(errs, apr_psprintf(p, "%s[%lu]", field, (unsigned long)i),
                             "must be a string (at most %d characters), a number or a "
                             "boolean", MAX_STRING);
                continue;
            }
            for (j = 0; j < json_array_size(list) && !json_equal(json_array_get(list, j),
                                                                 (json_t *)one); j++) {
            }
            if (j < json_array_size(list)) {
                trv_errs_add(errs, apr_psprintf(p, "%s[%lu]", field, (unsigned long)i),
                             "is listed twice");
                continue;
            }
            json_array_append(list, (json_t *)one);
        }
        json_object_set_new(out, path, list);
    }
    return out;
}
