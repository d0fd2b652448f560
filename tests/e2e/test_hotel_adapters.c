/* The hotel supplier adapters' booking half (prebook, book, retrieve),
 * called directly as the hotel code calls them, against the running
 * sandbox over real HTTP, for each of the three wire formats: the neutral
 * shapes supplier.h promises, a booking found again by its id and by the
 * client reference, and the test triggers Failbook (refused: book_failed),
 * Async (pending, then confirmed) and sandbox-unknown (no answer: the
 * booking exists and is found by its reference, never bought twice), a
 * LiteAPI reference booked before (that booking), and a Hotelbeds hotel
 * that binds its price (read at that price). */
#include "adapter_env.h"
#include "hotel_e2e.h"
#include "hotel/supplier.h"
#include "core/money.h"

#include <stdlib.h>
#include <time.h>

static trv_upstream up_a, up_b, up_c;

static void hotel_upstreams(void)
{
    if (!up_a.name) {
        ad_upstream(&up_a, "SUPPLIER_A", "/hotels/a/v3.0", "sandbox-key-hotel-a");
        /* LiteAPI's booking host: the line's book_url. */
        up_a.second_base_url = apr_pstrcat(ad_root, e2e_sandbox_url(), "/hotels/a/book/v3.0",
                                           NULL);
        ad_upstream(&up_b, "SUPPLIER_B", "/hotels/b", "sandbox-key-hotel-b");
        up_b.api_secret = "sandbox-secret-hotel-b";
        ad_upstream(&up_c, "SUPPLIER_C", "/hotels/c", "sandbox-key-hotel-c");
        up_c.api_secret = "sandbox-secret-hotel-c";
    }
}

static int setup(void **state)
{
    ad_setup(state);
    hotel_upstreams();
    return 0;
}

static trv_hotel_ctx ctx_of(const trv_upstream *up, const char *rid)
{
    trv_hotel_ctx c = {.env = &ad_env, .pool = ad_pool, .request_id = rid, .up = up};
    /* The booking's contact, as the gateway passes it (Rapid finds an
     * itinerary by reference only with it). */
    c.contact_email = "ada@example.com";
    return c;
}

/* Two rooms (2 adults; 1 adult and a child of 7), 40..42 days ahead. */
static trv_hotel_stay stay_of(void)
{
    trv_hotel_stay s;
    memset(&s, 0, sizeof(s));
    s.check_in = ad_date(40);
    s.check_out = ad_date(42);
    s.nights = 2;
    s.n_rooms = 2;
    s.rooms[0].adults = 2;
    s.rooms[1].adults = 1;
    s.rooms[1].n_children = 1;
    s.rooms[1].ages[0] = 7;
    strcpy(s.currency, "EUR");
    s.nationality = "GB";
    s.residence = "GB";
    return s;
}

/* The cheapest offer of a London hotel of this supplier. */
static trv_hotel_offer an_offer(const trv_hotel_supplier *s, const trv_upstream *up,
                                const trv_hotel_stay *stay)
{
    trv_hotel_ctx c = ctx_of(up, "req_hotel_adapters");
    trv_hotel_area area = {"London", "GB", 0, 0, 0, 0};
    trv_hotel_err err = {0};
    apr_array_header_t *found = NULL, *offers = NULL;
    const char *sid = NULL;
    /* A hotel of its own per call: SUPPLIER_A books a prebook once, and two
     * prebooks of one offer in the same second share their id. */
    static int used;
    int i, skip = used++;
    assert_int_equal(s->search(&c, &area, stay, &found, &err), TRV_UP_OK);
    for (i = 0; i < found->nelts && !sid; i++) {
        if (APR_ARRAY_IDX(found, i, trv_hotel_found).priced && skip-- <= 0) {
            sid = APR_ARRAY_IDX(found, i, trv_hotel_found).sid;
        }
    }
    assert_non_null(sid);
    assert_int_equal(s->offers(&c, stay, &sid, 1, 1, &offers, &err), TRV_UP_OK);
    assert_true(offers->nelts >= 1);
    return APR_ARRAY_IDX(offers, 0, trv_hotel_offer);
}

static trv_hotel_guest g0[2], g1[1];

