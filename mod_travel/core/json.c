#include "json.h"

#include <apr_strings.h>
#include <stdlib.h>

static apr_status_t json_cleanup(void *v)
{
    json_decref((json_t *)v);
    return APR_SUCCESS;
}

json_t *trv_json_bind(apr_pool_t *p, json_t *v)
{
    if (v) {
        apr_pool_cleanup_register(p, v, json_cleanup, apr_pool_cleanup_null);
    }
    return v;
}

char *trv_json_dump(apr_pool_t *p, const json_t *v)
{
    char *s = json_dumps(v, TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
    char *out;
    if (!s) {
        return NULL;
    }
    out = apr_pstrdup(p, s);
    free(s);
    return out;
}

json_t *trv_json_parse(apr_pool_t *p, const char *buf, apr_size_t len,
                       const char **error)
{
    json_error_t err;
    json_t *v = json_loadb(buf, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
                           &err);
    if (!v) {
        if (error) {
            *error = apr_psprintf(p, "%s at line %d, column %d", err.text,
                                  err.line, err.column);
        }
        return NULL;
    }
    return trv_json_bind(p, v);
}

const char *trv_json_str(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

json_t *trv_json_strn(const char *s)
{
    return s ? json_string(s) : json_null();
}
