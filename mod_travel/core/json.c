#include "json.h"
#include "json_write.h"
#include "db.h"
#include "json_arena.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

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
    /* Jansson's text, written straight into the pool (json_write.h);
     * json_dumps for what that writer leaves to it. */
    char *s = trv_json_write(p, v, NULL);
    char *out;
    if (s) {
        return s;
    }
    s = json_dumps(v, TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
    if (!s) {
        return NULL;
    }
    out = apr_pstrdup(p, s);
    trv_json_free(s);
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

const char *trv_json_shape_check(const char *buf, apr_size_t len)
{
    /* Per open container: items seen so far, and whether it is an object. */
    unsigned long items[TRV_JSON_MAX_DEPTH + 1];
    int is_obj[TRV_JSON_MAX_DEPTH + 1];
    int depth = 0, in_str = 0, pending = 0;
    unsigned long values = 0;
    apr_size_t i;
    for (i = 0; i < len; i++) {
        char c = buf[i];
        if (in_str) {
            if (c == '\\') {
                i++;
            }
            else if (c == '"') {
                in_str = 0;
            }
            continue;
        }
        switch (c) {
        case ' ': case '\t': case '\r': case '\n': case ':':
            continue;
        case '{': case '[':
            if (depth == TRV_JSON_MAX_DEPTH) {
                return "nests objects and arrays too deeply (at most 32 levels)";
            }
            if (depth > 0 && !pending) {
                items[depth - 1]++;
                pending = 1;
            }
            values++;
            items[depth] = 0;
            is_obj[depth] = c == '{';
            depth++;
            pending = 0;
            break;
        case '}': case ']':
            if (depth > 0) {
                depth--;
            }
            pending = 1;
            break;
        case ',':
            pending = 0;
            break;
        default:
            /* The start of a scalar or a key: counted once per item. */
            if (depth > 0 && !pending) {
                items[depth - 1]++;
                values++;
                pending = 1;
            }
            if (c == '"') {
                in_str = 1;
            }
        }
        if (depth > 0) {
            unsigned long n = items[depth - 1];
            if (is_obj[depth - 1] && n > TRV_JSON_MAX_MEMBERS) {
                return "has an object with more than 256 members";
            }
            if (!is_obj[depth - 1] && n > TRV_JSON_MAX_ITEMS) {
                return "has an array with more than 1000 items";
            }
        }
        if (values > TRV_JSON_MAX_VALUES) {
            return "has more than 10000 values";
        }
    }
    return NULL;
}

static int header_item(void *rec, const char *name, const char *value)
{
    json_array_append_new(rec, json_pack("{s:s,s:s}", "name", name, "value", value));
    return 1;
}

json_t *trv_json_headers(const apr_table_t *headers)
{
    json_t *out = json_array();
    if (headers) {
        apr_table_do(header_item, out, headers, NULL);
    }
    return out;
}

json_t *trv_json_column(apr_pool_t *p, const trv_rows *r, int i, const char *col)
{
    const char *v = trv_rows_get(r, i, col);
    json_t *j = v ? trv_json_parse(p, v, strlen(v), NULL) : NULL;
    return j && !json_is_null(j) ? j : NULL;
}
