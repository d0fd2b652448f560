#include "hotel_store.h"
#include "account/key_cache.h"
#include "core/text_cache.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/json_text.h"
#include "core/log.h"

#include <apr_strings.h>
#include <stdlib.h>

static const trv_stmt place_stmt = {"trv_hhotel_place_area",
    "SELECT type, city, country_code, latitude::text AS latitude, "
    "longitude::text AS longitude, radius_m FROM hotel_places WHERE id = %s AND org_id = %s"};

static const trv_stmt map_stmt = {"trv_hotel_map_page",
    "SELECT i, id FROM hotel_map_page(%s::jsonb) ORDER BY i"};

int trv_hhotel_place_area(trv_req *req, trv_resp *resp, const char *place_id,
                          trv_hotel_area *area, int *found)
{
    trv_dbc *c;
    trv_rows *r;
    *found = 0;
    if (!trv_api_db_open(req, resp, &c, 1412, "reading a place")) {
        return 0;
    }
    if (trv_db_select(c, req->pool, &place_stmt, &r, TRV_DB_ARGS(place_id, req->org_id))
        != APR_SUCCESS) {
        trv_fail_db(req, resp, c, 1412, "reading a place");
        trv_db_close(req->env->db, c);
        return 0;
    }
    trv_db_close(req->env->db, c);
    if (r->n == 0) {
        return 1;
    }
    *found = 1;
    memset(area, 0, sizeof(*area));
    if (strcmp(trv_rows_get(r, 0, "type"), "city") == 0) {
        area->city = trv_rows_get(r, 0, "city");
        area->country_code = trv_rows_get(r, 0, "country_code");
    }
    else {
        area->by_point = 1;
        area->latitude = strtod(trv_rows_get(r, 0, "latitude"), NULL);
        area->longitude = strtod(trv_rows_get(r, 0, "longitude"), NULL);
        area->radius_m = trv_rows_int(r, 0, "radius_m", 10000);
    }
    return 1;
}

/* The page's lookup: per group (its members, a JSON array of
 * {"supplier","id"}), the id hotel_map_page (sql/390) answers when every
 * member is mapped already (hotel_map_known, which the function begins with)
 * and NULL otherwise. Read-only, and it needs only the members: nearly every
 * page is all known, and then neither a new htl_ id nor a hotel's details
 * is made or sent (making them was a third of a search's instructions,
 * docs/performance.md, "The hotel search's gateway CPU"). */
static const trv_stmt known_stmt = {"trv_hotel_map_known",
    "SELECT i, id FROM hotel_map_known(%s::jsonb) ORDER BY i"};

static void members_text(trv_jtext *t, const trv_hotel_group *g)
{
    int i;
    trv_jtext_arr(t);
    for (i = 0; i < g->members->nelts; i++) {
        const trv_hotel_found *f = APR_ARRAY_IDX(g->members, i, const trv_hotel_found *);
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "supplier", f->supplier);
        trv_jtext_kstr(t, "id", f->sid);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
}

/* A group as hotel_map_page takes it: the first member's details, a fresh
 * htl_ id for a hotel seen for the first time, and the members. */
static void group_text(trv_jtext *t, apr_pool_t *p, const trv_hotel_group *g)
{
    const trv_hotel_found *m = APR_ARRAY_IDX(g->members, 0, const trv_hotel_found *);
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "id", trv_id_new(p, "htl"));
    trv_jtext_kstr(t, "country_code", m->country_code);
    trv_jtext_kstr(t, "name_key", g->name_key);
    trv_jtext_kstr(t, "postal_code", m->postal_code ? m->postal_code : "");
    trv_jtext_kstr(t, "giata", g->giata);
    trv_jtext_kstr(t, "name", m->name);
    if (m->city) {
        trv_jtext_kstr(t, "city", m->city);
    }
    trv_jtext_kreal(t, "latitude", m->latitude);
    trv_jtext_kreal(t, "longitude", m->longitude);
    trv_jtext_key(t, "members");
    members_text(t, g);
    trv_jtext_end(t);
}

static int select_page(trv_req *req, trv_resp *resp, trv_dbc *c, const trv_stmt *st,
                       const char *text, int n, trv_rows **r)
{
    if (!text || trv_db_select(c, req->pool, st, r, TRV_DB_ARGS(text)) != APR_SUCCESS
        || (*r)->n != n) {
        trv_fail_db(req, resp, c, 1413, "keeping hotel ids");
        trv_db_close(req->env->db, c);
        return 0;
    }
    return 1;
}

/* Each group's members as hotel_map_known takes them, and the key its id
 * is kept under in this process (env->hotel_ids).
 *
 * Why keeping ids is safe: a supplier id's row in hotel_supplier_ids is
 * only ever inserted (ON CONFLICT DO NOTHING), never changed by the
 * service, and a hotel's created_at never changes, so the id
 * hotel_map_known answers for a group all of whose members are mapped
 * (the oldest of their hotels) is the same forever, in every process and
 * node. Only such answers are kept; a group with a member not yet mapped
 * is always asked of PostgreSQL. Why: the lookup was two thirds of
 * PostgreSQL's CPU in a hotel search (docs/performance.md, "The
 * fourteenth pass"). */
