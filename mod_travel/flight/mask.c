#include "mask.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

char *trv_fmask_membership(apr_pool_t *p, const char *number)
{
    size_t n = number ? strlen(number) : 0, shown, i;
    char *out;
    if (n == 0) {
        return apr_pstrdup(p, "");
    }
    shown = n > 8 ? 4 : n / 2;
    out = apr_palloc(p, n + 1);
    for (i = 0; i < n; i++) {
        out[i] = i < n - shown ? '*' : number[i];
    }
    out[n] = '\0';
    return out;
}

json_t *trv_fmask_passengers(apr_pool_t *p, const json_t *stored)
{
    json_t *out = json_array();
    size_t i, j;
    for (i = 0; i < json_array_size(stored); i++) {
        const json_t *s = json_array_get(stored, i);
        json_t *accounts = json_array();
        const json_t *la = json_object_get(s, "loyalty_accounts");
        for (j = 0; j < json_array_size(la); j++) {
            const json_t *a = json_array_get(la, j);
            json_array_append_new(accounts, json_pack("{s:o,s:s}",
                "airline_iata_code", trv_json_strn(trv_json_str(a, "airline_iata_code")),
                "membership_number",
                trv_fmask_membership(p, trv_json_str(a, "membership_number"))));
        }
        json_array_append_new(out, json_pack("{s:o,s:o,s:o,s:o}",
            "id", trv_json_strn(trv_json_str(s, "id")),
            "first_name", trv_json_strn(trv_json_str(s, "first_name")),
            "last_name", trv_json_strn(trv_json_str(s, "last_name")),
            "loyalty_accounts", accounts));
    }
    return out;
}
