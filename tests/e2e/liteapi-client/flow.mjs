// LiteAPI's own Node client (npm liteapi-node-sdk) runs the booking flow
// against the sandbox's hotel SUPPLIER_A: hotels -> rates -> prebook (with
// the payment SDK) -> book -> read -> list -> cancel, plus a refused prebook.
// Where to go and which key to use come from GET /sandbox/suppliers, and the
// SDK's service URLs (instance properties) are pointed there. A request the
// sandbox refuses (the SDK answers status "failed"), an answer the SDK cannot
// read (it throws on a body that is not JSON) or an answer that is not in
// LiteAPI's documented shape fails: exit status 1 with the reason.
//
// Usage: node flow.mjs SANDBOX_URL
import liteApi from 'liteapi-node-sdk';

const sandbox = process.argv[2];
let failures = 0;

function check(ok, what, detail) {
    if (!ok) {
        failures++;
        console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
    }
    return ok;
}

function money(v) {
    // LiteAPI writes money as JSON numbers in the major unit.
    return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function day(offset) {
    return new Date(Date.now() + offset * 86400000).toISOString().slice(0, 10);
}

function succeeded(res, what) {
    return check(res && res.status === 'success', `${what} succeeds`, res);
}

async function main() {
    const listing = await (await fetch(`${sandbox}/sandbox/suppliers`)).json();
    const entry = listing.find((e) => e.protocol === 'liteapi');
    if (!check(entry && entry.base_urls && entry.base_urls.book, 'the sandbox lists liteapi',
               listing)) {
        return;
    }
    const sdk = liteApi(entry.test_credentials.api_key);
    sdk.serviceURL = entry.base_url;            // api.liteapi.travel/v3.0
    sdk.bookServiceURL = entry.base_urls.book;  // book.liteapi.travel/v3.0

    // Static data: the hotels of a city.
    const hotels = await sdk.getHotels({countryCode: 'FR', cityName: 'Paris', limit: 20});
    if (!succeeded(hotels, 'getHotels') || !check(Array.isArray(hotels.data)
            && hotels.data.length > 0 && typeof hotels.data[0].id === 'string',
            'getHotels lists hotels with ids', hotels.data)) {
        return;
    }

    // Rates: a refundable offer two months ahead.
    const checkin = day(60), checkout = day(62);
    const rates = await sdk.getFullRates({
        hotelIds: hotels.data.slice(0, 10).map((h) => h.id),
        occupancies: [{adults: 2}], currency: 'EUR', guestNationality: 'FR',
        checkin, checkout,
    });
    if (!succeeded(rates, 'getFullRates')) {
        return;
    }
    // getFullRates hands back the whole body: {data: [{hotelId, roomTypes}]}.
    const list = rates.data && rates.data.data;
    let offer = null, hotelId = null;
    if (!check(Array.isArray(list) && list.length > 0, 'rates list hotels', rates.data)) {
        return;
    }
    for (const h of list) {
        check(typeof h.hotelId === 'string' && Array.isArray(h.roomTypes), 'a hotel has roomTypes',
              h);
        for (const rt of h.roomTypes || []) {
            check(typeof rt.offerId === 'string', 'an offer has an offerId', rt);
            check(rt.offerRetailRate && money(rt.offerRetailRate.amount)
                  && rt.offerRetailRate.currency === 'EUR', 'offerRetailRate is money', rt);
            for (const r of rt.rates || []) {
                check(Array.isArray(r.retailRate && r.retailRate.total)
                      && money(r.retailRate.total[0].amount), 'retailRate.total[0] is money', r);
                check(r.cancellationPolicies && typeof r.cancellationPolicies.refundableTag
                      === 'string', 'a rate has its cancellation policies', r);
            }
            if (!offer && rt.rates && rt.rates.length === 1
                && rt.rates[0].cancellationPolicies.refundableTag === 'RFN') {
                offer = rt;
                hotelId = h.hotelId;
            }
        }
    }
    if (!check(offer !== null, 'a refundable offer is found')) {
        return;
    }

    // A prebook the sandbox must refuse: the SDK reads LiteAPI's error body.
    const refused = await sdk.preBook({offerId: 'not-an-offer'});
    check(refused.status === 'failed' && refused.error && typeof refused.error.message
          === 'string', 'a prebook of an unknown offer is refused with an error body', refused);

    // Prebook with LiteAPI's payment SDK.
    const pre = await sdk.preBook({offerId: offer.offerId, usePaymentSdk: true});
    if (!succeeded(pre, 'preBook')) {
        return;
    }
    const pb = pre.data;
    check(typeof pb.prebookId === 'string' && pb.offerId === offer.offerId
          && pb.hotelId === hotelId, 'the prebook names the offer and hotel', pb);
    check(money(pb.price) && pb.currency === 'EUR', 'the prebook price is money', pb);
    check(typeof pb.transactionId === 'string' && typeof pb.secretKey === 'string',
          'usePaymentSdk gives a transactionId and a secretKey', pb);

    // Book, paid through the payment SDK's transaction.
    const clientReference = `sdk-${process.pid}-${Date.now()}`;
    const guest = {firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com'};
    const booked = await sdk.book({
        prebookId: pb.prebookId, clientReference, holder: guest,
        payment: {method: 'TRANSACTION_ID', transactionId: pb.transactionId},
        guests: [{occupancyNumber: 1, ...guest}],
    });
    if (!succeeded(booked, 'book')) {
        return;
    }
    const bk = booked.data;
    check(typeof bk.bookingId === 'string' && bk.status === 'CONFIRMED'
          && bk.clientReference === clientReference, 'the booking is confirmed', bk);
    check(money(bk.price) && bk.price === pb.price && bk.currency === 'EUR',
          'the booking costs the prebook price', bk);

    // Read it back, and find it by the client reference.
    const read = await sdk.retrieveBooking(bk.bookingId);
    if (succeeded(read, 'retrieveBooking')) {
        check(read.data.bookingId === bk.bookingId && read.data.status === 'CONFIRMED'
              && read.data.hotel && read.data.hotel.hotelId === hotelId
              && Array.isArray(read.data.bookedRooms) && read.data.bookedRooms.length === 1,
              'the booking reads back', read.data);
    }
    const found = await sdk.getBookingsList(clientReference);
    if (succeeded(found, 'getBookingsList')) {
        check(Array.isArray(found.data) && found.data.length === 1
              && found.data[0].bookingId === bk.bookingId, 'the reference finds the booking',
              found.data);
    }

    // Cancel: refundable, two months ahead, so free.
    const cancelled = await sdk.cancelBooking(bk.bookingId);
    if (succeeded(cancelled, 'cancelBooking')) {
        const c = cancelled.data;
        check(c.bookingId === bk.bookingId && c.status === 'CANCELLED'
              && c.cancellation_fee === 0 && c.refund_amount === bk.price
              && c.currency === 'EUR', 'the cancellation refunds the price', c);
    }
    const after = await sdk.retrieveBooking(bk.bookingId);
    if (succeeded(after, 'retrieveBooking after the cancellation')) {
        check(after.data.status === 'CANCELLED', 'the booking reads cancelled', after.data);
    }
}

try {
    await main();
} catch (e) {
    // The SDK throws when an answer is not JSON or the connection fails.
    failures++;
    console.log(`FAIL the client could not complete the flow: ${e && e.stack ? e.stack : e}`);
}
if (failures === 0) {
    console.log('ok: hotels, rates, prebook (payment SDK), book, read, list, cancel');
}
process.exit(failures ? 1 : 0);
