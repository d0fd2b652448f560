/* Routing: a method and path reach exactly one handler with its path
 * parameters; unknown paths (also with a trailing or doubled slash) are 404,
 * a known path with another method is 405 with the Allow list (HEAD where
 * GET is), a parameter breaking its kind's rule is a 422 detail on its name,
 * and a more literal pattern wins over a parameter in the same place. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/json.h"
#include "core/router.h"

static void h_list(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_create(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_get(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_cancel(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_export(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_post_cancel(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_airport(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_search(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_pair(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }
static void h_root(trv_req *req, trv_resp *resp) { (void)req; (void)resp; }

static const trv_route routes[] = {
    {"GET", "/v1/flight/bookings", h_list, 0},
    {"POST", "/v1/flight/bookings", h_create, 0},
    {"GET", "/v1/flight/bookings/{id:bkg}", h_get, 0},
    {"DELETE", "/v1/flight/bookings/{id:bkg}", h_cancel, 0},
    {"POST", "/v1/flight/bookings/{id:bkg}/cancel", h_post_cancel, 0},
    {"GET", "/v1/airports/{code:iata}", h_airport, TRV_ROUTE_PUBLIC},
    {"GET", "/v1/search/{term}", h_search, 0},
    {"GET", "/v1/pairs/{from:iata}/{to:iata}", h_pair, 0},
    {"GET", "/", h_root, TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0}
};

/* Registered after the parameter route on purpose: order must not matter. */
static const trv_route later_routes[] = {
    {"GET", "/v1/flight/bookings/export", h_export, 0},
    {NULL, NULL, NULL, 0}
};

typedef struct fixture {
    apr_pool_t *pool;
    trv_router *rt;
    const trv_route *route;
    apr_table_t *params;
    const char *allow;
    trv_errs *errs;
} fixture;

static int setup(void **state)
{
    apr_pool_t *p;
    fixture *f;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        return -1;
    }
    f = apr_pcalloc(p, sizeof(*f));
    f->pool = p;
    f->rt = trv_router_make(p);
    trv_router_add(f->rt, routes);
    trv_router_add(f->rt, later_routes);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    apr_pool_destroy(f->pool);
    return 0;
}

static trv_route_result match(fixture *f, const char *method, const char *path)
{
    f->route = NULL;
    f->allow = NULL;
    f->params = apr_table_make(f->pool, 4);
    f->errs = trv_errs_new(f->pool);
    return trv_router_match(f->rt, f->pool, method, path, &f->route, f->params,
                            &f->allow, f->errs);
}

static void expect_found(fixture *f, const char *method, const char *path,
                         trv_handler_fn *handler)
{
    trv_route_result r = match(f, method, path);
    if (r != TRV_ROUTE_FOUND) {
        fail_msg("%s %s: result %d, expected FOUND", method, path, (int)r);
    }
    assert_non_null(f->route);
    if (f->route->handler != handler) {
        fail_msg("%s %s reached the route %s %s", method, path,
                 f->route->method, f->route->pattern);
    }
    assert_false(trv_errs_any(f->errs));
}

static void expect_not_found(fixture *f, const char *method, const char *path)
{
    trv_route_result r = match(f, method, path);
    if (r != TRV_ROUTE_NOT_FOUND) {
        fail_msg("%s \"%s\": result %d, expected NOT_FOUND", method, path, (int)r);
    }
}

static void expect_bad_param(fixture *f, const char *method, const char *path,
                             const char *field)
{
    trv_route_result r = match(f, method, path);
    json_t *d;
    if (r != TRV_ROUTE_BAD_PARAM) {
        fail_msg("%s %s: result %d, expected BAD_PARAM", method, path, (int)r);
    }
    assert_int_equal(json_array_size(f->errs->details), 1);
    d = json_array_get(f->errs->details, 0);
    assert_string_equal(json_string_value(json_object_get(d, "field")), field);
    assert_non_null(json_string_value(json_object_get(d, "reason")));
}

static void test_literal_routes(void **state)
{
    fixture *f = *state;
    expect_found(f, "GET", "/v1/flight/bookings", h_list);
    expect_found(f, "POST", "/v1/flight/bookings", h_create);
    expect_found(f, "GET", "/", h_root);
    assert_int_equal(apr_table_elts(f->params)->nelts, 0);
    assert_int_equal(f->route->flags, TRV_ROUTE_PUBLIC);
}