static trv_hotel_party party_of(const char *last_name)
{
    trv_hotel_party p;
    memset(&p, 0, sizeof(p));
    p.first_name = "Ada";
    p.last_name = "Lovelace";
    p.email = "ada@example.com";
    p.phone = "+442079460000";
    g0[0].first_name = "Ada";
    g0[0].last_name = last_name;
    g0[0].is_lead = 1;
    g0[1].first_name = "Bo";
    g0[1].last_name = "Lovelace";
    g1[0].first_name = "Cy";
    g1[0].last_name = "Lovelace";
    g1[0].is_lead = 1;
    p.n_rooms = 2;
    p.n_guests[0] = 2;
    p.n_guests[1] = 1;
    p.guests[0] = g0;
    p.guests[1] = g1;
    return p;
}

static const char *unique_ref(const char *tag)
{
    return apr_psprintf(ad_pool, "bkg_%ld_%d/%s", e2e_now_ms(), rand() % 100000, tag);
}

/* prebook: the offer again, bookable, with each room's terms. */
static trv_hotel_prebooked prebooked(const trv_hotel_supplier *s, const trv_upstream *up,
                                     const trv_hotel_stay *stay, const trv_hotel_offer *o)
{
    trv_hotel_ctx c = ctx_of(up, "req_hotel_adapters");
    trv_hotel_err err = {0};
    trv_hotel_prebooked pb;
    const json_t *rooms;
    assert_non_null(s->prebook);
    assert_int_equal(s->prebook(&c, stay, o->sid, o->ref, &pb, &err), TRV_UP_OK);
    assert_non_null(pb.prebook_id);
    /* No price factor is set: the price is the offer's. */
    assert_int_equal(pb.price_changed, 0);
    assert_true(pb.total_minor == o->total_minor);
    assert_true(pb.expires_at > apr_time_now());
    rooms = json_object_get(pb.doc, "rooms");
    assert_int_equal(json_array_size(rooms), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rooms, 1), "adults")), 1);
    assert_int_equal(json_integer_value(json_array_get(
        json_object_get(json_array_get(rooms, 1), "children"), 0)), 7);
    assert_true(json_is_object(json_object_get(pb.doc, "total")));
    return pb;
}

static trv_up_status book(const trv_hotel_supplier *s, const trv_upstream *up,
                          const trv_hotel_stay *stay, const trv_hotel_offer *o,
                          const trv_hotel_prebooked *pb, const trv_hotel_party *p,
                          const char *ref, trv_hotel_booked *out, trv_hotel_err *err)
{
    trv_hotel_ctx c = ctx_of(up, "req_hotel_adapters");
    trv_hotel_book_req rq;
    memset(&rq, 0, sizeof(rq));
    rq.stay = stay;
    rq.sid = o->sid;
    rq.prebook_id = pb->prebook_id;
    rq.total_minor = pb->total_minor;
    rq.client_reference = ref;
    rq.party = p;
    rq.payment_instrument_id = "pi_test_visa";
    rq.idempotency_key = apr_pstrcat(ad_pool, ref, ":book", NULL);
    return s->book(&c, &rq, out, err);
}

static void assert_booked(const trv_hotel_booked *b, const char *status, apr_int64_t total)
{
    size_t i;
    assert_non_null(b->booking_id);
    assert_string_equal(b->status, status);
    assert_true(b->total_minor == total);
    assert_int_equal(json_array_size(b->rooms), 2);
    for (i = 0; i < 2; i++) {
        const json_t *r = json_array_get(b->rooms, i);
        const json_t *pol = json_object_get(r, "cancellation_policy");
        assert_int_equal(json_integer_value(json_object_get(r, "position")), (json_int_t)i);
        assert_true(json_is_boolean(json_object_get(pol, "refundable")));
        assert_true(json_is_array(json_object_get(pol, "penalties")));
    }
    assert_non_null(b->cancellation_policy);
    assert_true(json_array_size(json_object_get(b->cancellation_policy, "penalties")) >= 1);
}

