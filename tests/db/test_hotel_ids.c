/* The service's hotel ids (sql/080, hotel_map_page) against a real
 * PostgreSQL: a hotel keeps its id whichever of its suppliers a later page
 * names it by; a hotel without a shared code (SUPPLIER_C) joins the hotel
 * of the same country, name and postal code; a supplier id already mapped
 * wins over everything else; one page's hotels keep their order and get
 * one id each; asking again adds nothing; a group whose members were mapped
 * to different hotels takes the oldest, whatever the members' order; a page
 * mixing known hotels with new ones and with hotels a new supplier joins
 * answers each in its place and maps every new supplier id (sql/390 answers
 * an all-known page in one statement and sends the rest through the loop). */
#include "dbtest.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const trv_stmt map_stmt = {"dbt_hotel_map_page",
    "SELECT i, id FROM hotel_map_page(%s::jsonb) ORDER BY i"};
static const trv_stmt count_stmt = {"dbt_hotel_count",
    "SELECT (SELECT count(*) FROM hotels WHERE name_key LIKE %s || '%%')::text AS hotels, "
    "(SELECT count(*) FROM hotel_supplier_ids s JOIN hotels h ON h.id = s.hotel_id "
    " WHERE h.name_key LIKE %s || '%%')::text AS members"};

static const trv_stmt age_stmt = {"dbt_hotel_age",
    "UPDATE hotels SET created_at = created_at - interval '1 day' WHERE id = %s"};

static const char *tag;

/* One element of a page: name is suffixed to the test's tag. */
static const char *elem(const char *name, const char *postal, const char *giata,
                        const char *members)
{
    return apr_psprintf(dbt_pool,
        "{\"id\":\"htl_dbt-%d-%s\",\"country_code\":\"FR\",\"name_key\":\"%s %s\","
        "\"postal_code\":\"%s\",\"giata\":%s,\"name\":\"%s\",\"city\":\"Paris\","
        "\"latitude\":48.86,\"longitude\":2.34,\"members\":[%s]}",
        (int)getpid(), apr_psprintf(dbt_pool, "%s%s", name, giata ? "g" : "n"), tag, name,
        postal, giata ? apr_psprintf(dbt_pool, "\"%s\"", giata) : "null", name, members);
}

static trv_rows *map(const char *page)
{
    trv_rows *r = NULL;
    if (trv_db_select(dbt_conn, dbt_pool, &map_stmt, &r, TRV_DB_ARGS(page)) != APR_SUCCESS) {
        fail_msg("hotel_map_page: %s", dbt_conn->error ? dbt_conn->error : "failed");
    }
    return r;
}

static const char *id_at(trv_rows *r, int i)
{
    assert_int_equal(atoi(trv_rows_get(r, i, "i")), i);
    return trv_rows_get(r, i, "id");
}

static void counts(long *hotels, long *members)
{
    trv_rows *r = NULL;
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &count_stmt, &r, TRV_DB_ARGS(tag, tag)),
                     APR_SUCCESS);
    *hotels = atol(trv_rows_get(r, 0, "hotels"));
    *members = atol(trv_rows_get(r, 0, "members"));
}

