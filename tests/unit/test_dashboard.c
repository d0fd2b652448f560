/* The dashboard's pieces that need no database: every text it did not
 * write is escaped, a form token belongs to one login, one session and one
 * key, the session cookie is read strictly, and requests the page cannot
 * serve are refused before anything is read (with the security headers). */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "dashboard/csrf.h"
#include "dashboard/dashboard.h"
#include "dashboard/html.h"

static void test_escape(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(trv_html_escape(p, "<script>alert('x & \"y\"')</script>"),
                        "&lt;script&gt;alert(&#39;x &amp; &quot;y&quot;&#39;)&lt;/script&gt;");
    assert_string_equal(trv_html_escape(p, "plain text"), "plain text");
    assert_string_equal(trv_html_escape(p, ""), "");
    assert_string_equal(trv_html_escape(p, NULL), "");
}

static void test_fmt_escapes_arguments_only(void **state)
{
    trv_html *h = trv_html_new(*state);
    trv_html_fmt(h, "<td title=\"%s\">%s</td> 100%% <b>%s", "a\"b", "<i>", NULL);
    trv_html_raw(h, "</b>");
    assert_string_equal(trv_html_done(h),
                        "<td title=\"a&quot;b\">&lt;i&gt;</td> 100% <b></b>");
    h = trv_html_new(*state);
    trv_html_fmt(h, "tail %d %", "unused");
    assert_string_equal(trv_html_done(h), "tail %d %");
}

static void test_builder_grows(void **state)
{
    trv_html *h = trv_html_new(*state);
    char chunk[1001];
    int i;
    memset(chunk, 'x', 1000);
    chunk[1000] = '\0';
    for (i = 0; i < 100; i++) {
        trv_html_text(h, chunk);
    }
    assert_int_equal(strlen(trv_html_done(h)), 100000);
}

static const unsigned char key1[32] = "0123456789abcdef0123456789abcdef";
static const unsigned char key2[32] = "0123456789abcdef0123456789abcdeF";
#define S1 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define S2 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB"

static void test_csrf_token_binds_login_session_and_key(void **state)
{
    apr_pool_t *p = *state;
    const char *t = trv_dash_csrf_token(p, key1, "admin", S1);
    char *edited;
    assert_non_null(t);
    assert_int_equal(strlen(t), 43); /* 32 bytes, base64url without padding */
    assert_string_equal(t, trv_dash_csrf_token(p, key1, "admin", S1));
    assert_true(trv_dash_csrf_ok(p, key1, "admin", S1, t));
    assert_string_not_equal(t, trv_dash_csrf_token(p, key1, "admin2", S1));
    assert_string_not_equal(t, trv_dash_csrf_token(p, key1, "admin", S2));
    assert_string_not_equal(t, trv_dash_csrf_token(p, key2, "admin", S1));
    assert_false(trv_dash_csrf_ok(p, key1, "other", S1, t));
    assert_false(trv_dash_csrf_ok(p, key1, "admin", S2, t));
    assert_false(trv_dash_csrf_ok(p, key2, "admin", S1, t));
    assert_false(trv_dash_csrf_ok(p, key1, "admin", S1, NULL));
    assert_false(trv_dash_csrf_ok(p, key1, "admin", NULL, t));
    assert_false(trv_dash_csrf_ok(p, key1, "admin", S1, ""));
    assert_false(trv_dash_csrf_ok(p, key1, "admin", S1, apr_pstrndup(p, t, 42)));
    edited = apr_pstrdup(p, t);
    edited[10] = edited[10] == 'A' ? 'B' : 'A';
    assert_false(trv_dash_csrf_ok(p, key1, "admin", S1, edited));
    /* The NUL between the parts: ("ab", "c…") and ("a", "bc…") differ. */
    assert_string_not_equal(trv_dash_csrf_token(p, key1, "ab", S1),
                            trv_dash_csrf_token(p, key1, "a", "b" S1));
}

static void test_session_cookie(void **state)
{
    apr_pool_t *p = *state;
    const char *s = trv_dash_session_new(p);
    assert_non_null(s);
    assert_true(strlen(s) >= 32);
    assert_string_not_equal(s, trv_dash_session_new(p));
    assert_string_equal(trv_dash_session_of(p, "a=1; " TRV_DASH_COOKIE "=" S1 "; b=2"), S1);
    assert_string_equal(trv_dash_session_of(p, TRV_DASH_COOKIE "=" S1), S1);
    assert_null(trv_dash_session_of(p, NULL));
    assert_null(trv_dash_session_of(p, "a=1"));
    assert_null(trv_dash_session_of(p, TRV_DASH_COOKIE "=short"));
    assert_null(trv_dash_session_of(p, TRV_DASH_COOKIE "=" S1 "<x>"));
    assert_null(trv_dash_session_of(p, "x" TRV_DASH_COOKIE "=" S1));
}

/* A request the dashboard refuses before it reads anything. */
static trv_dash_out refused(apr_pool_t *p, const char *method, const char *path,
                            const char *login)
{
    static trv_config cfg;
    static trv_env env;
    trv_req *req = apr_pcalloc(p, sizeof(*req));
    trv_dash_in in = {req, login, NULL, 0};
    trv_dash_out out;
    cfg.have_secret_key = 1;
    env.cfg = &cfg;
    req->pool = p;
    req->method = method;
    req->path = path;
    req->headers = apr_table_make(p, 1);
    req->query = apr_table_make(p, 1);
    req->request_id = "req_test";
    req->env = &env;
    trv_dash_handle(&in, &out);
    return out;
}

static void test_refusals_carry_the_security_headers(void **state)
{
    apr_pool_t *p = *state;
    trv_dash_out o = refused(p, "GET", "/dashboard/", NULL);
    const char *csp;
    assert_int_equal(o.status, 403);
    csp = apr_table_get(o.headers, "Content-Security-Policy");
    assert_non_null(csp);
    assert_non_null(strstr(csp, "default-src 'none'"));
    assert_non_null(strstr(csp, "form-action 'self'"));
    assert_non_null(strstr(csp, "frame-ancestors 'none'"));
    assert_string_equal(apr_table_get(o.headers, "X-Frame-Options"), "DENY");
    assert_null(strstr(o.html, "<form"));
    o = refused(p, "DELETE", "/dashboard/", "admin");
    assert_int_equal(o.status, 405);
    assert_string_equal(apr_table_get(o.headers, "Allow"), "GET, HEAD, POST");
    /* The page is its folder; anything else there is not the dashboard, and
     * a path that could not sit in a cookie's Path is refused. */
    assert_int_equal(refused(p, "GET", "/dashboard/x", "admin").status, 404);
    assert_int_equal(refused(p, "GET", "/dash;board/", "admin").status, 404);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_escape, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_fmt_escapes_arguments_only, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_builder_grows, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_csrf_token_binds_login_session_and_key, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_session_cookie, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_refusals_carry_the_security_headers, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
