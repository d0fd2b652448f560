/* Failures on demand, shared by the simulated APIs and the webhook inbox
 * (see faults.h), and the control endpoint of the APIs' faults:
 *
 *   POST   /sandbox/faults                         a fault for the next requests
 *   GET    /sandbox/faults[?request_id_prefix=]    faults with what is left of them
 *   DELETE /sandbox/faults?request_id_prefix=      deletes that scope's faults
 *
 * An API fault is scoped by a prefix of the x-request-id the caller sends
 * (mod_travel passes its own request's id on to every supplier call, its
 * background jobs included), so tests running side by side never take each
 * other's faults. */
#include "faults.h"
#include "changes.h"
#include "sbx_api.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

#define FAULT_COLS "id, target, scope, method, path, action, status, code, message, " \
    "retry_after, headers::text AS headers, delay_ms, remaining, hits, " \
    "per_second, trv_ts(created_at) AS created_at"

/* Which fault a request takes, in one statement (one round trip for every
 * API request the sandbox serves; two statements were two of the dozen a
 * hotel search cost PostgreSQL, docs/performance.md):
 *   r: a rate fault (per_second) counts every matching request in the
 *      second it comes in and applies past the count; the row's lock
 *      orders the counts of concurrent requests;
 *   t: unless r fires, the first other fault that matches is taken (its
 *      remaining count spent, checked again on the row: a concurrent taker
 *      may have spent it).
 * The two touch different rows (per_second set or not). A last row,
 * action 'none', says that the target has no fault left at all, so the
 * caller may stop asking until the faults change (changes.h). */
static const trv_stmt take_stmt = {"sbx_fault_take",
    "WITH r AS (UPDATE sandbox.faults f SET "
    "win_calls = CASE WHEN f.win = s.sec THEN f.win_calls + 1 ELSE 1 END, win = s.sec, "
    "hits = f.hits + CASE WHEN (CASE WHEN f.win = s.sec THEN f.win_calls + 1 ELSE 1 END) "
    "> f.per_second THEN 1 ELSE 0 END "
    "FROM (SELECT floor(extract(epoch FROM clock_timestamp()))::bigint AS sec) s "
    "WHERE f.id = (SELECT g.id FROM sandbox.faults g WHERE g.target = %s "
    "AND g.per_second IS NOT NULL AND (g.scope = '*' OR starts_with(%s::text, g.scope)) "
    "AND (g.method IS NULL OR g.method = %s::text) "
    "AND (g.path_like IS NULL OR %s::text LIKE g.path_like) ORDER BY g.id LIMIT 1) "
    "RETURNING f.win_calls > f.per_second AS fire, f.action, f.status, f.code, f.message, "
    "f.retry_after, f.headers::text AS headers, f.delay_ms), "
    "t AS (UPDATE sandbox.faults f SET remaining = f.remaining - 1, hits = f.hits + 1 "
    "WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.fire) "
    "AND f.id = (SELECT g.id FROM sandbox.faults g WHERE g.target = %s "
    "AND CASE WHEN g.exact THEN g.scope = %s::text ELSE starts_with(%s::text, g.scope) END "
    "AND (g.method IS NULL OR g.method = %s::text) "
    "AND (g.path_like IS NULL OR %s::text LIKE g.path_like) "
    "AND (g.remaining IS NULL OR g.remaining > 0) AND g.per_second IS NULL "
    "ORDER BY g.id LIMIT 1) "
    "AND (f.remaining IS NULL OR f.remaining > 0) "
    "RETURNING f.action, f.status, f.code, f.message, f.retry_after, "
    "f.headers::text AS headers, f.delay_ms) "
    "SELECT action, status, code, message, retry_after, headers, delay_ms FROM r WHERE fire "
    "UNION ALL SELECT action, status, code, message, retry_after, headers, delay_ms FROM t "
    "UNION ALL SELECT 'none', NULL::int, NULL, NULL, NULL, NULL, NULL::int WHERE NOT EXISTS "
    "(SELECT 1 FROM sandbox.faults g WHERE g.target = %s "
    "AND (g.remaining IS NULL OR g.remaining > 0))"};