static const char *members_of(apr_pool_t *p, const trv_hotel_group *g, apr_size_t *len)
{
    trv_jtext t;
    trv_jtext_init(&t, p, 64);
    members_text(&t, g);
    return trv_jtext_done(&t, len);
}

int trv_hhotel_ids_for(trv_req *req, trv_resp *resp, const apr_array_header_t *groups,
                       const char *const **ids)
{
    apr_size_t n = (apr_size_t)groups->nelts + 1;
    const char **out = apr_pcalloc(req->pool, sizeof(char *) * n);
    const char **keys = apr_palloc(req->pool, sizeof(char *) * n);
    apr_size_t *lens = apr_palloc(req->pool, sizeof(apr_size_t) * n);
    int *asked = apr_palloc(req->pool, sizeof(int) * n);
    int *missed = apr_palloc(req->pool, sizeof(int) * n);
    int i, nasked = 0, nmissed = 0;
    trv_jtext t;
    trv_dbc *c;
    trv_rows *r;
    *ids = out;
    for (i = 0; i < groups->nelts; i++) {
        keys[i] = members_of(req->pool, APR_ARRAY_IDX(groups, i, const trv_hotel_group *),
                             &lens[i]);
        out[i] = trv_text_cache_get(req->env->hotel_ids, req->pool, keys[i], lens[i]);
        if (!out[i]) {
            asked[nasked++] = i;
        }
    }
    if (!nasked) {
        return 1;
    }
    trv_jtext_init(&t, req->pool, 64 * (apr_size_t)nasked);
    trv_jtext_arr(&t);
    for (i = 0; i < nasked && keys[asked[i]]; i++) {
        trv_jtext_raw(&t, keys[asked[i]], lens[asked[i]]);
    }
    trv_jtext_end(&t);
    if (!trv_api_db_open(req, resp, &c, 1413, "keeping hotel ids")) {
        return 0;
    }
    /* A group whose supplier ids the writer refused: no text, refused by
     * select_page as before. */
    if (!select_page(req, resp, c, &known_stmt,
                     i == nasked ? trv_jtext_done(&t, NULL) : NULL, nasked, &r)) {
        return 0;
    }
    for (i = 0; i < r->n; i++) {
        int g = asked[i];
        out[g] = trv_rows_get(r, i, "id");
        if (out[g]) {
            trv_text_cache_put(req->env->hotel_ids, keys[g], lens[g], out[g],
                               trv_text_cache_stamp(req->env->hotel_ids));
        }
        else {
            missed[nmissed++] = g;
        }
    }
    if (nmissed) {
        /* Hotels not all mapped: the function maps those (in page order,
         * as it would have in the whole page: the known ones never reach
         * its loop) with their details. Their ids are kept once a later
         * search finds them all mapped, by hotel_map_known's rule alone. */
        trv_jtext_init(&t, req->pool, 512 * (apr_size_t)nmissed);
        trv_jtext_arr(&t);
        for (i = 0; i < nmissed; i++) {
            group_text(&t, req->pool, APR_ARRAY_IDX(groups, missed[i], const trv_hotel_group *));
        }
        trv_jtext_end(&t);
        if (!select_page(req, resp, c, &map_stmt, trv_jtext_done(&t, NULL), nmissed, &r)) {
            return 0;
        }
        for (i = 0; i < nmissed; i++) {
            out[missed[i]] = trv_rows_get(r, i, "id");
        }
    }
    trv_db_close(req->env->db, c);
    return 1;
}

static const trv_stmt sellers_stmt = {"trv_hhotel_sellers",
    "SELECT hotel_id, supplier, supplier_hotel_id FROM hotel_supplier_ids "
    "WHERE hotel_id = ANY (%s::text[]) ORDER BY hotel_id, supplier"};

static const trv_stmt ids_of_stmt = {"trv_hhotel_ids_of",
    "SELECT supplier_hotel_id, hotel_id FROM hotel_supplier_ids "
    "WHERE supplier = %s AND supplier_hotel_id = ANY (%s::text[])"};

/* A text[] literal of ids made of letters, digits, - and _ only (checked
 * by the caller), so nothing needs quoting. */
static const char *id_array(apr_pool_t *p, const char *const *ids, int n)
{
    const char *s = "{";
    int i;
    for (i = 0; i < n; i++) {
        s = apr_pstrcat(p, s, i ? "," : "", ids[i], NULL);
    }
    return apr_pstrcat(p, s, "}", NULL);
}

static int select_once(trv_req *req, trv_resp *resp, const trv_stmt *st, int nargs,
                       const char *const *args, trv_rows **rows, int logno, const char *what)
{
    trv_dbc *c;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, logno, what);
        return 0;
    }
    if (trv_db_select(c, req->pool, st, rows, nargs, args) != APR_SUCCESS) {
        trv_fail_db(req, resp, c, logno, what);
        trv_db_close(req->env->db, c);
        return 0;
    }
    trv_db_close(req->env->db, c);
    return 1;
}