static void books_and_reads_back(const trv_hotel_supplier *s, const trv_upstream *up,
                                 int collects)
{
    trv_hotel_stay stay = stay_of();
    trv_hotel_offer o = an_offer(s, up, &stay);
    trv_hotel_prebooked pb = prebooked(s, up, &stay, &o);
    trv_hotel_party p = party_of("Lovelace");
    trv_hotel_booked b, r1, r2;
    trv_hotel_err err = {0};
    trv_hotel_ctx c = ctx_of(up, "req_hotel_adapters");
    const char *ref = unique_ref("plain");

    assert_int_equal(book(s, up, &stay, &o, &pb, &p, ref, &b, &err), TRV_UP_OK);
    assert_booked(&b, "CONFIRMED", pb.total_minor);
    assert_non_null(b.hotel_confirmation_code);
    if (collects) {
        assert_non_null(b.payment);
        assert_string_equal(ad_str(b.payment, "collected_by"), up->name);
        assert_string_equal(ad_str(b.payment, "last4"), "4242");
    }
    else {
        assert_null(b.payment);
    }
    assert_int_equal(s->retrieve(&c, b.booking_id, NULL, &r1, &err), TRV_UP_OK);
    assert_booked(&r1, "CONFIRMED", pb.total_minor);
    assert_string_equal(r1.booking_id, b.booking_id);
    assert_true(json_equal(r1.cancellation_policy, b.cancellation_policy));
    assert_int_equal(s->retrieve(&c, NULL, ref, &r2, &err), TRV_UP_OK);
    assert_string_equal(r2.booking_id, b.booking_id);
    assert_string_equal(r2.client_reference, ref);
    /* A reference never used: nothing. */
    assert_int_equal(s->retrieve(&c, NULL, unique_ref("never"), &r2, &err), TRV_UP_NOT_FOUND);
}

static void a_books(void **state)
{
    (void)state;
    books_and_reads_back(&trv_hotel_supplier_a, &up_a, 0);
}

static void b_books(void **state)
{
    (void)state;
    books_and_reads_back(&trv_hotel_supplier_b, &up_b, 0);
}

static void c_books(void **state)
{
    (void)state;
    books_and_reads_back(&trv_hotel_supplier_c, &up_c, 1);
}

