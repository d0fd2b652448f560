/* A watch as the API and its events show it. A watch still active or armed
 * on or after its check_in reads as expired at once (the schedule stores
 * it); reads write nothing. */
#include "watch.h"
#include "hotel/input.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

static json_t *amount(const char *minor, const char *currency)
{
    int e = trv_currency_exponent(currency);
    return minor && e >= 0 ? trv_money_amount_json(apr_atoi64(minor), e) : json_null();
}

static json_t *money(const char *minor, const char *currency)
{
    if (!minor) {
        return json_null();
    }
    return json_pack("{s:o,s:s}", "amount", amount(minor, currency), "currency", currency);
}

json_t *trv_watch_json(apr_pool_t *p, const trv_rows *r, int i)
{
#define G(col) trv_rows_get(r, i, col)
    const char *cur = G("currency");
    const char *status = trv_rows_bool(r, i, "past_check_in") ? "expired" : G("status");
    json_t *w = json_object(), *occ;
    occ = trv_json_parse(p, G("occupancy"), strlen(G("occupancy")), NULL);
    json_object_set_new(w, "id", json_string(G("id")));
    json_object_set_new(w, "kind", json_string(G("kind")));
    json_object_set_new(w, "status", json_string(status));
    json_object_set_new(w, "user_id", json_string(G("user_id")));
    if (strcmp(G("kind"), "price") == 0) {
        json_object_set_new(w, "hotel_id", trv_json_strn(G("hotel_id")));
    }
    else {
        json_object_set_new(w, "destination", trv_json_strn(G("destination")));
        json_object_set_new(w, "place",
                            G("place_id") ? json_pack("{s:s,s:s?,s:s?,s:s?}", "id",
                                                      G("place_id"), "name", G("place_name"),
                                                      "city", G("place_city"), "country_code",
                                                      G("place_country"))
                                          : json_null());
    }
    json_object_set_new(w, "check_in", json_string(G("check_in")));
    json_object_set_new(w, "check_out", json_string(G("check_out")));
    json_object_set(w, "occupancy", occ ? occ : json_null());
    json_object_set_new(w, "currency", json_string(cur));
    json_object_set_new(w, "guest_nationality", json_string(G("guest_nationality")));
    json_object_set_new(w, "trigger", json_pack("{s:s,s:o}", "type", G("trigger_type"),
                                                "amount", amount(G("trigger_minor"), cur)));
    json_object_set_new(w, "auto_purchase",
                        G("max_total_minor")
                            ? json_pack("{s:o}", "max_total", amount(G("max_total_minor"), cur))
                            : json_null());
    json_object_set_new(w, "mandate",
                        G("mandate_id") ? json_pack("{s:s,s:s}", "id", G("mandate_id"),
                                                    "status", G("mandate_status"))
                                        : json_null());
    json_object_set_new(w, "last_checked_at", trv_json_strn(G("last_checked_at")));
    json_object_set_new(w, "last_price", money(G("last_price_minor"), cur));
    json_object_set_new(w, "triggered_at", trv_json_strn(G("triggered_at")));
    json_object_set_new(w, "created_at", json_string(G("created_at")));
    json_object_set_new(w, "updated_at", json_string(G("updated_at")));
    return w;
#undef G
}

const char *trv_watch_stay_key(apr_pool_t *p, const trv_hotel_stay *stay)
{
    const char *s = apr_psprintf(p, "%s|%s|", stay->check_in, stay->check_out);
    int i, k;
    for (i = 0; i < stay->n_rooms; i++) {
        s = apr_psprintf(p, "%s%s%d", s, i ? ";" : "", stay->rooms[i].adults);
        for (k = 0; k < stay->rooms[i].n_children; k++) {
            s = apr_psprintf(p, "%s%c%d", s, k ? ',' : '-', stay->rooms[i].ages[k]);
        }
    }
    return apr_psprintf(p, "%s|%s|%s|%s", s, stay->currency, stay->nationality,
                        stay->residence);
}

int trv_watch_stay(apr_pool_t *p, const char *check_in, const char *check_out,
                   const char *occupancy, const char *currency, const char *nationality,
                   const char *residence, trv_hotel_stay *stay)
{
    json_t *body = json_object();
    trv_errs *errs = trv_errs_new(p);
    json_t *occ = trv_json_parse(p, occupancy, strlen(occupancy), NULL);
    json_object_set_new(body, "check_in", json_string(check_in));
    json_object_set_new(body, "check_out", json_string(check_out));
    json_object_set(body, "occupancy", occ ? occ : json_null());
    json_object_set_new(body, "currency", json_string(currency));
    json_object_set_new(body, "guest_nationality", json_string(nationality));
    json_object_set_new(body, "guest_residence", json_string(residence));
    trv_json_bind(p, body);
    /* The stay was checked when saved; yesterday as "today" keeps a stay
     * starting today readable (the checks skip it as expired anyway). */
    trv_hotel_read_stay(p, body, (long)(apr_time_sec(apr_time_now()) / 86400) - 1, stay, errs);
    return !trv_errs_any(errs);
}

void trv_watch_job_req(trv_env *env, apr_pool_t *p, const char *request_id,
                       const char *org_id, trv_req *req, trv_resp *resp)
{
    memset(req, 0, sizeof(*req));
    memset(resp, 0, sizeof(*resp));
    req->pool = p;
    req->env = env;
    req->method = "POST";
    req->path = "/v1/watcher";
    req->request_id = request_id;
    req->log = env->log;
    req->org_id = org_id;
    req->headers = apr_table_make(p, 1);
    req->query = apr_table_make(p, 1);
    req->params = apr_table_make(p, 1);
}
