/* A payment as the API shows it (record.h). */
#include "record.h"

json_t *trv_payment_record_json(const trv_payment_record *pay, json_t *amount, int full,
                                json_t *card)
{
    json_t *o = json_pack("{s:s,s:s,s:o,s:s}", "id", pay->id,
                          "status", trv_transit_text(&trv_pay_status_table, pay->status),
                          "amount", amount, "collected_by", trv_collector_text(pay->collected_by));
    if (full) {
        json_object_set_new(o, "payment_method",
                            card ? json_pack("{s:s,s:o}", "type", "CARD", "card", card)
                                 : json_null());
    }
    json_object_set_new(o, "created_at", json_string(pay->created_at));
    return o;
}
