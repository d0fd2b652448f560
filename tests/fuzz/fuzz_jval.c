/* core/jval.c against Jansson: for any input, the reader of suppliers'
 * answers accepts exactly what trv_json_parse accepts (an answer refused
 * before is refused now) and reads every accepted document as Jansson
 * reads it (tests/unit/jval_same.h); it never reads or writes outside
 * the input (ASan). */
#include "fuzz.h"
#include "../unit/jval_same.h"

#include "core/json.h"
#include "core/jval.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p = fz_begin();
    /* Exactly the input's bytes, in a buffer of its own size (no NUL after
     * it), so a read past the end shows. */
    char *buf = malloc(size ? size : 1);
    const trv_jval *v;
    json_t *j;
    const char *why = NULL;
    memcpy(buf, data, size);
    v = trv_jval_parse(p, buf, size, &why);
    j = trv_json_parse(p, (const char *)data, size, NULL);
    FZ_ASSERT(!!v == !!j);
    FZ_ASSERT(v || why);
    FZ_ASSERT(!v || jval_same(v, j));
    free(buf);
    fz_end(p);
    return 0;
}
