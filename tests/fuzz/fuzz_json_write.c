/* core/json_write.c against Jansson: for any JSON text Jansson reads
 * (NULs inside strings allowed, any value at the top), the tree written
 * by trv_json_write is json_dumps' text with the service's flags, byte
 * for byte, or nothing where json_dumps writes nothing; trv_json_dump
 * (which every answer goes through) is json_dumps' text either way. Reals
 * of every form the input can spell reach the writer's %.15g touch-ups. */
#include "fuzz.h"

#include "core/json.h"
#include "core/json_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p = fz_begin();
    json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (v) {
        char *want = json_dumps(v, TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
        apr_size_t len = 0;
        char *got = trv_json_write(p, v, &len);
        FZ_ASSERT(!got || (want && len == strlen(want) && strcmp(got, want) == 0));
        FZ_ASSERT(!want || strcmp(trv_json_dump(p, v), want) == 0);
        free(want);
        json_decref(v);
    }
    fz_end(p);
    return 0;
}