static const trv_stmt add_stmt = {"sbx_fault_add",
    "INSERT INTO sandbox.faults (target, scope, exact, method, path, path_like, action, "
    "status, code, message, retry_after, headers, delay_ms, remaining, per_second) VALUES (%s, "
    "%s, %s::boolean, %s, %s, %s, %s, %s::int, %s, %s, %s, %s::jsonb, %s::int, %s::int, "
    "%s::int) "
    "ON CONFLICT (scope) WHERE target = 'inbox' DO UPDATE SET method = EXCLUDED.method, "
    "path = EXCLUDED.path, path_like = EXCLUDED.path_like, action = EXCLUDED.action, "
    "status = EXCLUDED.status, code = EXCLUDED.code, message = EXCLUDED.message, "
    "retry_after = EXCLUDED.retry_after, headers = EXCLUDED.headers, "
    "delay_ms = EXCLUDED.delay_ms, "
    "remaining = EXCLUDED.remaining, per_second = EXCLUDED.per_second, hits = 0, "
    "created_at = clock_timestamp() "
    "RETURNING " FAULT_COLS};

/* Spent faults stay readable for an hour (a test checks what was taken). */
static const trv_stmt prune_stmt = {"sbx_fault_prune",
    "DELETE FROM sandbox.faults WHERE remaining = 0 "
    "AND created_at < clock_timestamp() - interval '1 hour'"};

static const trv_stmt list_stmt = {"sbx_fault_list",
    "SELECT " FAULT_COLS " FROM sandbox.faults WHERE target <> 'inbox' "
    "AND (%s::text IS NULL OR scope = %s::text) ORDER BY id LIMIT 1000"};

static const trv_stmt clear_stmt = {"sbx_fault_clear",
    "DELETE FROM sandbox.faults WHERE "
    "CASE WHEN %s::text IS NULL THEN target <> 'inbox' ELSE target = %s::text END "
    "AND scope = %s::text"};

static const char *const actions[] = {"respond", "error", "garbage", "drop",
                                      "drop_after_handling", NULL};

static int one_of(const char *s, const char *const *list)
{
    for (; *list; list++) {
        if (strcmp(s, *list) == 0) {
            return 1;
        }
    }
    return 0;
}

static const char *opt_text(const json_t *b, const char *field, size_t max, trv_errs *errs)
{
    const json_t *v = json_object_get(b, field);
    if (!v || json_is_null(v)) {
        return NULL;
    }
    if (!json_is_string(v) || !trv_printable(json_string_value(v), 1, max)) {
        trv_errs_add(errs, field, "must be 1 to %d printable characters", (int)max);
        return NULL;
    }
    return json_string_value(v);
}

/* A header name: 1 to 64 letters, digits or '-'. */
static int header_name_ok(const char *s)
{
    size_t n = strlen(s), i;
    for (i = 0; i < n; i++) {
        if (!apr_isalnum(s[i]) && s[i] != '-') {
            return 0;
        }
    }
    return n >= 1 && n <= 64;
}

/* headers: {name: value}, at most 10, values 1..200 printable characters. */
static json_t *parse_headers(apr_pool_t *p, const json_t *h, trv_errs *errs)
{
    const char *name;
    json_t *v;
    if (!h || json_is_null(h)) {
        return NULL;
    }
    if (!json_is_object(h) || json_object_size(h) > 10) {
        trv_errs_add(errs, "headers", "must be an object of at most 10 header names and "
                     "their values, e.g. {\"ratelimit-remaining\": \"0\"}");
        return NULL;
    }
    json_object_foreach((json_t *)h, name, v) {
        if (!header_name_ok(name)) {
            trv_errs_add(errs, apr_psprintf(p, "headers.%s", name),
                         "is not a header name (letters, digits and -)");
        }
        else if (!json_is_string(v) || !trv_printable(json_string_value(v), 1, 200)) {
            trv_errs_add(errs, apr_psprintf(p, "headers.%s", name),
                         "must be 1 to 200 printable characters");
        }
    }
    return trv_json_bind(p, json_deep_copy(h));
}

