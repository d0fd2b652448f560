/* The sandbox compresses a Hotelbeds answer for a client that accepts
 * gzip, as Hotelbeds does: the body becomes a gzip member that decodes to
 * the same JSON (read back with the gateway's own decoder), and a client
 * that does not accept it, or refuses it with q=0, gets the answer as it
 * was. */
#include "unit.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>

#include "core/api.h"
#include "core/gzip.h"
#include "sandbox/gzip.h"

static trv_req *request(apr_pool_t *p, const char *accept_encoding)
{
    trv_req *req = apr_pcalloc(p, sizeof(*req));
    req->pool = p;
    req->headers = apr_table_make(p, 2);
    if (accept_encoding) {
        apr_table_setn(req->headers, "Accept-Encoding", accept_encoding);
    }
    return req;
}

/* An answer as the handlers make it: a document of some size. */
static void answer(apr_pool_t *p, trv_req *req, trv_resp *resp)
{
    json_t *hotels = json_array();
    int i;
    memset(resp, 0, sizeof(*resp));
    for (i = 0; i < 200; i++) {
        json_array_append_new(hotels, json_pack("{s:i,s:s,s:s}", "code", 1000 + i, "name",
                                                apr_psprintf(p, "Hotel %d", i), "currency", "EUR"));
    }
    trv_ok_document(req, resp, 200, json_pack("{s:{s:o}}", "hotels", "hotels", hotels));
}

static void accepted_codings(void **state)
{
    (void)state;
    assert_true(sbx_gzip_accepted("gzip"));
    assert_true(sbx_gzip_accepted("GZip"));
    assert_true(sbx_gzip_accepted("deflate, gzip"));
    assert_true(sbx_gzip_accepted("br;q=1.0, gzip;q=0.5"));
    assert_true(sbx_gzip_accepted("gzip ; q=0.01"));
    assert_true(sbx_gzip_accepted("gzip;q=1"));
    assert_false(sbx_gzip_accepted(NULL));
    assert_false(sbx_gzip_accepted(""));
    assert_false(sbx_gzip_accepted("identity"));
    assert_false(sbx_gzip_accepted("x-gzipped, gzipx, deflate"));
    assert_false(sbx_gzip_accepted("gzip;q=0"));
    assert_false(sbx_gzip_accepted("gzip; q=0.000, deflate"));
    assert_false(sbx_gzip_accepted("deflate;q=0.5, gzip;Q=0.0"));
}

static void an_answer_accepted_as_gzip_decodes_to_the_same_json(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = request(p, "gzip");
    trv_resp resp;
    const char *plain;
    char *out;
    apr_size_t out_len;
    answer(p, req, &resp);
    plain = trv_resp_body(p, &resp);
    sbx_gzip_answer(req, &resp);
    assert_non_null(resp.raw);
    assert_string_equal(resp.raw_type, "application/json");
    assert_string_equal(apr_table_get(resp.headers, "Content-Encoding"), "gzip");
    assert_string_equal(apr_table_get(resp.headers, "Vary"), "Accept-Encoding");
    assert_true(resp.raw_len < strlen(plain));
    assert_int_equal(trv_gzip_decode(p, resp.raw, resp.raw_len, 1 << 20, &out, &out_len),
                     TRV_GZIP_OK);
    assert_int_equal(out_len, strlen(plain));
    assert_memory_equal(out, plain, out_len);
    assert_int_equal(resp.status, 200);
}

/* A body the handler wrote as text already keeps its own type. */
static void a_raw_answer_keeps_its_type(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = request(p, "gzip, deflate");
    trv_resp resp;
    static const char text[] = "{\"hotels\":{\"hotels\":[],\"total\":0}}";
    char *out;
    apr_size_t out_len;
    memset(&resp, 0, sizeof(resp));
    resp.status = 200;
    resp.raw = text;
    resp.raw_len = sizeof(text) - 1;
    resp.raw_type = "application/json;charset=UTF-8";
    sbx_gzip_answer(req, &resp);
    assert_string_equal(resp.raw_type, "application/json;charset=UTF-8");
    assert_int_equal(trv_gzip_decode(p, resp.raw, resp.raw_len, 1 << 20, &out, &out_len),
                     TRV_GZIP_OK);
    assert_int_equal(out_len, sizeof(text) - 1);
    assert_memory_equal(out, text, out_len);
}

static void an_answer_not_accepted_as_gzip_is_left_as_it_was(void **state)
{
    apr_pool_t *p = *state;
    const char *codings[] = {NULL, "identity", "gzip;q=0"};
    size_t i;
    for (i = 0; i < sizeof(codings) / sizeof(codings[0]); i++) {
        trv_req *req = request(p, codings[i]);
        trv_resp resp;
        answer(p, req, &resp);
        sbx_gzip_answer(req, &resp);
        assert_null(resp.raw);
        assert_null(apr_table_get(resp.headers, "Content-Encoding"));
        /* Caches still learn that the answer depends on the header. */
        assert_string_equal(apr_table_get(resp.headers, "Vary"), "Accept-Encoding");
    }
}

static void an_answer_without_a_body_is_left_as_it_was(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = request(p, "gzip");
    trv_resp resp;
    memset(&resp, 0, sizeof(resp));
    resp.status = 204;
    sbx_gzip_answer(req, &resp);
    assert_null(resp.raw);
    assert_null(apr_table_get(resp.headers, "Content-Encoding"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepted_codings),
        cmocka_unit_test_setup_teardown(an_answer_accepted_as_gzip_decodes_to_the_same_json,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_raw_answer_keeps_its_type, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(an_answer_not_accepted_as_gzip_is_left_as_it_was,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(an_answer_without_a_body_is_left_as_it_was, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
