/* The hotel booking document (render.h): the service document's field
 * table, in its order. */
#include "render.h"
#include "cancellation_store.h"
#include "booking_store.h"
#include "core/json.h"
#include "core/money.h"

#include <string.h>

json_t *trv_hrender_money(const char *amount, const char *currency)
{
    trv_money m;
    int e = currency ? trv_currency_exponent(currency) : -1;
    if (!amount || e < 0 || trv_money_parse_decimal(amount, e, &m.minor) != APR_SUCCESS
        || trv_money_make(&m, m.minor, currency) != APR_SUCCESS) {
        return json_null();
    }
    return trv_money_json(&m);
}

static json_t *or_null(const json_t *v)
{
    return v ? json_incref((json_t *)v) : json_null();
}

static json_t *payment(const trv_hpayment *pay, int mode)
{
    int full = mode == TRV_HRENDER_FULL;
    return trv_payment_record_json(pay, trv_hrender_money(pay->amount, pay->currency), full,
                                   full ? json_incref(pay->card) : NULL);
}

static json_t *room(const trv_hroom *r)
{
    json_t *guests = json_array();
    int i;
    for (i = 0; i < r->guests->nelts; i++) {
        const trv_hguest *g = &APR_ARRAY_IDX(r->guests, i, trv_hguest);
        json_array_append_new(guests, json_pack("{s:s,s:s,s:s,s:s,s:b}", "id", g->id,
                                                "first_name", g->first_name,
                                                "last_name", g->last_name, "type", g->type,
                                                "is_lead", g->is_lead));
    }
    return json_pack("{s:s,s:i,s:o,s:o,s:o,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
                     "id", r->id, "position", r->position, "name", trv_json_strn(r->name),
                     "board", trv_json_strn(r->board), "board_name", trv_json_strn(r->board_name),
                     "adults", r->adults, "children", r->children ? json_incref(r->children)
                                                                  : json_array(),
                     "total", trv_hrender_money(r->total_amount, r->currency),
                     "due_at_property", or_null(r->due_at_property),
                     "cancellation_policy", or_null(r->cancellation_policy),
                     "promotions", or_null(r->promotions),
                     "supplier_reference_number", trv_json_strn(r->supplier_reference_number),
                     "hotel_confirmation_code", trv_json_strn(r->hotel_confirmation_code),
                     "canceled_at", trv_json_strn(r->canceled_at), "guests", guests);
}

json_t *trv_hrender_booking(apr_pool_t *p, const trv_hbooking *b, int mode)
{
    json_t *pays = json_array(), *rooms = json_array(), *o;
    int i;
    (void)p;
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        json_array_append_new(pays, payment(&APR_ARRAY_IDX(b->payments, i, trv_hpayment), mode));
    }
    for (i = 0; b->rooms && i < b->rooms->nelts; i++) {
        json_array_append_new(rooms, room(&APR_ARRAY_IDX(b->rooms, i, trv_hroom)));
    }
    o = json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:o,s:s,s:s,s:o,s:o,s:o,s:[],s:o,s:o,s:o,"
                  "s:o,s:o,s:o,s:o,s:o}",
                  "id", b->id, "reference_id", b->reference_id,
                  "status", trv_transit_text(&trv_hb_status_table, trv_hbooking_status(b)), "supplier", b->supplier,
                  "hotel", or_null(b->hotel), "check_in", b->check_in, "check_out", b->check_out,
                  "total", trv_hrender_money(b->total_amount, b->currency),
                  "created_at", b->created_at, "updated_at", b->updated_at,
                  "confirmed_at", trv_json_strn(b->confirmed_at),
                  "canceled_at", trv_json_strn(b->canceled_at),
                  "payments", pays, "cancellations",
                  "hotel_confirmation_code", trv_json_strn(b->hotel_confirmation_code),
                  "hotel_remarks", trv_json_strn(b->hotel_remarks),
                  "offer_expires_at", trv_json_strn(b->offer_expires_at),
                  "due_at_property", or_null(b->due_at_property),
                  "cancellation_policy", or_null(b->cancellation_policy),
                  "contact", or_null(b->contact), "loyalty", or_null(b->loyalty),
                  "rooms", rooms);
    json_object_set_new(o, "supplier_reference", trv_json_strn(b->supplier_booking_id));
    /* Cancellation attempts, oldest first (cancellation_store.c). */
    json_object_set_new(o, "cancellations", trv_hcancellation_render(b->cancellations));
    if (b->failure) {
        json_object_set_new(o, "failure", json_incref(b->failure));
    }
    return o;
}

apr_status_t trv_hrender_keep(trv_dbc *c, apr_pool_t *p, const trv_hbooking *b)
{
    json_t *docs;
    apr_status_t rv;
    if (!b || b->past_expiry || !b->revision || !b->rooms || !b->payments) {
        return APR_SUCCESS;
    }
    docs = trv_json_bind(p, json_pack(
        "[{s:s,s:s,s:o,s:o}]", "booking_id", b->id, "revision", b->revision,
        "doc", json_string(trv_json_dump(p, trv_json_bind(p, trv_hrender_booking(
                                                           p, b, TRV_HRENDER_FULL)))),
        "list_doc", json_string(trv_json_dump(p, trv_json_bind(p, trv_hrender_booking(
                                                                p, b, TRV_HRENDER_LIST))))));
    if ((rv = trv_hbooking_keep_docs(c, p, docs)) != APR_SUCCESS) {
        return rv;
    }
    /* The change made the organization's usual page stale: built again
     * here, in the change's transaction where there is one (sql/143). */
    return trv_hbooking_keep_head(c, p, b->org_id);
}
