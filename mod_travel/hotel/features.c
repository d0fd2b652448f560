/* GET /v1/hotel/features: the hotel suppliers' rows read out — what each
 * configured supplier can be asked through this service and its limits.
 * No supplier is called and the database is not touched: the registry is
 * static data. A feature is listed only once its operation is built; a
 * feature that needs a capability is listed only for the rows that have it
 * (cancellation_preview, for SUPPLIER_C). */
#include "handlers.h"
#include "supplier.h"
#include "core/registry.h"

typedef struct feature {
    const char *name;
    unsigned needs;     /* TRV_SUP_* the row must have; 0: every supplier */
} feature;

static const feature features[] = {
    {"search", 0},
    {"offers", 0},
    {"prebook", 0},
    {"book", 0},
    /* hotel/cancel.c, hotel/estimate.c (POLICY_ESTIMATE, or the preview
     * where the row has it). */
    {"cancel", 0},
    {"cancellation_estimate", 0},
    /* How book is paid: through the payment SDK, or by the supplier
     * charging the traveller's card itself (book names a saved
     * instrument; the payment provider forwards its card to the supplier). */
    {"payment_sdk", TRV_SUP_PAYMENT_SDK},
    {"supplier_collects_payment", TRV_SUP_COLLECTS_PAYMENT},
    {"cancellation_preview", TRV_SUP_CANCEL_PREVIEW},
    {NULL, 0},
};

void trv_hotel_features(trv_req *req, trv_resp *resp)
{
    const trv_supplier *row;
    json_t *data = json_array();
    for (row = trv_hotel_supplier_rows(req->env); row->name; row++) {
        json_t *list = json_array();
        const feature *f;
        if (!trv_config_hotel_upstream(req->env->cfg, row->name)) {
            continue; /* not configured here: nothing of it can be used */
        }
        for (f = features; f->name; f++) {
            if (trv_supplier_can(row, f->needs)) {
                json_array_append_new(list, json_string(f->name));
            }
        }
        json_array_append_new(data, json_pack(
            "{s:s,s:o,s:{s:i,s:i,s:i}}", "supplier", row->name, "features", list, "limits",
            "max_hotels_per_offers_request", row->limits.max_hotels_per_offers_request,
            "max_offers_per_request", row->limits.max_offers_per_request,
            "max_nights", row->limits.max_nights));
    }
    trv_ok(req, resp, 200, data, NULL);
}
