#include "json_numbers.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <stdlib.h>
#include <string.h>

#define KEY "trv_json_numbers"

typedef struct source {
    const json_t *root;
    const char *buf;
    apr_size_t len;
    apr_hash_t *texts;          /* json_t * -> token; NULL until first asked */
    struct source *next;
} source;

void trv_json_numbers_keep(apr_pool_t *p, const json_t *root, const char *buf,
                           apr_size_t len)
{
    source *s = apr_pcalloc(p, sizeof(*s)), *head = NULL;
    void *v = NULL;
    if (!root || !buf) {
        return;
    }
    apr_pool_userdata_get(&v, KEY, p);
    head = v;
    s->root = root;
    s->buf = buf;
    s->len = len;
    s->next = head;
    apr_pool_userdata_setn(s, KEY, NULL, p);
}

/* The real-number tokens of the text, in order, as pool strings. JSON
 * numbers are the only tokens that start with '-' or a digit outside a
 * string; Jansson reads one as a real when it has '.', 'e' or 'E'. */
static void real_tokens(apr_pool_t *p, const char *b, apr_size_t len,
                        apr_array_header_t *out)
{
    apr_size_t i = 0;
    while (i < len) {
        char ch = b[i];
        if (ch == '"') {
            for (i++; i < len && b[i] != '"'; i++) {
                if (b[i] == '\\') {
                    i++;
                }
            }
            i++;
        }
        else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            apr_size_t start = i;
            int real = 0;
            while (i < len && (b[i] == '-' || b[i] == '+' || b[i] == '.' || b[i] == 'e'
                               || b[i] == 'E' || (b[i] >= '0' && b[i] <= '9'))) {
                real |= b[i] == '.' || b[i] == 'e' || b[i] == 'E';
                i++;
            }
            if (real) {
                APR_ARRAY_PUSH(out, const char *) = apr_pstrmemdup(p, b + start, i - start);
            }
        }
        else {
            i++;
        }
    }
}

/* The real values of the tree in document order. Depth is bounded by
 * trv_json_shape_check before any body is parsed. */
static void real_values(const json_t *v, apr_array_header_t *out)
{
    const char *k;
    json_t *item;
    size_t i;
    if (json_is_real(v)) {
        APR_ARRAY_PUSH(out, const json_t *) = v;
    }
    else if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, item) {
            real_values(item, out);
        }
    }
    else if (json_is_array(v)) {
        json_array_foreach(v, i, item) {
            real_values(item, out);
        }
    }
}

/* Pairs tokens and values; any disagreement (which would mean the order
 * assumption broke) leaves the index empty rather than wrong. */
static apr_hash_t *index_of(apr_pool_t *p, const source *s)
{
    apr_hash_t *h = apr_hash_make(p);
    apr_array_header_t *tokens = apr_array_make(p, 8, sizeof(const char *));
    apr_array_header_t *values = apr_array_make(p, 8, sizeof(const json_t *));
    int i;
    real_tokens(p, s->buf, s->len, tokens);
    real_values(s->root, values);
    if (tokens->nelts != values->nelts) {
        return h;
    }
    for (i = 0; i < tokens->nelts; i++) {
        const char *t = APR_ARRAY_IDX(tokens, i, const char *);
        const json_t *v = APR_ARRAY_IDX(values, i, const json_t *);
        if (strtod(t, NULL) != json_real_value(v)) {
            return apr_hash_make(p);
        }
    }
    for (i = 0; i < tokens->nelts; i++) {
        const json_t *v = APR_ARRAY_IDX(values, i, const json_t *);
        apr_hash_set(h, apr_pmemdup(p, &v, sizeof(v)), sizeof(v),
                     APR_ARRAY_IDX(tokens, i, const char *));
    }
    return h;
}

const char *trv_json_numbers_text(apr_pool_t *p, const json_t *num)
{
    void *v = NULL;
    source *s;
    if (!json_is_real(num)) {
        return NULL;
    }
    apr_pool_userdata_get(&v, KEY, p);
    for (s = v; s; s = s->next) {
        const char *t;
        if (!s->texts) {
            s->texts = index_of(p, s);
        }
        t = apr_hash_get(s->texts, &num, sizeof(num));
        if (t) {
            return t;
        }
    }
    return NULL;
}
