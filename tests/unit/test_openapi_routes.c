/* docs/openapi.yaml cannot drift from the router: every route the gateway
 * registers is an operation of the spec, under the same path with the
 * same method, declaring each path parameter with the router's own rule
 * (an id prefix: ^<prefix>_[a-zA-Z0-9-]+$ and at most 128 characters;
 * iata: two letters or digits; none: 1 to 512 characters); and the spec
 * has no operation the router lacks. The checker is also shown to catch
 * each kind of drift on purpose-made mistakes.
 *
 * The spec is read with libyaml into Jansson values (mappings, sequences,
 * scalars as strings), from docs/openapi.yaml relative to the working
 * directory (the checkout's root, as `make test` runs it) or $TRAVEL_OPENAPI. */
#include "unit.h"

#include <apr_strings.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "core/json.h"
#include "core/router.h"
#include "gateway/gateway.h"

#include "problems.h"
#include "yaml_json.h"

/* ---- the checker ---- */

static char *lower(apr_pool_t *p, const char *s)
{
    char *out = apr_pstrdup(p, s), *c;
    for (c = out; *c; c++) {
        *c = (char)tolower((unsigned char)*c);
    }
    return out;
}

/* "/v1/x/{id:bkg}/y" -> "/v1/x/{id}/y"; kinds[name] = "bkg" ("" when none). */
static const char *spec_path(apr_pool_t *p, const char *pattern, apr_table_t *kinds)
{
    char *out = apr_palloc(p, strlen(pattern) + 1), *o = out;
    const char *s = pattern;
    while (*s) {
        if (*s == '{') {
            const char *end = strchr(s, '}'), *colon = memchr(s, ':', (size_t)(end - s));
            const char *name_end = colon ? colon : end;
            apr_table_set(kinds, apr_pstrndup(p, s + 1, (size_t)(name_end - s - 1)),
                          colon ? apr_pstrndup(p, colon + 1, (size_t)(end - colon - 1)) : "");
            *o++ = '{';
            memcpy(o, s + 1, (size_t)(name_end - s - 1));
            o += name_end - s - 1;
            *o++ = '}';
            s = end + 1;
        }
        else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

/* A "#/components/..." reference followed to its object. */
static const json_t *deref(const json_t *spec, const json_t *v)
{
    const char *ref;
    int hops = 0;
    while (json_is_object(v) && (ref = json_string_value(json_object_get(v, "$ref")))
           && strncmp(ref, "#/", 2) == 0 && hops++ < 8) {
        char buf[512], *tok, *last;
        const json_t *at = spec;
        snprintf(buf, sizeof(buf), "%s", ref + 2);
        for (tok = strtok_r(buf, "/", &last); tok && at; tok = strtok_r(NULL, "/", &last)) {
            at = json_object_get(at, tok);
        }
        v = at;
    }
    return v;
}

static const char *str_at(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* The operation's path parameter `name` against the router's rule. */
static void check_param(apr_pool_t *p, const json_t *spec, const json_t *path_item,
                        const json_t *op, const char *where, const char *name,
                        const char *kind, problems *pr)
{
    const json_t *lists[2] = {json_object_get(path_item, "parameters"),
                              json_object_get(op, "parameters")};
    const json_t *param = NULL, *schema;
    size_t i, k;
    for (k = 0; k < 2; k++) {
        for (i = 0; i < json_array_size(lists[k]); i++) {
            const json_t *x = deref(spec, json_array_get(lists[k], i));
            if (same(str_at(x, "in"), "path") && same(str_at(x, "name"), name)) {
                param = x;
            }
        }
    }
    if (!param) {
        problem(pr, "%s: path parameter %s is not declared", where, name);
        return;
    }
    if (!same(str_at(param, "required"), "true")) {
        problem(pr, "%s: path parameter %s is not required: true", where, name);
    }
    schema = deref(spec, json_object_get(param, "schema"));
    if (!*kind) {
        if (!same(str_at(schema, "minLength"), "1") || !same(str_at(schema, "maxLength"), "512")) {
            problem(pr, "%s: path parameter %s must say minLength 1, maxLength 512 "
                    "(the router's rule for a parameter without a kind)", where, name);
        }
    }
    else if (strcmp(kind, "iata") == 0) {
        if (!same(str_at(schema, "pattern"), "^[A-Za-z0-9]{2}$")) {
            problem(pr, "%s: path parameter %s must have pattern ^[A-Za-z0-9]{2}$", where,
                    name);
        }
    }
    else {
        const char *want = apr_psprintf(p, "^%s_[a-zA-Z0-9-]+$", kind);
        if (!same(str_at(schema, "pattern"), want)
            || !same(str_at(schema, "maxLength"), "128")) {
            problem(pr, "%s: path parameter %s must have pattern %s and maxLength 128",
                    where, name, want);
        }
    }
}

static const char *const methods[] = {"get", "put", "post", "delete", "options", "head",
                                      "patch", "trace", NULL};

/* Every problem between the spec and the router, into pr. */
static void check(apr_pool_t *p, const json_t *spec, const trv_router *rt, problems *pr)
{
    const json_t *paths = json_object_get(spec, "paths");
    apr_table_t *routed = apr_table_make(p, 64);
    const char *key;
    json_t *item;
    int i;

    if (!json_is_object(paths)) {
        problem(pr, "the spec has no paths");
        return;
    }
    for (i = 0; i < trv_router_count(rt); i++) {
        const trv_route *r = trv_router_at(rt, i);
        apr_table_t *kinds = apr_table_make(p, 4);
        const char *path = spec_path(p, r->pattern, kinds);
        const char *where = apr_psprintf(p, "%s %s", r->method, path);
        const json_t *pi = json_object_get(paths, path);
        const json_t *op = json_object_get(pi, lower(p, r->method));
        const apr_array_header_t *kv = apr_table_elts(kinds);
        int k;
        apr_table_setn(routed, where, "1");
        if (!json_is_object(op)) {
            problem(pr, "%s is routed but not in docs/openapi.yaml", where);
            continue;
        }
        for (k = 0; k < kv->nelts; k++) {
            const apr_table_entry_t *e = &APR_ARRAY_IDX(kv, k, apr_table_entry_t);
            check_param(p, spec, pi, op, where, e->key, e->val, pr);
        }
    }
    json_object_foreach((json_t *)paths, key, item) {
        const char *const *m;
        for (m = methods; *m; m++) {
            char *up = apr_pstrdup(p, *m), *c;
            const char *where;
            for (c = up; *c; c++) {
                *c = (char)toupper((unsigned char)*c);
            }
            where = apr_psprintf(p, "%s %s", up, key);
            if (json_object_get(item, *m) && !apr_table_get(routed, where)) {
                problem(pr, "%s is in docs/openapi.yaml but no route answers it", where);
            }
        }
    }
}

/* ---- tests ---- */

typedef struct fixture {
    apr_pool_t *pool;
    json_t *spec;
    trv_gateway *gw;
    problems pr;
} fixture;

static int setup(void **state)
{
    fixture *f;
    apr_pool_t *p;
    const char *path = getenv("TRAVEL_OPENAPI"), *err = NULL;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        return -1;
    }
    f = apr_pcalloc(p, sizeof(*f));
    f->pool = p;
    if (!path) {
        path = "docs/openapi.yaml";
    }
    f->spec = load_yaml(path, &err);
    if (!f->spec) {
        print_error("%s: %s (run from the checkout's root, or set TRAVEL_OPENAPI)\n", path,
                    err ? err : "unreadable");
        apr_pool_destroy(p);
        return -1;
    }
    f->gw = trv_gateway_create(p);
    f->pr.pool = p;
    f->pr.list = apr_array_make(p, 8, sizeof(const char *));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    json_decref(f->spec);
    apr_pool_destroy(f->pool);
    return 0;
}

static void print_problems(const problems *pr)
{
    int i;
    for (i = 0; i < pr->list->nelts; i++) {
        print_message("      %s\n", APR_ARRAY_IDX(pr->list, i, const char *));
    }
}

static void spec_matches_the_router(void **state)
{
    fixture *f = *state;
    const trv_router *rt = trv_gateway_router(f->gw);
    /* Not vacuous: both webhook families and the flight endpoints are routed. */
    assert_true(trv_router_count(rt) >= 28);
    check(f->pool, f->spec, rt, &f->pr);
    print_problems(&f->pr);
    assert_int_equal(f->pr.list->nelts, 0);
}

static void h_none(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }

static void an_undocumented_route_is_caught(void **state)
{
    fixture *f = *state;
    static const trv_route extra[] = {
        {"GET", "/v1/flight/bookings/{id:bkg}/receipt", h_none, 0},
        {"PUT", "/v1/flight/airlines/{iata_code:iata}", h_none, 0},
        {NULL, NULL, NULL, 0},
    };
    trv_router *rt = trv_router_make(f->pool);
    int i;
    for (i = 0; i < trv_router_count(trv_gateway_router(f->gw)); i++) {
        trv_route one[2] = {*trv_router_at(trv_gateway_router(f->gw), i),
                            {NULL, NULL, NULL, 0}};
        trv_route *copy = apr_pmemdup(f->pool, one, sizeof(one));
        trv_router_add(rt, copy);
    }
    trv_router_add(rt, extra);
    check(f->pool, f->spec, rt, &f->pr);
    assert_int_equal(f->pr.list->nelts, 2);
    assert_true(has_problem(&f->pr, "GET /v1/flight/bookings/{id}/receipt is routed"));
    assert_true(has_problem(&f->pr, "PUT /v1/flight/airlines/{iata_code} is routed"));
}

static void an_operation_without_a_route_is_caught(void **state)
{
    fixture *f = *state;
    json_t *paths = json_object_get(f->spec, "paths");
    json_object_set_new(paths, "/v1/flight/bookings/{id}/refunds",
                        json_pack("{s:{s:s}}", "get", "summary", "not routed"));
    json_object_set_new(json_object_get(paths, "/v1/flight/airlines"), "post",
                        json_pack("{s:s}", "summary", "not routed"));
    check(f->pool, f->spec, trv_gateway_router(f->gw), &f->pr);
    assert_int_equal(f->pr.list->nelts, 2);
    assert_true(has_problem(&f->pr, "GET /v1/flight/bookings/{id}/refunds is in"));
    assert_true(has_problem(&f->pr, "POST /v1/flight/airlines is in"));
}

static void a_wrong_parameter_rule_is_caught(void **state)
{
    fixture *f = *state;
    json_t *params = json_object_get(f->spec, "components");
    json_t *paths = json_object_get(f->spec, "paths");
    json_t *bags = json_object_get(json_object_get(paths,
                                   "/v1/flight/offers/{offer_reference}/bags"), "get");
    json_t *airline = json_object_get(json_object_get(paths,
                                      "/v1/flight/airlines/{iata_code}"), "get");
    params = json_object_get(params, "parameters");
    /* The delivery id's prefix, the bags parameter's length, the IATA
     * pattern, and a parameter that is not declared at all. */
    json_object_set_new(json_object_get(json_object_get(params, "DeliveryId"), "schema"),
                        "pattern", json_string("^dlv_[a-z]+$"));
    json_object_set_new(json_object_get(json_array_get(json_object_get(bags, "parameters"),
                                                       0), "schema"),
                        "maxLength", json_string("600"));
    json_object_set_new(json_object_get(json_array_get(json_object_get(airline, "parameters"),
                                                       0), "schema"),
                        "pattern", json_string("^[A-Z]{2}$"));
    json_object_set_new(json_object_get(json_object_get(paths,
                            "/v1/hotel/webhook-subscriptions/{id}"), "delete"),
                        "parameters", json_array());
    check(f->pool, f->spec, trv_gateway_router(f->gw), &f->pr);
    /* Four routes use the delivery id (two families x read, replay). */
    assert_int_equal(f->pr.list->nelts, 4 + 1 + 1 + 1);
    assert_true(has_problem(&f->pr, "delivery_id must have pattern ^dlv_[a-zA-Z0-9-]+$"));
    assert_true(has_problem(&f->pr, "offer_reference must say minLength 1, maxLength 512"));
    assert_true(has_problem(&f->pr, "iata_code must have pattern ^[A-Za-z0-9]{2}$"));
    assert_true(has_problem(&f->pr,
                            "DELETE /v1/hotel/webhook-subscriptions/{id}: path parameter id "
                            "is not declared"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(spec_matches_the_router, setup, teardown),
        cmocka_unit_test_setup_teardown(an_undocumented_route_is_caught, setup, teardown),
        cmocka_unit_test_setup_teardown(an_operation_without_a_route_is_caught, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_wrong_parameter_rule_is_caught, setup, teardown),
    };
    return UNIT_RUN(tests);
}