static void failbook_is_refused(const trv_hotel_supplier *s, const trv_upstream *up)
{
    trv_hotel_stay stay = stay_of();
    trv_hotel_offer o = an_offer(s, up, &stay);
    trv_hotel_prebooked pb = prebooked(s, up, &stay, &o);
    trv_hotel_party p = party_of("Failbook");
    trv_hotel_booked b;
    trv_hotel_err err = {0};
    trv_hotel_ctx c = ctx_of(up, "req_hotel_adapters");
    const char *ref = unique_ref("failbook");
    assert_int_equal(book(s, up, &stay, &o, &pb, &p, ref, &b, &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "book_failed");
    assert_int_equal(s->retrieve(&c, NULL, ref, &b, &err), TRV_UP_NOT_FOUND);
}

static void failbook(void **state)
{
    (void)state;
    failbook_is_refused(&trv_hotel_supplier_a, &up_a);
    failbook_is_refused(&trv_hotel_supplier_b, &up_b);
    failbook_is_refused(&trv_hotel_supplier_c, &up_c);
}

static void async_confirms_later(const trv_hotel_supplier *s, const trv_upstream *up)
{
    trv_hotel_stay stay = stay_of();
    trv_hotel_offer o = an_offer(s, up, &stay);
    trv_hotel_prebooked pb = prebooked(s, up, &stay, &o);
    trv_hotel_party p = party_of("Async");
    trv_hotel_booked b, r;
    trv_hotel_err err = {0};
    trv_hotel_ctx c = ctx_of(up, "req_hotel_adapters");
    long until = e2e_now_ms() + 30000;
    assert_int_equal(book(s, up, &stay, &o, &pb, &p, unique_ref("async"), &b, &err), TRV_UP_OK);
    assert_string_equal(b.status, "PENDING");
    do {
        e2e_sleep_ms(500);
        assert_int_equal(s->retrieve(&c, b.booking_id, NULL, &r, &err), TRV_UP_OK);
    } while (strcmp(r.status, "PENDING") == 0 && e2e_now_ms() < until);
    assert_string_equal(r.status, "CONFIRMED");
    assert_non_null(r.hotel_confirmation_code);
}

static void async(void **state)
{
    (void)state;
    async_confirms_later(&trv_hotel_supplier_a, &up_a);
    async_confirms_later(&trv_hotel_supplier_b, &up_b);
    async_confirms_later(&trv_hotel_supplier_c, &up_c);
}

/* The supplier makes the booking and does not answer: book times out, and
 * the booking is there under its reference; booking again buys nothing. */
static void unknown_is_found_by_reference(const trv_hotel_supplier *s, const trv_upstream *up)
{
    trv_hotel_stay stay = stay_of();
    trv_hotel_offer o = an_offer(s, up, &stay);
    trv_hotel_prebooked pb = prebooked(s, up, &stay, &o);
    trv_hotel_party p = party_of("Lovelace");
    trv_hotel_booked b, again;
    trv_hotel_err err = {0};
    trv_upstream quick = *up;
    trv_hotel_ctx c = ctx_of(up, "req_hotel_adapters");
    const char *ref = unique_ref("sandbox-unknown");
    /* Shorter than the sandbox's hang (10 s in the test stack). */
    quick.timeout = apr_time_from_sec(4);
    assert_int_equal(book(s, &quick, &stay, &o, &pb, &p, ref, &b, &err), TRV_UP_TIMEOUT);
    assert_int_equal(s->retrieve(&c, NULL, ref, &b, &err), TRV_UP_OK);
    assert_string_equal(b.status, "CONFIRMED");
    /* Booking again (a new idempotency key) answers that booking. */
    {
        trv_hotel_book_req rq;
        trv_up_status st;
        memset(&rq, 0, sizeof(rq));
        rq.stay = &stay;
        rq.sid = o.sid;
        rq.prebook_id = pb.prebook_id;
        rq.total_minor = pb.total_minor;
        rq.client_reference = ref;
        rq.party = &p;
        rq.payment_instrument_id = "pi_test_visa";
        rq.idempotency_key = apr_pstrcat(ad_pool, ref, ":again", NULL);
        quick.timeout = apr_time_from_sec(20);
        st = s->book(&c, &rq, &again, &err);
        assert_int_equal(st, TRV_UP_OK);
        assert_string_equal(again.booking_id, b.booking_id);
    }
}

static void unknown(void **state)
{
    (void)state;
    unknown_is_found_by_reference(&trv_hotel_supplier_a, &up_a);
    unknown_is_found_by_reference(&trv_hotel_supplier_b, &up_b);
    unknown_is_found_by_reference(&trv_hotel_supplier_c, &up_c);
}

/* Hotelbeds groups rooms of equal occupancy ({rooms: 2, adults: 2} then
 * {rooms: 1, adults: 1, children: 1}): the offer still prices each room in
 * order, and the booking (one rooms[] entry, paxes by roomId) has three. */
static void b_books_equal_rooms_grouped(void **state)
{
    trv_hotel_stay stay = stay_of();
    trv_hotel_offer o;
    trv_hotel_prebooked pb;
    trv_hotel_ctx c = ctx_of(&up_b, "req_hotel_adapters");
    trv_hotel_guest r0[1], r1[1], r2[2];
    trv_hotel_party p;
    trv_hotel_booked b;
    trv_hotel_err err = {0};
    const json_t *rooms;
    apr_int64_t sum = 0, m;
    size_t i;
    (void)state;
    stay.n_rooms = 3;
    stay.rooms[0].adults = stay.rooms[1].adults = 2;
    stay.rooms[0].n_children = stay.rooms[1].n_children = 0;
    stay.rooms[2].adults = 1;
    stay.rooms[2].n_children = 1;
    stay.rooms[2].ages[0] = 9;
    o = an_offer(&trv_hotel_supplier_b, &up_b, &stay);
    rooms = json_object_get(o.doc, "rooms");
    assert_int_equal(json_array_size(rooms), 3);
    for (i = 0; i < 3; i++) {
        assert_int_equal(trv_money_minor_of(json_object_get(json_object_get(
                             json_array_get(rooms, i), "total"), "amount"), "EUR", &m), 0);
        sum += m;
    }
    assert_true(sum == o.total_minor);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rooms, 2), "adults")), 1);
    assert_int_equal(trv_hotel_supplier_b.prebook(&c, &stay, o.sid, o.ref, &pb, &err), TRV_UP_OK);
    memset(&p, 0, sizeof(p));
    memset(r0, 0, sizeof(r0));
    memset(r1, 0, sizeof(r1));
    memset(r2, 0, sizeof(r2));
    p.first_name = "Ada";
    p.last_name = "Lovelace";
    r0[0].first_name = "Ada";
    r1[0].first_name = "Bo";
    r2[0].first_name = "Cy";
    r2[1].first_name = "Di";
    r0[0].last_name = r1[0].last_name = r2[0].last_name = r2[1].last_name = "Lovelace";
    r0[0].is_lead = r1[0].is_lead = r2[0].is_lead = 1;
    r2[1].child = 1;
    p.n_rooms = 3;
    p.n_guests[0] = p.n_guests[1] = 1;
    p.n_guests[2] = 2;
    p.guests[0] = r0;
    p.guests[1] = r1;
    p.guests[2] = r2;
    assert_int_equal(book(&trv_hotel_supplier_b, &up_b, &stay, &o, &pb, &p, unique_ref("grouped"),
                          &b, &err), TRV_UP_OK);
    assert_string_equal(b.status, "CONFIRMED");
    assert_true(b.total_minor == pb.total_minor);
    assert_int_equal(json_array_size(b.rooms), 3);
}