static void one_hotel_one_id(void **state)
{
    char giata[32], a[64], b[64];
    const char *first, *id;
    trv_rows *r;
    long hotels, members;
    (void)state;
    tag = apr_psprintf(dbt_pool, "dbt%d", (int)getpid());
    snprintf(giata, sizeof(giata), "9%d", (int)getpid());
    snprintf(a, sizeof(a), "{\"supplier\":\"SUPPLIER_A\",\"id\":\"lp%d\"}", (int)getpid());
    snprintf(b, sizeof(b), "{\"supplier\":\"SUPPLIER_B\",\"id\":\"%d\"}", (int)getpid());

    /* A page of two hotels: two ids, in order. */
    r = map(apr_psprintf(dbt_pool, "[%s,%s]",
                         elem("aster", "75001", giata, apr_pstrcat(dbt_pool, a, ",", b, NULL)),
                         elem("zenith", "75002", NULL,
                              "{\"supplier\":\"SUPPLIER_C\",\"id\":\"c-zenith\"}")));
    assert_int_equal(r->n, 2);
    first = apr_pstrdup(dbt_pool, id_at(r, 0));
    assert_string_not_equal(first, id_at(r, 1));
    counts(&hotels, &members);
    assert_int_equal(hotels, 2);
    assert_int_equal(members, 3);

    /* B alone, by its id: the same hotel. */
    r = map(apr_psprintf(dbt_pool, "[%s]", elem("aster", "75001", giata, b)));
    assert_string_equal(id_at(r, 0), first);

    /* C (no code) with the same country, name and postal code: joins it,
     * and from then on C's id names it. */
    r = map(apr_psprintf(dbt_pool, "[%s]", elem("aster", "75001", NULL,
                                                "{\"supplier\":\"SUPPLIER_C\",\"id\":\"c-aster\"}")));
    assert_string_equal(id_at(r, 0), first);
    counts(&hotels, &members);
    assert_int_equal(hotels, 2);
    assert_int_equal(members, 4);

    /* A mapped supplier id wins even under another name or postal code. */
    r = map(apr_psprintf(dbt_pool, "[%s]", elem("aster renamed", "75099", NULL,
                                                "{\"supplier\":\"SUPPLIER_C\",\"id\":\"c-aster\"}")));
    assert_string_equal(id_at(r, 0), first);

    /* The code alone finds it too (a new A id of the same hotel). */
    r = map(apr_psprintf(dbt_pool, "[%s]", elem("aster", "75001", giata,
                                                "{\"supplier\":\"SUPPLIER_A\",\"id\":\"lp-new\"}")));
    id = id_at(r, 0);
    assert_string_equal(id, first);

    /* Asking again adds nothing. */
    counts(&hotels, &members);
    assert_int_equal(hotels, 2);
    assert_int_equal(members, 5);
    r = map(apr_psprintf(dbt_pool, "[%s]", elem("aster", "75001", giata, a)));
    assert_string_equal(id_at(r, 0), first);
    counts(&hotels, &members);
    assert_int_equal(hotels, 2);
    assert_int_equal(members, 5);
}

static void members_mapped_apart_take_the_oldest(void **state)
{
    char a[64], b[64];
    const char *older, *newer;
    trv_rows *r;
    int k;
    (void)state;
    tag = apr_psprintf(dbt_pool, "dbu%d", (int)getpid());
    snprintf(a, sizeof(a), "{\"supplier\":\"SUPPLIER_A\",\"id\":\"old%d\"}", (int)getpid());
    snprintf(b, sizeof(b), "{\"supplier\":\"SUPPLIER_B\",\"id\":\"new%d\"}", (int)getpid());

    /* Two hotels; the one whose id sorts last was made a day earlier, so
     * neither the id nor the order of insertion decides. */
    newer = apr_pstrdup(dbt_pool, id_at(map(apr_psprintf(dbt_pool, "[%s]",
                                                         elem("alpha", "75020", NULL, b))), 0));
    older = apr_pstrdup(dbt_pool, id_at(map(apr_psprintf(dbt_pool, "[%s]",
                                                         elem("zulu", "75010", NULL, a))), 0));
    assert_string_not_equal(older, newer);
    assert_true(strcmp(older, newer) > 0);
    assert_int_equal(trv_db_exec(dbt_conn, dbt_pool, &age_stmt, NULL, TRV_DB_ARGS(older)),
                     APR_SUCCESS);

    /* A later search groups both: the older id, in either member order. */
    for (k = 0; k < 3; k++) {
        r = map(apr_psprintf(dbt_pool, "[%s]", elem("alpha", "75020", NULL,
                                                    apr_pstrcat(dbt_pool, b, ",", a, NULL))));
        assert_string_equal(id_at(r, 0), older);
        r = map(apr_psprintf(dbt_pool, "[%s]", elem("zulu", "75010", NULL,
                                                    apr_pstrcat(dbt_pool, a, ",", b, NULL))));
        assert_string_equal(id_at(r, 0), older);
    }
}

