// Duffel's own client library (@duffel/api, its Stays resources) against
// the sandbox's Duffel Stays:
//   node stays.mjs BASE_PATH TOKEN OUT_DIR
// search by location -> fetch all rates -> quote -> book -> read ->
// list (two pages) -> cancel -> read, and search by accommodation id. Any call the sandbox
// refuses or any answer the client cannot read ends the run with status 1;
// the answers go to OUT_DIR/stays.ts typed with @duffel/api's Stays types
// (check.sh runs tsc --strict over them).
import { DuffelError } from '@duffel/api'
import { check, client, daysAhead, recorder, run } from './common.mjs'

const { duffel, outDir } = client()
const { record, write } = recorder()

async function main() {
  const stay = {
    check_in_date: daysAhead(30),
    check_out_date: daysAhead(33),
    rooms: 1,
    guests: [{ type: 'adult' }, { type: 'adult' }],
  }
  // Around London (the sandbox's hotels stand around its airports), 50 km.
  const search = record('search', 'StaysSearchResponse', (await duffel.stays.search({
    ...stay,
    location: { radius: 50, geographic_coordinates: { latitude: 51.5072, longitude: -0.1276 } },
  })).data)
  check(search.results.length > 0, 'accommodation near London')
  const result = search.results[0]
  check(result.cheapest_rate_currency === 'GBP', `prices in GBP, not ${result.cheapest_rate_currency}`)

  const all = record('allRates', 'StaysSearchResult',
    (await duffel.stays.searchResults.fetchAllRates(result.id)).data)
  const rates = all.accommodation.rooms.flatMap((r) => r.rates)
  check(rates.length > 0, 'rates')
  const cheapest = rates.reduce((a, b) => (Number(a.total_amount) <= Number(b.total_amount) ? a : b))
  check(cheapest.total_amount === result.cheapest_rate_total_amount,
    `the cheapest rate ${cheapest.total_amount} is the result's ${result.cheapest_rate_total_amount}`)

  const quote = record('quote', 'StaysQuote', (await duffel.stays.quotes.create(cheapest.id)).data)
  check(quote.total_amount === cheapest.total_amount, 'the quote keeps the rate\'s price')
  record('quoteRead', 'StaysQuote', (await duffel.stays.quotes.get(quote.id)).data)

  const booking = record('booking', 'StaysBooking', (await duffel.stays.bookings.create({
    quote_id: quote.id,
    guests: [{ given_name: 'Ada', family_name: 'Lovelace' }, { given_name: 'Charles', family_name: 'Babbage' }],
    email: 'ada@example.com',
    phone_number: '+442079460000',
    metadata: { booking_id: 'hbk_duffel_stays' },
  })).data)
  check(booking.status === 'confirmed' && booking.reference, 'a confirmed booking')
  check(booking.accommodation.id === result.accommodation.id, 'the accommodation booked')
  const read = record('bookingRead', 'StaysBooking', (await duffel.stays.bookings.get(booking.id)).data)
  check(read.id === booking.id && read.guests.length === 2, 'the booking read back')
  // A quote books once.
  try {
    await duffel.stays.bookings.create({
      quote_id: quote.id, guests: [{ given_name: 'Ada', family_name: 'Lovelace' }],
      email: 'ada@example.com', phone_number: '+442079460000',
    })
    check(false, 'a second booking of one quote is refused')
  } catch (e) {
    check(e instanceof DuffelError && e.errors[0].code === 'quote_already_booked', `refused: ${e}`)
  }
  // The list, a page at a time (the gateway finds a booking whose answer
  // was lost there, by its metadata): a second booking (a new quote of the
  // rate) makes two pages of one, whatever else the sandbox holds.
  const again = (await duffel.stays.quotes.create(cheapest.id)).data
  const second = (await duffel.stays.bookings.create({
    quote_id: again.id, guests: [{ given_name: 'Ada', family_name: 'Lovelace' }],
    email: 'ada@example.com', phone_number: '+442079460000',
  })).data
  check(second.id !== booking.id, 'a second quote books a second booking')
  const page = await duffel.stays.bookings.list({ limit: 1 })
  record('bookingList', 'StaysBooking[]', page.data)
  check(page.data.length === 1, 'a page of one booking')
  check(typeof page.meta.after === 'string', 'a cursor to the next page')
  const next = await duffel.stays.bookings.list({ limit: 1, after: page.meta.after })
  check(next.data.length === 1 && next.data[0].id !== page.data[0].id, 'the next page goes on')
  const cancelled = record('bookingCancelled', 'StaysBooking',
    (await duffel.stays.bookings.cancel(booking.id)).data)
  check(cancelled.status === 'cancelled' && cancelled.cancelled_at, 'cancelled')
  check((await duffel.stays.bookings.get(booking.id)).data.status === 'cancelled', 'still cancelled')

  // By accommodation id.
  const byId = record('searchById', 'StaysSearchResponse', (await duffel.stays.search({
    ...stay,
    accommodation: { ids: [result.accommodation.id] },
  })).data)
  check(byId.results.length === 1 && byId.results[0].accommodation.id === result.accommodation.id,
    'the accommodation by its id')

  const n = write(outDir, 'stays.ts', HEAD)
  console.log(`duffel stays client: ${n} answers recorded, every call answered`)
}

const HEAD = `// Generated by stays.mjs: the sandbox's Stays answers as @duffel/api types them.
import type { Duffel } from '@duffel/api'
import type {
  StaysBooking, StaysQuote, StaysSearchResponse, StaysSearchResult,
} from '@duffel/api/Stays/StaysTypes'
export type Client = Duffel
`

run('duffel stays client', main)