void sbx_fault_parse(apr_pool_t *p, const json_t *b, sbx_fault_rule *rule, trv_errs *errs)
{
    sbx_fault *f = &rule->fault;
    const json_t *st = json_object_get(b, "status"), *ra = json_object_get(b, "retry_after");
    const json_t *dl = json_object_get(b, "delay_ms"), *times = json_object_get(b, "times");
    const json_t *ps = json_object_get(b, "per_second");
    const char *action = opt_text(b, "action", 20, errs);

    memset(f, 0, sizeof(*f));
    rule->times = -1;
    if (st && !json_is_null(st)) {
        if (!json_is_integer(st) || json_integer_value(st) < 100
            || json_integer_value(st) > 599) {
            trv_errs_add(errs, "status", "must be an integer from 100 to 599");
        }
        else {
            f->status = (int)json_integer_value(st);
        }
    }
    if (action && !one_of(action, actions)) {
        trv_errs_add(errs, "action", "must be respond, error, garbage, drop or "
                     "drop_after_handling");
        action = NULL;
    }
    /* Without an action a status says it: an error status answers an error. */
    f->action = action ? action : f->status >= 400 ? "error" : "respond";
    f->code = opt_text(b, "code", 100, errs);
    f->message = opt_text(b, "message", 500, errs);
    if (ra && !json_is_null(ra)) {
        if (json_is_integer(ra) && json_integer_value(ra) >= 0) {
            f->retry_after = apr_psprintf(p, "%" APR_INT64_T_FMT,
                                          (apr_int64_t)json_integer_value(ra));
        }
        else if (json_is_string(ra) && trv_printable(json_string_value(ra), 1, 100)) {
            f->retry_after = json_string_value(ra);
        }
        else {
            trv_errs_add(errs, "retry_after", "must be a non-negative integer or a string");
        }
    }
    if (dl && (!json_is_integer(dl) || json_integer_value(dl) < 0
               || json_integer_value(dl) > 120000)) {
        trv_errs_add(errs, "delay_ms", "must be an integer from 0 to 120000");
    }
    else if (dl) {
        f->delay_ms = (int)json_integer_value(dl);
    }
    f->headers = parse_headers(p, json_object_get(b, "headers"), errs);
    if (times && json_is_null(times)) {
        rule->times = 0;
    }
    else if (times) {
        if (!json_is_integer(times) || json_integer_value(times) < 1
            || json_integer_value(times) > 1000000) {
            trv_errs_add(errs, "times", "must be an integer from 1 to 1000000, or null "
                         "(every request until deleted)");
        }
        else {
            rule->times = (long)json_integer_value(times);
        }
    }
    rule->per_second = 0;
    if (ps && !json_is_null(ps)) {
        if (!json_is_integer(ps) || json_integer_value(ps) < 1
            || json_integer_value(ps) > 100000) {
            trv_errs_add(errs, "per_second", "must be an integer from 1 to 100000: the "
                         "requests a second that go on as usual before the fault applies");
        }
        else if (times && !json_is_null(times)) {
            trv_errs_add(errs, "times", "must be absent or null with per_second (the fault "
                         "applies past the rate until deleted)");
        }
        else {
            rule->per_second = (long)json_integer_value(ps);
            rule->times = 0;
        }
    }
    if (strcmp(f->action, "error") == 0 && (f->status < 400 || f->status > 599)) {
        trv_errs_add(errs, "status", "is required with action error: 400 to 599");
    }
    if (strncmp(f->action, "drop", 4) == 0 && f->status) {
        trv_errs_add(errs, "status", "must be absent with a drop (nothing is answered)");
    }
    if (strncmp(f->action, "drop", 4) == 0 && f->headers) {
        trv_errs_add(errs, "headers", "must be absent with a drop (nothing is answered)");
    }
    if (strcmp(f->action, "error") != 0 && (f->code || f->message)) {
        trv_errs_add(errs, f->code ? "code" : "message", "is only for action error");
    }
}

/* '*' matches any characters; everything else literally. */
static const char *like_pattern(apr_pool_t *p, const char *path)
{
    char *out = apr_palloc(p, strlen(path) * 2 + 1), *o = out;
    for (; *path; path++) {
        if (*path == '*') {
            *o++ = '%';
            continue;
        }
        if (*path == '%' || *path == '_' || *path == '\\') {
            *o++ = '\\';
        }
        *o++ = *path;
    }
    *o = '\0';
    return out;
}