/* Who sells each hotel is kept per htl_ id in this process
 * (env->hotel_sellers) as "supplier US supplier_hotel_id RS ..." (ASCII
 * unit and record separators; a row holding either is not kept). Unlike
 * an id, a hotel's sellers change (a search maps another supplier's id to
 * it), so they are kept only while this process's listener hears every
 * change to hotel_supplier_ids (migration 420 notifies; the listener
 * flushes): the key cache's rule (account/key_cache.h). Why: the lookup
 * was most of PostgreSQL's CPU in a hotel offers request
 * (docs/performance.md, "The fifteenth pass"). */
#define UNIT "\x1f"
#define RECORD "\x1e"

static const char *const seller_cols[] = {"hotel_id", "supplier", "supplier_hotel_id"};

/* Keeps each hotel's rows of r (ordered by hotel_id; no column is NULL). */
static void sellers_keep(apr_pool_t *p, trv_text_cache *cache, const trv_rows *r,
                         trv_text_stamp stamp)
{
    int i = 0;
    while (i < r->n) {
        const char *id = trv_rows_get(r, i, "hotel_id"), *text = "";
        int ok = 1;
        for (; i < r->n && strcmp(trv_rows_get(r, i, "hotel_id"), id) == 0; i++) {
            const char *sup = trv_rows_get(r, i, "supplier");
            const char *sid = trv_rows_get(r, i, "supplier_hotel_id");
            ok = ok && !strpbrk(sup, UNIT RECORD) && !strpbrk(sid, UNIT RECORD);
            text = apr_pstrcat(p, text, sup, UNIT, sid, RECORD, NULL);
        }
        if (ok) {
            trv_text_cache_put(cache, id, strlen(id), text, stamp);
        }
    }
}

/* Appends hotel id's kept rows (text as sellers_keep wrote it) to cells. */
static void sellers_unpack(apr_pool_t *p, const char *id, const char *text,
                           apr_array_header_t *cells)
{
    char *s = apr_pstrdup(p, text), *end;
    while ((end = strchr(s, RECORD[0])) != NULL) {
        char *unit = memchr(s, UNIT[0], (size_t)(end - s));
        if (!unit) {
            break;
        }
        *unit = *end = '\0';
        APR_ARRAY_PUSH(cells, const char *) = id;
        APR_ARRAY_PUSH(cells, const char *) = s;
        APR_ARRAY_PUSH(cells, const char *) = unit + 1;
        s = end + 1;
    }
}

int trv_hhotel_sellers(trv_req *req, trv_resp *resp, const char *const *hotel_ids, int n,
                       trv_rows **rows)
{
    trv_text_cache *cache = trv_key_cache_trusted(req->env->key_cache)
                            ? req->env->hotel_sellers : NULL;
    trv_text_stamp stamp = trv_text_cache_stamp(cache);
    const char **kept = apr_pcalloc(req->pool, sizeof(char *) * (apr_size_t)(n + 1));
    const char **asked = apr_palloc(req->pool, sizeof(char *) * (apr_size_t)(n + 1));
    apr_array_header_t *cells;
    trv_rows *db = NULL, *out;
    int i, nasked = 0;
    for (i = 0; i < n; i++) {
        if (!(kept[i] = trv_text_cache_get(cache, req->pool, hotel_ids[i], strlen(hotel_ids[i])))) {
            asked[nasked++] = hotel_ids[i];
        }
    }
    if (nasked) {
        if (!select_once(req, resp, &sellers_stmt,
                         TRV_DB_ARGS(id_array(req->pool, asked, nasked)), &db, 1415,
                         "reading who sells the hotels")) {
            return 0;
        }
        if (cache) {
            sellers_keep(req->pool, cache, db, stamp);
        }
        if (nasked == n) {
            *rows = db;
            return 1;
        }
    }
    cells = apr_array_make(req->pool, 3 * (n + (db ? db->n : 0)), sizeof(const char *));
    for (i = 0; i < n; i++) {
        if (kept[i]) {
            sellers_unpack(req->pool, hotel_ids[i], kept[i], cells);
        }
    }
    for (i = 0; db && i < db->n; i++) {
        int k;
        for (k = 0; k < 3; k++) {
            APR_ARRAY_PUSH(cells, const char *) = trv_rows_get(db, i, seller_cols[k]);
        }
    }
    out = apr_pcalloc(req->pool, sizeof(*out));
    out->ncols = 3;
    out->names = (const char **)seller_cols;
    out->n = cells->nelts / 3;
    out->cells = (const char **)cells->elts;
    *rows = out;
    return 1;
}

int trv_hhotel_ids_of(trv_req *req, trv_resp *resp, const char *supplier,
                      const char *const *sids, int n, trv_rows **rows)
{
    return select_once(req, resp, &ids_of_stmt,
                       TRV_DB_ARGS(supplier, id_array(req->pool, sids, n)), rows, 1415,
                       "reading hotel ids");
}

void trv_hhotel_upstream_fail(trv_req *req, trv_resp *resp, trv_up_status st,
                              const char *who, const char *message)
{
    trv_fail_supplier(req, resp, st, 1414, "hotel ", trv_config_hotel_upstream(req->env->cfg, who),
                      who, message);
}
