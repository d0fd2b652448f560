#include "idempotency.h"
#include "crypt.h"
#include "json_arena.h"
#include "validate.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

int trv_idempotency_key_valid(const char *key)
{
    return trv_printable(key, 1, TRV_IDEMPOTENCY_KEY_MAX);
}

int trv_idempotency_key_check(const char *key, apr_size_t max, trv_errs *errs)
{
    if (!key) {
        trv_errs_add(errs, "x-idempotency-key", "header is required (1 to %d characters)",
                     (int)max);
        return 0;
    }
    if (!trv_printable(key, 1, max)) {
        trv_errs_add(errs, "x-idempotency-key", "must be 1 to %d printable ASCII characters",
                     (int)max);
        return 0;
    }
    return 1;
}

char *trv_idempotency_body_hash(apr_pool_t *p, const json_t *body)
{
    char *canon = body ? json_dumps(body, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY)
                       : NULL;
    char *hex = trv_crypt_sha256_hex(p, canon ? canon : "", canon ? strlen(canon) : 0);
    trv_json_free(canon);
    return hex;
}

const char *trv_idempotency_fingerprint(apr_pool_t *p, const char *method, const char *path,
                                        const char *args, const json_t *body)
{
    char *dump = body ? json_dumps(body, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    const char *text = apr_pstrcat(p, method, "\n", path, "\n", args ? args : "", "\n",
                                   dump ? dump : "", NULL);
    trv_json_free(dump);
    return trv_crypt_sha256_hex(p, text, strlen(text));
}