static json_t *fault_json(const trv_rows *rows, int i)
{
    const char *ra = trv_rows_get(rows, i, "retry_after");
    const char *rem = trv_rows_get(rows, i, "remaining");
    const char *hd = trv_rows_get(rows, i, "headers");
    json_t *headers = hd ? json_loads(hd, 0, NULL) : NULL;
    const char *ps = trv_rows_get(rows, i, "per_second");
    return json_pack("{s:I,s:s,s:s,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:i,s:o,s:i,s:s,s:o}",
        "id", (json_int_t)apr_atoi64(trv_rows_get(rows, i, "id")),
        "api", trv_rows_get(rows, i, "target"),
        "request_id_prefix", trv_rows_get(rows, i, "scope"),
        "method", trv_json_strn(trv_rows_get(rows, i, "method")),
        "path", trv_json_strn(trv_rows_get(rows, i, "path")),
        "action", trv_rows_get(rows, i, "action"),
        "status", trv_rows_get(rows, i, "status")
                      ? json_integer(trv_rows_int(rows, i, "status", 0)) : json_null(),
        "code", trv_json_strn(trv_rows_get(rows, i, "code")),
        "message", trv_json_strn(trv_rows_get(rows, i, "message")),
        "retry_after", trv_json_strn(ra),
        "headers", headers ? headers : json_null(),
        "delay_ms", trv_rows_int(rows, i, "delay_ms", 0),
        "remaining", rem ? json_integer(trv_rows_int(rows, i, "remaining", 0)) : json_null(),
        "hits", trv_rows_int(rows, i, "hits", 0),
        "created_at", trv_rows_get(rows, i, "created_at"),
        "per_second", ps ? json_integer(trv_rows_int(rows, i, "per_second", 0)) : json_null());
}

apr_status_t sbx_fault_add(trv_dbc *c, apr_pool_t *p, const sbx_fault_rule *rule,
                           json_t **row)
{
    const sbx_fault *f = &rule->fault;
    trv_rows *rows;
    apr_status_t rv = trv_db_exec(c, p, &prune_stmt, NULL, 0, NULL);
    if (rv == APR_SUCCESS) {
        rv = trv_db_select(c, p, &add_stmt, &rows, TRV_DB_ARGS(
            rule->target, rule->scope, rule->exact ? "true" : "false", rule->method,
            rule->path, rule->path ? like_pattern(p, rule->path) : NULL, f->action,
            f->status ? apr_itoa(p, f->status) : NULL, f->code, f->message, f->retry_after,
            f->headers ? trv_json_dump(p, f->headers) : NULL, apr_itoa(p, f->delay_ms),
            rule->times > 0 ? apr_ltoa(p, rule->times) : NULL,
            rule->per_second > 0 ? apr_ltoa(p, rule->per_second) : NULL));
    }
    *row = NULL;
    if (rv == APR_SUCCESS && rows->n == 1) {
        sbx_changes_made();
        *row = trv_json_bind(p, fault_json(rows, 0));
    }
    return rv;
}

apr_status_t sbx_fault_take(trv_dbc *c, apr_pool_t *p, const char *target, const char *key,
                            const char *method, const char *path, sbx_fault **out, int *none)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, &take_stmt, &rows,
                                    TRV_DB_ARGS(target, key, method, path, target, key, key,
                                                method, path, target));
    sbx_fault *f;
    *out = NULL;
    if (none) {
        *none = 0;
    }
    if (rv != APR_SUCCESS || rows->n == 0) {
        return rv;
    }
    if (strcmp(trv_rows_get(rows, 0, "action"), "none") == 0) {
        if (none) {
            *none = 1;
        }
        return APR_SUCCESS;
    }
    f = apr_pcalloc(p, sizeof(*f));
    f->action = trv_rows_get(rows, 0, "action");
    f->status = trv_rows_int(rows, 0, "status", 0);
    f->code = trv_rows_get(rows, 0, "code");
    f->message = trv_rows_get(rows, 0, "message");
    f->retry_after = trv_rows_get(rows, 0, "retry_after");
    if (trv_rows_get(rows, 0, "headers")) {
        f->headers = trv_json_bind(p, json_loads(trv_rows_get(rows, 0, "headers"), 0, NULL));
    }
    f->delay_ms = trv_rows_int(rows, 0, "delay_ms", 0);
    *out = f;
    return APR_SUCCESS;
}