/* A page of five: known, new, known with a new supplier id beside its
 * mapped one, an empty member list, known again. The known ones keep their
 * ids, the new one gets a new hotel, the joining supplier id is mapped to
 * its hotel (the next page naming the hotel by that id alone finds it), and
 * the same page asked again (now all known) answers the same ids. */
static void a_page_of_known_and_new_hotels(void **state)
{
    char a[64], b[64], c[64], f[64], giata[32];
    const char *ids[5], *known_a, *known_c;
    const char *page;
    trv_rows *r;
    long hotels, members;
    int k;
    (void)state;
    tag = apr_psprintf(dbt_pool, "dbv%d", (int)getpid());
    snprintf(giata, sizeof(giata), "8%d", (int)getpid());
    snprintf(a, sizeof(a), "{\"supplier\":\"SUPPLIER_A\",\"id\":\"ka%d\"}", (int)getpid());
    snprintf(b, sizeof(b), "{\"supplier\":\"SUPPLIER_B\",\"id\":\"kb%d\"}", (int)getpid());
    snprintf(c, sizeof(c), "{\"supplier\":\"SUPPLIER_C\",\"id\":\"kc%d\"}", (int)getpid());
    snprintf(f, sizeof(f), "{\"supplier\":\"SUPPLIER_A\",\"id\":\"fresh%d\"}", (int)getpid());
    known_a = apr_pstrdup(dbt_pool, id_at(map(apr_psprintf(dbt_pool, "[%s]",
                                                          elem("known", "75001", NULL, a))), 0));
    known_c = apr_pstrdup(dbt_pool, id_at(map(apr_psprintf(dbt_pool, "[%s]",
                                                          elem("kept", "75003", NULL, c))), 0));
    counts(&hotels, &members);
    assert_int_equal(hotels, 2);
    assert_int_equal(members, 2);

    page = apr_psprintf(dbt_pool, "[%s,%s,%s,%s,%s]",
                        elem("known", "75001", NULL, a),
                        elem("fresh", "75002", giata, f),
                        elem("kept", "75003", NULL, apr_pstrcat(dbt_pool, c, ",", b, NULL)),
                        elem("bare", "75004", NULL, ""),
                        elem("known", "75001", NULL, a));
    r = map(page);
    assert_int_equal(r->n, 5);
    for (k = 0; k < 5; k++) {
        ids[k] = apr_pstrdup(dbt_pool, id_at(r, k));
    }
    assert_string_equal(ids[0], known_a);
    assert_string_not_equal(ids[1], known_a);
    assert_string_not_equal(ids[1], known_c);
    assert_string_equal(ids[2], known_c);
    assert_string_not_equal(ids[3], ids[1]);
    assert_string_equal(ids[4], known_a);
    /* fresh and bare are new hotels; fresh's and B's ids are new members. */
    counts(&hotels, &members);
    assert_int_equal(hotels, 4);
    assert_int_equal(members, 4);

    /* B's id alone, under another name: the hotel it joined. */
    r = map(apr_psprintf(dbt_pool, "[%s]", elem("other name", "75999", NULL, b)));
    assert_string_equal(id_at(r, 0), known_c);

    /* All known now: the same ids, nothing added. */
    r = map(page);
    assert_int_equal(r->n, 5);
    for (k = 0; k < 5; k++) {
        assert_string_equal(id_at(r, k), ids[k]);
    }
    counts(&hotels, &members);
    assert_int_equal(hotels, 4);
    assert_int_equal(members, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_hotel_one_id),
        cmocka_unit_test(members_mapped_apart_take_the_oldest),
        cmocka_unit_test(a_page_of_known_and_new_hotels),
    };
    return cmocka_run_group_tests_name("hotel ids", tests, dbt_setup, dbt_teardown);
}
