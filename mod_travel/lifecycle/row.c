/* The shared columns of a booking row (row.h). */
#include "row.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

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

void *trv_lifecycle_row_at(apr_pool_t *p, const trv_rows *r, int i,
                           const trv_lifecycle_row_shape *s)
{
    char *b = apr_pcalloc(p, s->size);
    const trv_lifecycle_row_col *col;
    trv_lifecycle_row_read(p, r, i, (trv_lifecycle_row *)(b + s->row_off));
    *(int *)(b + s->status_off) = trv_transit_or(s->statuses, trv_rows_get(r, i, "status"), 0);
    *(int *)(b + s->phase_off) =
        trv_transit_column_or(s->phases, trv_rows_get(r, i, "book_phase"), 0);
    for (col = s->cols; col->name; col++) {
        switch (col->kind) {
        case TRV_LIFECYCLE_ROW_TEXT:
            *(const char **)(b + col->off) = trv_rows_get(r, i, col->name);
            break;
        case TRV_LIFECYCLE_ROW_JSON:
            *(json_t **)(b + col->off) = trv_json_column(p, r, i, col->name);
            break;
        case TRV_LIFECYCLE_ROW_BOOL:
            *(int *)(b + col->off) = trv_rows_bool(r, i, col->name);
            break;
        }
    }
    return b;
}

apr_status_t trv_lifecycle_row_insert(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                                      const trv_lifecycle_row_new *head, int *inserted,
                                      int nown, const char *const *own)
{
    enum { NHEAD = 8 };
    const char **args = apr_palloc(p, sizeof(*args) * (NHEAD + nown));
    trv_rows *rows;
    apr_status_t rv;
    args[0] = head->id;
    args[1] = head->org_id;
    args[2] = head->user_id;
    args[3] = head->supplier;
    args[4] = head->idempotency_key;
    args[5] = head->request_hash;
    args[6] = head->offer_reference;
    args[7] = head->use_payment_sdk ? "true" : "false";
    memcpy(args + NHEAD, own, sizeof(*args) * nown);
    rv = trv_db_select(c, p, st, &rows, NHEAD + nown, args);
    *inserted = rv == APR_SUCCESS && rows->n == 1;
    return rv;
}