static void test_parameter_routes(void **state)
{
    fixture *f = *state;
    expect_found(f, "GET", "/v1/flight/bookings/bkg_0193f1c4-7a2e-7c3d-9a1b-2f0c1d2e3f40",
                 h_get);
    assert_string_equal(apr_table_get(f->params, "id"),
                        "bkg_0193f1c4-7a2e-7c3d-9a1b-2f0c1d2e3f40");
    assert_int_equal(apr_table_elts(f->params)->nelts, 1);

    expect_found(f, "DELETE", "/v1/flight/bookings/bkg_1", h_cancel);
    assert_string_equal(apr_table_get(f->params, "id"), "bkg_1");

    expect_found(f, "POST", "/v1/flight/bookings/bkg_2/cancel", h_post_cancel);
    assert_string_equal(apr_table_get(f->params, "id"), "bkg_2");

    expect_found(f, "GET", "/v1/pairs/MU/LH", h_pair);
    assert_string_equal(apr_table_get(f->params, "from"), "MU");
    assert_string_equal(apr_table_get(f->params, "to"), "LH");
}

static void test_not_found(void **state)
{
    fixture *f = *state;
    expect_not_found(f, "GET", "/v1/flight/booking");
    expect_not_found(f, "GET", "/v1/flight");
    expect_not_found(f, "GET", "/v1/flight/bookings/bkg_1/extra");
    expect_not_found(f, "GET", "/v1/flight/bookings/bkg_1/cancel/x");
    expect_not_found(f, "GET", "/V1/flight/bookings");     /* case matters */
    expect_not_found(f, "GET", "/v1/flight/bookings/");     /* trailing slash */
    expect_not_found(f, "GET", "/v1/flight/bookings/bkg_1/");
    expect_not_found(f, "GET", "/v1//flight/bookings");     /* double slash */
    expect_not_found(f, "GET", "//v1/flight/bookings");
    expect_not_found(f, "GET", "/v1/flight/bookings//bkg_1");
    expect_not_found(f, "GET", "v1/flight/bookings");       /* not absolute */
    expect_not_found(f, "GET", "");
    expect_not_found(f, "GET", "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p");
    /* Unknown paths are 404 whatever the method. */
    expect_not_found(f, "PATCH", "/v2/nothing");
}

static void test_bad_method(void **state)
{
    fixture *f = *state;
    assert_int_equal(match(f, "PUT", "/v1/flight/bookings"), TRV_ROUTE_BAD_METHOD);
    assert_string_equal(f->allow, "GET, POST, HEAD");

    assert_int_equal(match(f, "POST", "/v1/flight/bookings/bkg_1"), TRV_ROUTE_BAD_METHOD);
    assert_string_equal(f->allow, "GET, DELETE, HEAD");

    /* No GET, no HEAD. */
    assert_int_equal(match(f, "GET", "/v1/flight/bookings/bkg_1/cancel"),
                     TRV_ROUTE_BAD_METHOD);
    assert_string_equal(f->allow, "POST");

    /* The method check comes before the parameter check. */
    assert_int_equal(match(f, "POST", "/v1/flight/bookings/nope"), TRV_ROUTE_BAD_METHOD);
    assert_false(trv_errs_any(f->errs));

    /* Methods are exact, upper-case tokens. */
    assert_int_equal(match(f, "get", "/v1/flight/bookings"), TRV_ROUTE_BAD_METHOD);
}

static void test_id_parameter(void **state)
{
    fixture *f = *state;
    json_t *d;
    expect_found(f, "GET", "/v1/flight/bookings/bkg_ABC-def-123", h_get);

    expect_bad_param(f, "GET", "/v1/flight/bookings/pay_123", "id");
    /* The route is known, so a handler-level 422 can name it. */
    assert_true(f->route->handler == h_get);
    assert_string_equal(apr_table_get(f->params, "id"), "pay_123");
    d = json_array_get(f->errs->details, 0);
    assert_string_equal(json_string_value(json_object_get(d, "reason")),
                        trv_param_rule(f->pool, "bkg"));

    expect_bad_param(f, "GET", "/v1/flight/bookings/bkg_", "id");
    expect_bad_param(f, "GET", "/v1/flight/bookings/bkg_a b", "id");
    expect_bad_param(f, "GET", "/v1/flight/bookings/bkg_a.b", "id");
    expect_bad_param(f, "DELETE", "/v1/flight/bookings/bkg_a_b", "id");
    expect_bad_param(f, "GET",
        apr_pstrcat(f->pool, "/v1/flight/bookings/bkg_", apr_psprintf(f->pool, "%0125d", 0),
                    NULL), "id");
    expect_found(f, "GET",
        apr_pstrcat(f->pool, "/v1/flight/bookings/bkg_", apr_psprintf(f->pool, "%0124d", 0),
                    NULL), h_get);
}