/* LiteAPI books a clientReference once: a book of another prebook under a
 * reference already booked (409 duplicate_booking at the sandbox) is that
 * booking, read by its reference, never a second or a refusal. */
static void a_reference_booked_before_is_that_booking(void **state)
{
    trv_hotel_stay stay = stay_of();
    trv_hotel_offer o = an_offer(&trv_hotel_supplier_a, &up_a, &stay);
    trv_hotel_prebooked pb1 = prebooked(&trv_hotel_supplier_a, &up_a, &stay, &o);
    trv_hotel_prebooked pb2 = prebooked(&trv_hotel_supplier_a, &up_a, &stay, &o);
    trv_hotel_party p = party_of("Lovelace");
    trv_hotel_booked b1, b2;
    trv_hotel_err err = {0};
    const char *ref = unique_ref("a-twice");
    (void)state;
    assert_string_not_equal(pb1.prebook_id, pb2.prebook_id);
    assert_int_equal(book(&trv_hotel_supplier_a, &up_a, &stay, &o, &pb1, &p, ref, &b1, &err),
                     TRV_UP_OK);
    assert_int_equal(book(&trv_hotel_supplier_a, &up_a, &stay, &o, &pb2, &p, ref, &b2, &err),
                     TRV_UP_OK);
    assert_string_equal(b2.booking_id, b1.booking_id);
    assert_string_equal(b2.client_reference, ref);
}

/* A Hotelbeds hotel that binds its price: the offer, the prebook and the
 * booking as the adapter reads it (book's answer and a read) are all at the
 * hotel's price, above the net Hotelbeds invoices (totalNet). */