apr_status_t sbx_fault_clear(trv_dbc *c, apr_pool_t *p, const char *target, const char *scope,
                             int *n)
{
    return trv_db_exec(c, p, &clear_stmt, n, TRV_DB_ARGS(target, target, scope));
}

void sbx_fault_wait(const trv_req *req, trv_resp *resp, const sbx_fault *f)
{
    if (f->delay_ms > 0) {
        sbx_sleep(req, apr_time_from_msec(f->delay_ms));
    }
    if (f->retry_after) {
        apr_table_setn(resp->headers, "Retry-After", f->retry_after);
    }
    if (f->headers) {
        const char *name;
        json_t *v;
        json_object_foreach(f->headers, name, v) {
            apr_table_set(resp->headers, name, json_string_value(v));
        }
    }
}

sbx_fault_outcome sbx_api_fault(trv_req *req, trv_resp *resp)
{
    /* Per API (sbx_api_of's order): it had no fault at that version. */
    static sbx_none_memo none_at[SBX_APIS];
    int which = 0, none = 0;
    const char *rest, *api = sbx_api_of(req->path, &rest, &which);
    apr_uint32_t v = sbx_changes_now();
    trv_dbc *c;
    sbx_fault *f = NULL;

    if (!api || sbx_changes_none(&none_at[which], v)) {
        return SBX_FAULT_NONE;
    }
    /* Failing to read the faults must not fail the API itself. */
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(1200) "sandbox faults unreadable: " TRV_DB_UNAVAILABLE);
        return SBX_FAULT_NONE;
    }
    if (sbx_fault_take(c, req->pool, api, req->request_id, req->method, rest, &f, &none)
        != APR_SUCCESS) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(1201) "sandbox faults unreadable: %s",
                    c->error ? c->error : "failed");
    }
    trv_db_close(req->env->db, c);
    if (none) {
        sbx_changes_note_none(&none_at[which], v);
    }
    if (!f) {
        return SBX_FAULT_NONE;
    }
    trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                TRVLOGNO(1202) "sandbox fault: %s %s %s: %s %d after %d ms", api,
                req->method, rest, f->action, f->status, f->delay_ms);
    sbx_fault_wait(req, resp, f);
    if (strcmp(f->action, "error") == 0) {
        sbx_error(req, resp, f->status, f->code ? f->code : "sandbox_fault", "%s",
                  f->message ? f->message
                             : "The sandbox was told to fail this request (POST /sandbox/faults)");
        return SBX_FAULT_ANSWERED;
    }
    if (strcmp(f->action, "garbage") == 0) {
        resp->status = f->status ? f->status : 200;
        return SBX_FAULT_GARBAGE;
    }
    if (strcmp(f->action, "drop_after_handling") == 0) {
        return SBX_FAULT_DROP_AFTER;
    }
    return strcmp(f->action, "drop") == 0 ? SBX_FAULT_DROP : SBX_FAULT_NONE;
}

/* ---- the control endpoint ---- */

static void db_fail(trv_req *req, trv_resp *resp, trv_dbc *c, int logno)
{
    trv_fail_db(req, resp, c, logno, "sandbox faults");
    if (c) {
        trv_db_close(req->env->db, c);
    }
}