static void test_iata_parameter(void **state)
{
    fixture *f = *state;
    expect_found(f, "GET", "/v1/airports/MU", h_airport);
    assert_string_equal(apr_table_get(f->params, "code"), "MU");
    expect_found(f, "GET", "/v1/airports/U2", h_airport);
    expect_bad_param(f, "GET", "/v1/airports/M", "code");
    expect_bad_param(f, "GET", "/v1/airports/MUC", "code");
    expect_bad_param(f, "GET", "/v1/airports/M-", "code");
    /* Both parameters wrong: both reported. */
    assert_int_equal(match(f, "GET", "/v1/pairs/X/Y"), TRV_ROUTE_BAD_PARAM);
    assert_int_equal(json_array_size(f->errs->details), 2);
}

static void test_untyped_parameter(void **state)
{
    fixture *f = *state;
    char *longest = apr_palloc(f->pool, 513), *too_long = apr_palloc(f->pool, 514);
    memset(longest, 'x', 512);
    longest[512] = '\0';
    memset(too_long, 'x', 513);
    too_long[513] = '\0';

    expect_found(f, "GET", "/v1/search/anything goes:here", h_search);
    assert_string_equal(apr_table_get(f->params, "term"), "anything goes:here");
    expect_found(f, "GET", apr_pstrcat(f->pool, "/v1/search/", longest, NULL), h_search);
    expect_bad_param(f, "GET", apr_pstrcat(f->pool, "/v1/search/", too_long, NULL), "term");
}

static void test_literal_beats_parameter(void **state)
{
    fixture *f = *state;
    apr_pool_t *p = f->pool;
    static const trv_route param_first[] = {
        {"GET", "/a/{id}", h_get, 0},
        {"GET", "/a/export", h_export, 0},
        {NULL, NULL, NULL, 0}
    };
    static const trv_route literal_first[] = {
        {"GET", "/a/export", h_export, 0},
        {"DELETE", "/a/{id}", h_cancel, 0},
        {NULL, NULL, NULL, 0}
    };
    trv_router *saved = f->rt;

    /* "export" is not a valid bkg id, yet it must not become a 422. */
    expect_found(f, "GET", "/v1/flight/bookings/export", h_export);
    assert_int_equal(apr_table_elts(f->params)->nelts, 0);
    expect_found(f, "GET", "/v1/flight/bookings/bkg_1", h_get);

    f->rt = trv_router_make(p);
    trv_router_add(f->rt, param_first);
    expect_found(f, "GET", "/a/export", h_export);
    expect_found(f, "GET", "/a/other", h_get);
    assert_string_equal(apr_table_get(f->params, "id"), "other");

    f->rt = trv_router_make(p);
    trv_router_add(f->rt, literal_first);
    expect_found(f, "GET", "/a/export", h_export);
    expect_found(f, "DELETE", "/a/x", h_cancel);
    /* /a/export takes only GET: the parameter route does not leak in. */
    assert_int_equal(match(f, "DELETE", "/a/export"), TRV_ROUTE_BAD_METHOD);
    assert_string_equal(f->allow, "GET, HEAD");

    f->rt = saved;
}

static void test_param_rules(void **state)
{
    fixture *f = *state;
    assert_true(trv_param_valid("bkg", "bkg_1"));
    assert_false(trv_param_valid("bkg", "pay_1"));
    assert_true(trv_param_valid("iata", "LH"));
    assert_false(trv_param_valid("iata", "LHR"));
    assert_true(trv_param_valid(NULL, "x"));
    assert_false(trv_param_valid(NULL, ""));
    assert_string_equal(trv_param_rule(f->pool, "bkg"),
        "must match ^bkg_[a-zA-Z0-9-]+$ and be at most 128 characters");
    assert_string_equal(trv_param_rule(f->pool, "iata"),
                        "must be a two-character IATA code");
    assert_string_equal(trv_param_rule(f->pool, NULL), "must be 1 to 512 characters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_literal_routes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parameter_routes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_method, setup, teardown),
        cmocka_unit_test_setup_teardown(test_id_parameter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_iata_parameter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_untyped_parameter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_literal_beats_parameter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_param_rules, setup, teardown),
    };
    return UNIT_RUN(tests);
}
