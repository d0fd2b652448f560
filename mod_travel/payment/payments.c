/* The payment rows of any domain (payments.h): the statements are the
 * domain's, the logic one. */
#include "payments.h"
#include "core/json.h"

#include <apr_strings.h>

static trv_payment_record *record_at(apr_pool_t *p, const trv_rows *r, int i)
{
    trv_payment_record *pay = apr_pcalloc(p, sizeof(*pay));
    pay->id = trv_rows_get(r, i, "id");
    pay->booking_id = trv_rows_get(r, i, "booking_id");
    /* The columns' CHECK constraints admit only the enums' texts. */
    pay->status = trv_transit_or(&trv_pay_status_table, trv_rows_get(r, i, "status"), (int)pay->status);
    pay->currency = trv_rows_get(r, i, "currency");
    pay->amount = trv_rows_get(r, i, "amount");
    (void)trv_collector_from_text(trv_rows_get(r, i, "collected_by"), &pay->collected_by);
    pay->provider_ref = trv_rows_get(r, i, "provider_ref");
    pay->card = trv_json_column(p, r, i, "card");
    pay->created_at = trv_rows_get(r, i, "created_at");
    return pay;
}

apr_status_t trv_payments_insert(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const trv_payment_record *pay, int *inserted)
{
    trv_rows *rows;
    const char *card = pay->card ? trv_json_dump(p, pay->card) : NULL;
    const char *status = trv_transit_text(&trv_pay_status_table, pay->status);
    apr_status_t rv = trv_db_select(c, p, &k->sql->insert, &rows,
        TRV_DB_ARGS(pay->id, pay->booking_id, status, pay->currency, pay->amount,
                    trv_collector_text(pay->collected_by), pay->provider_ref, card, status));
    *inserted = rv == APR_SUCCESS && rows->n == 1;
    return rv;
}

apr_status_t trv_payments_captured(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                                   const char *id, const char *card_json)
{
    return trv_db_exec(c, p, &k->sql->captured, NULL, TRV_DB_ARGS(card_json, id));
}

apr_status_t trv_payments_voided(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *id)
{
    return trv_db_exec(c, p, &k->sql->voided, NULL, TRV_DB_ARGS(id));
}

apr_status_t trv_payments_card(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                               const char *id, const char *card_json)
{
    return trv_db_exec(c, p, &k->sql->card, NULL, TRV_DB_ARGS(card_json, id));
}

apr_status_t trv_payments_get(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                              const char *id, trv_payment_record **out)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &k->sql->get, &rows, TRV_DB_ARGS(id));
    *out = rv == APR_SUCCESS && rows->n ? record_at(p, rows, 0) : NULL;
    return rv;
}

apr_status_t trv_payments_of(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                             const char *ids, apr_hash_t **out)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &k->sql->of, &rows, TRV_DB_ARGS(ids));
    int i;
    *out = apr_hash_make(p);
    for (i = 0; rv == APR_SUCCESS && i < rows->n; i++) {
        trv_payment_record *pay = record_at(p, rows, i);
        APR_ARRAY_PUSH(trv_payments_for(p, *out, pay->booking_id), trv_payment_record) = *pay;
    }
    return rv;
}

apr_array_header_t *trv_payments_for(apr_pool_t *p, apr_hash_t *of, const char *booking_id)
{
    apr_array_header_t *a = apr_hash_get(of, booking_id, APR_HASH_KEY_STRING);
    if (!a) {
        a = apr_array_make(p, 1, sizeof(trv_payment_record));
        apr_hash_set(of, booking_id, APR_HASH_KEY_STRING, a);
    }
    return a;
}