static void create_fault(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"api", "request_id_prefix", "method", "path",
                                        "action", "status", "code", "message",
                                        "retry_after", "headers", "delay_ms", "times",
                                        "per_second", NULL};
    static const char *const apis[] = {"supplier_a", "supplier_b", "payments", "hotel_a",
                                       "hotel_b", "hotel_c", NULL};
    static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const json_t *b = req->json;
    sbx_fault_rule rule;
    trv_dbc *c;
    json_t *row;

    if (!json_is_object(b)) {
        trv_errs_add(errs, "body", "is required: {api, request_id_prefix, action, ...}");
        trv_fail_invalid(req, resp, errs);
        return;
    }
    memset(&rule, 0, sizeof(rule));
    trv_json_known(b, NULL, known, errs);
    rule.target = trv_json_req_str(b, "api", "api", 1, 1, 20, errs);
    if (rule.target && !one_of(rule.target, apis)) {
        trv_errs_add(errs, "api", "must be supplier_a, supplier_b, payments, hotel_a, "
                                  "hotel_b or hotel_c");
    }
    rule.scope = trv_json_req_str(b, "request_id_prefix", "request_id_prefix", 1, 1, 200,
                                  errs);
    if (rule.scope && !trv_printable(rule.scope, 1, 200)) {
        trv_errs_add(errs, "request_id_prefix", "must be printable ASCII");
    }
    rule.method = opt_text(b, "method", 10, errs);
    if (rule.method && !one_of(rule.method, methods)) {
        trv_errs_add(errs, "method", "must be GET, POST, PUT, PATCH or DELETE");
    }
    rule.path = opt_text(b, "path", 500, errs);
    if (rule.path && rule.path[0] != '/') {
        trv_errs_add(errs, "path", "must start with / (the path under the API's base, "
                     "e.g. /air/orders or /v1/authorizations/*/capture)");
    }
    sbx_fault_parse(req->pool, b, &rule, errs);
    if (rule.scope && strcmp(rule.scope, "*") == 0 && rule.per_second <= 0) {
        trv_errs_add(errs, "request_id_prefix", "* (every request) is only for a rate fault "
                     "(per_second)");
    }
    if (strcmp(rule.fault.action, "respond") == 0) {
        if (rule.fault.status) {
            trv_errs_add(errs, "status", "must be absent with action respond (the API "
                         "answers as usual)");
        }
        if (rule.fault.delay_ms == 0 && !rule.fault.headers) {
            trv_errs_add(errs, "delay_ms", "is required with action respond (the answer "
                         "is held back this long) unless headers are given");
        }
    }
    if (rule.times < 0) {
        rule.times = 1;
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_fail(req, resp, NULL, 1203);
        return;
    }
    if (sbx_fault_add(c, req->pool, &rule, &row) != APR_SUCCESS || !row) {
        db_fail(req, resp, c, 1204);
        return;
    }
    trv_db_close(req->env->db, c);
    trv_ok(req, resp, 201, json_incref(row), NULL);
}

static void list_faults(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"request_id_prefix", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *scope = trv_query_str(req->query, "request_id_prefix", 1, 200, errs);
    trv_dbc *c;
    trv_rows *rows;
    json_t *data;
    int i;

    trv_query_known(req->query, known, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_fail(req, resp, NULL, 1205);
        return;
    }
    if (trv_db_select(c, req->pool, &list_stmt, &rows, TRV_DB_ARGS(scope, scope))
        != APR_SUCCESS) {
        db_fail(req, resp, c, 1206);
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    for (i = 0; i < rows->n; i++) {
        json_array_append_new(data, fault_json(rows, i));
    }
    trv_ok(req, resp, 200, data, NULL);
}

static void delete_faults(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"request_id_prefix", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *scope = trv_query_str(req->query, "request_id_prefix", 1, 200, errs);
    trv_dbc *c;
    int n = 0;

    trv_query_known(req->query, known, errs);
    if (!scope && !trv_errs_any(errs)) {
        trv_errs_add(errs, "request_id_prefix", "is required: the scope whose faults go");
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_fail(req, resp, NULL, 1207);
        return;
    }
    if (sbx_fault_clear(c, req->pool, NULL, scope, &n) != APR_SUCCESS) {
        db_fail(req, resp, c, 1208);
        return;
    }
    trv_db_close(req->env->db, c);
    trv_ok(req, resp, 200, json_pack("{s:s,s:i}", "request_id_prefix", scope, "deleted", n),
           NULL);
}

const trv_route sbx_fault_routes[] = {
    {"POST", "/sandbox/faults", create_fault, TRV_ROUTE_PUBLIC},
    {"GET", "/sandbox/faults", list_faults, TRV_ROUTE_PUBLIC | TRV_ROUTE_OWN_QUERY},
    {"DELETE", "/sandbox/faults", delete_faults, TRV_ROUTE_PUBLIC | TRV_ROUTE_OWN_QUERY},
    {NULL, NULL, NULL, 0},
};