static void b_bound_booking_is_read_at_its_price(void **state)
{
    trv_hotel_stay stay = stay_of();
    trv_hotel_ctx c = ctx_of(&up_b, "req_hotel_adapters");
    trv_hotel_area area = {"London", "GB", 0, 0, 0, 0};
    trv_hotel_err err = {0};
    apr_array_header_t *found = NULL, *offers = NULL;
    trv_hotel_offer o;
    trv_hotel_prebooked pb;
    trv_hotel_party p = party_of("Lovelace");
    trv_hotel_booked b, r;
    const char *ref = unique_ref("b-bound");
    int i, bound = 0;
    (void)state;
    assert_int_equal(trv_hotel_supplier_b.search(&c, &area, &stay, &found, &err), TRV_UP_OK);
    for (i = 0; i < found->nelts && !bound; i++) {
        const char *sid = APR_ARRAY_IDX(found, i, trv_hotel_found).sid;
        assert_int_equal(trv_hotel_supplier_b.offers(&c, &stay, &sid, 1, 1, &offers, &err),
                         TRV_UP_OK);
        if (offers->nelts) {
            o = APR_ARRAY_IDX(offers, 0, trv_hotel_offer);
            bound = json_is_object(json_object_get(json_array_get(json_object_get(o.doc, "rooms"),
                                                                  0), "minimum_selling_price"));
        }
    }
    assert_true(bound);
    pb = prebooked(&trv_hotel_supplier_b, &up_b, &stay, &o);
    assert_int_equal(book(&trv_hotel_supplier_b, &up_b, &stay, &o, &pb, &p, ref, &b, &err),
                     TRV_UP_OK);
    assert_booked(&b, "CONFIRMED", pb.total_minor);
    assert_int_equal(trv_hotel_supplier_b.retrieve(&c, b.booking_id, NULL, &r, &err), TRV_UP_OK);
    assert_booked(&r, "CONFIRMED", pb.total_minor);
    /* Hotelbeds' own figure is the net, below the hotel's price. */
    {
        const char *q[1] = {b.booking_id};
        char *net = e2e_sql_text("SELECT total_minor::text FROM sandbox.hotel_bookings "
                                 "WHERE supplier = 'B' AND id = $1", 1, q);
        assert_non_null(net);
        assert_true(atoll(net) < pb.total_minor);
        free(net);
    }
}

/* Hotelbeds prices in the account's currency (the sandbox's: EUR) and
 * takes none in the request: a search in another currency finds no hotel
 * priced in it, and asking offers of a hotel gives none — not an error. */
static void b_other_currency_is_no_offer(void **state)
{
    trv_hotel_stay eur = stay_of(), gbp = stay_of();
    trv_hotel_ctx c = ctx_of(&up_b, "req_hotel_adapters");
    trv_hotel_area area = {"London", "GB", 0, 0, 0, 0};
    trv_hotel_err err = {0};
    apr_array_header_t *found = NULL, *offers = NULL;
    const char *sid;
    (void)state;
    strcpy(gbp.currency, "GBP");
    assert_int_equal(trv_hotel_supplier_b.search(&c, &area, &eur, &found, &err), TRV_UP_OK);
    assert_true(found->nelts > 0);
    sid = APR_ARRAY_IDX(found, 0, trv_hotel_found).sid;
    assert_int_equal(trv_hotel_supplier_b.search(&c, &area, &gbp, &found, &err), TRV_UP_OK);
    assert_int_equal(found->nelts, 0);
    assert_int_equal(trv_hotel_supplier_b.offers(&c, &gbp, &sid, 1, 3, &offers, &err),
                     TRV_UP_OK);
    assert_int_equal(offers->nelts, 0);
}

/* Hotelbeds' gateway throttles with a 403 ("Developer Over Qps", the
 * sandbox's 429 fault): the adapter says "try later", not "refused". */
static void b_throttle_is_try_later(void **state)
{
    char rid[96], body[256];
    trv_hotel_stay stay = stay_of();
    trv_hotel_ctx c;
    trv_hotel_area area = {"Paris", "FR", 0, 0, 0, 0};
    trv_hotel_err err = {0};
    apr_array_header_t *found = NULL;
    e2e_resp *r;
    (void)state;
    snprintf(rid, sizeof(rid), "req_hb_qps_%ld_%d", (long)time(NULL), rand() % 100000);
    snprintf(body, sizeof(body), "{\"api\": \"hotel_b\", \"request_id_prefix\": \"%s\", "
             "\"status\": 429, \"times\": 5}", rid);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults",
                 (const char *const[]){"Content-Type: application/json", NULL}, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    c = ctx_of(&up_b, rid);
    assert_int_equal(trv_hotel_supplier_b.search(&c, &area, &stay, &found, &err),
                     TRV_UP_UNAVAILABLE);
    assert_string_equal(err.code, "rate_limited");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_books, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_books, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(c_books, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(failbook, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(async, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(unknown, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_books_equal_rooms_grouped, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_other_currency_is_no_offer, setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_reference_booked_before_is_that_booking, setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(b_bound_booking_is_read_at_its_price, setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(b_throttle_is_try_later, setup, ad_teardown),
    };
    srand((unsigned)e2e_now_ms());
    return E2E_RUN("hotel_adapters", tests);
}
