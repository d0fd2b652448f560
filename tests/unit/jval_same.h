/* Whether a trv_jval document reads as the Jansson tree of the same text:
 * the same types, numbers, strings, items in order and members by key.
 * Shared by tests/unit/test_jval.c and tests/fuzz/fuzz_jval.c. */
#ifndef TRV_TEST_JVAL_SAME_H
#define TRV_TEST_JVAL_SAME_H

#include "core/jval.h"

#include <jansson.h>
#include <string.h>

static inline int jval_same(const trv_jval *v, const json_t *j)
{
    size_t i;
    const trv_jval *item;
    const char *key;
    if (!v || !j) {
        return !v && !j;
    }
    switch (json_typeof(j)) {
    case JSON_NULL: return v->type == TRV_JVAL_NULL;
    case JSON_TRUE: return v->type == TRV_JVAL_TRUE;
    case JSON_FALSE: return v->type == TRV_JVAL_FALSE;
    case JSON_INTEGER:
        return v->type == TRV_JVAL_INT && trv_jval_int(v) == json_integer_value(j);
    case JSON_REAL:
        return v->type == TRV_JVAL_REAL
               && memcmp(&v->u.d, &(double){json_real_value(j)}, sizeof(double)) == 0;
    case JSON_STRING:
        return v->type == TRV_JVAL_STRING && v->n == json_string_length(j)
               && memcmp(v->u.s, json_string_value(j), v->n) == 0 && v->u.s[v->n] == '\0';
    case JSON_ARRAY:
        if (v->type != TRV_JVAL_ARRAY || trv_jval_len(v) != json_array_size(j)) {
            return 0;
        }
        trv_jval_foreach(v, i, item) {
            if (!jval_same(item, json_array_get(j, i)) || trv_jval_at(v, i) != item) {
                return 0;
            }
        }
        return 1;
    case JSON_OBJECT:
        if (v->type != TRV_JVAL_OBJECT || trv_jval_members(v) != json_object_size(j)) {
            return 0;
        }
        trv_jval_foreach_member(v, i, key, item) {
            if (!jval_same(item, json_object_get(j, key)) || trv_jval_get(v, key) != item) {
                return 0;
            }
        }
        return 1;
    }
    return 0;
}

#endif
