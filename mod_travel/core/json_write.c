#include "json_write.h"

static int value(trv_jtext *o, const json_t *v, int depth)
{
    if (depth > TRV_JSON_WRITE_MAX_DEPTH) {
        return -1;
    }
    switch (json_typeof(v)) {
    case JSON_NULL: trv_jtext_put(o, "null", 4); return 0;
    case JSON_TRUE: trv_jtext_put(o, "true", 4); return 0;
    case JSON_FALSE: trv_jtext_put(o, "false", 5); return 0;
    case JSON_INTEGER:
        trv_jtext_integer(o, (long long)json_integer_value(v));
        return 0;
    case JSON_REAL:
        return trv_jtext_number(o, json_real_value(v));
    case JSON_STRING:
        return trv_jtext_string(o, json_string_value(v), json_string_length(v));
    case JSON_ARRAY: {
        size_t i, size = json_array_size(v);
        trv_jtext_put(o, "[", 1);
        for (i = 0; i < size; i++) {
            if (i) {
                trv_jtext_put(o, ",", 1);
            }
            if (value(o, json_array_get(v, i), depth + 1) != 0) {
                return -1;
            }
        }
        trv_jtext_put(o, "]", 1);
        return 0;
    }
    case JSON_OBJECT: {
        /* Insertion order, as json_dumps without JSON_SORT_KEYS. */
        void *it = json_object_iter((json_t *)v);
        int first = 1;
        trv_jtext_put(o, "{", 1);
        for (; it; it = json_object_iter_next((json_t *)v, it), first = 0) {
            const char *k = json_object_iter_key(it);
            if (!first) {
                trv_jtext_put(o, ",", 1);
            }
            if (trv_jtext_string(o, k, json_object_iter_key_len(it)) != 0) {
                return -1;
            }
            trv_jtext_put(o, ":", 1);
            if (value(o, json_object_iter_value(it), depth + 1) != 0) {
                return -1;
            }
        }
        trv_jtext_put(o, "}", 1);
        return 0;
    }
    default:
        return -1;
    }
}

char *trv_json_write(apr_pool_t *p, const json_t *v, apr_size_t *len)
{
    trv_jtext o;
    if (!v) {
        return NULL;
    }
    trv_jtext_init(&o, p, 1024);
    if (value(&o, v, 0) != 0) {
        return NULL;
    }
    o.buf[o.len] = '\0';
    if (len) {
        *len = o.len;
    }
    return o.buf;
}

int trv_json_write_to(trv_jtext *t, const json_t *v)
{
    trv_jtext_sep(t);
    if (!v || value(t, v, 0) != 0) {
        t->bad = 1;
        return -1;
    }
    return 0;
}
