/* The booking's cancellation policy shape (policy.h). */
#include "policy.h"
#include "core/json.h"

json_t *trv_hotel_policy_doc(const json_t *neutral)
{
    json_t *pens, *out;
    const json_t *pen;
    const char *deadline = NULL;
    int refundable = json_is_true(json_object_get(neutral, "refundable"));
    size_t i;
    if (!json_is_object(neutral)) {
        return json_null();
    }
    pens = json_array();
    json_array_foreach(json_object_get(neutral, "penalties"), i, pen) {
        const json_t *amount = json_object_get(pen, "amount");
        json_array_append_new(pens, json_pack("{s:O,s:s,s:O}", "from",
                                              json_object_get(pen, "from"), "type", "AMOUNT",
                                              "amount", amount));
        if (!deadline && refundable && json_number_value(json_object_get(amount, "amount")) > 0) {
            deadline = json_string_value(json_object_get(pen, "from"));
        }
    }
    out = json_pack("{s:i,s:b,s:o,s:o,s:[]}", "version", 1, "refundable", refundable,
                    "deadline", trv_json_strn(deadline), "penalties", pens, "restrictions");
    return out;
}
