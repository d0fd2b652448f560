/* The shared columns of a booking row (row.h). */
#include "row.h"
#include "core/json.h"

void trv_lifecycle_row_read(apr_pool_t *p, const trv_rows *r, int i, trv_lifecycle_row *row)
{
    row->id = trv_rows_get(r, i, "id");
    row->org_id = trv_rows_get(r, i, "org_id");
    row->user_id = trv_rows_get(r, i, "user_id");
    row->supplier = trv_rows_get(r, i, "supplier");
    row->idempotency_key = trv_rows_get(r, i, "idempotency_key");
    row->request_hash = trv_rows_get(r, i, "request_hash");
    row->offer_reference = trv_rows_get(r, i, "offer_reference");
    row->currency = trv_rows_get(r, i, "currency");
    row->total_amount = trv_rows_get(r, i, "total_amount");
    row->past_expiry = trv_rows_bool(r, i, "past_expiry");
    row->use_payment_sdk = trv_rows_bool(r, i, "use_payment_sdk");
    row->sdk_token = trv_rows_get(r, i, "sdk_token");
    row->contact = trv_json_column(p, r, i, "contact");
    row->cancellation_policy = trv_json_column(p, r, i, "cancellation_policy");
    row->supplier_data = trv_json_column(p, r, i, "supplier_data");
    row->failure = trv_json_column(p, r, i, "failure");
    row->phase_owner = trv_rows_get(r, i, "phase_owner");
    row->phase_due = trv_rows_bool(r, i, "phase_due");
    row->book_attempt = trv_rows_int(r, i, "book_attempt", 0);
    row->payment_instrument_id = trv_rows_get(r, i, "payment_instrument_id");
    row->cancel_attempt = trv_rows_int(r, i, "cancel_attempt", 0);
    row->confirmed_at = trv_rows_get(r, i, "confirmed_at");
    row->canceled_at = trv_rows_get(r, i, "canceled_at");
    row->created_at = trv_rows_get(r, i, "created_at");
    row->updated_at = trv_rows_get(r, i, "updated_at");
    row->revision = trv_rows_get(r, i, "revision");
}
