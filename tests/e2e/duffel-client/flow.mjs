// Duffel's own client library (@duffel/api) against the sandbox's
// SUPPLIER_A, which speaks Duffel Air API v2:
//   node flow.mjs BASE_PATH TOKEN OUT_DIR
// BASE_PATH is http://127.0.0.1:PORT/suppliers/a/ (the client resolves
// "air/..." against it, so the trailing slash matters).
//
// Runs offer request -> offer with available services -> loyalty account on
// the offer's passenger -> instant order paid from balance (with a bag) ->
// order read -> airline-initiated changes -> the order list (by passenger
// name and reference, with the metadata) -> cancellation quote -> confirm,
// then a hold order paid later through /air/payments, the airlines list
// and one airline, and an error. Any call the client makes that the sandbox
// refuses, or an answer the client cannot read, ends the run with status 1.
// Every answer is written to OUT_DIR/recorded.ts as a constant typed with
// @duffel/api's own types; check.sh runs tsc --strict over it.
import { DuffelError } from '@duffel/api'
import { check, client, daysAhead, recorder, run } from './common.mjs'

const { duffel, outDir } = client()
const { record, write } = recorder()

// Duffel's amounts are decimal strings: add them in integer minor units.
function minor(amount) {
  const [whole, frac = ''] = amount.split('.')
  return { units: BigInt(whole + frac), exp: frac.length }
}
function addAmounts(a, b) {
  const x = minor(a)
  const y = minor(b)
  check(x.exp === y.exp, `amounts ${a} and ${b} in one currency`)
  const s = (x.units + y.units).toString().padStart(x.exp + 1, '0')
  return x.exp ? `${s.slice(0, s.length - x.exp)}.${s.slice(s.length - x.exp)}` : s
}

async function search(origin, destination, days) {
  const { data } = await duffel.offerRequests.create({
    slices: [
      {
        origin,
        destination,
        departure_date: daysAhead(days),
        arrival_time: null,
        departure_time: null,
      },
    ],
    passengers: [{ type: 'adult' }],
    cabin_class: 'economy',
    return_offers: true,
  })
  check(data.offers.length > 0, `offers for ${origin}-${destination}`)
  return data
}

async function main() {
  // Offer request, offers (one page, then all of them through the cursor).
  const orq = record('offerRequest', 'OfferRequest', await search('LHR', 'JFK', 40))
  const page = await duffel.offers.list({ offer_request_id: orq.id, limit: 5 })
  record('offerPage', 'Offer[]', page.data)
  record('offerPageMeta', 'PaginationMeta', page.meta)
  check(page.data.length === Math.min(5, orq.offers.length), 'a page of 5 offers')
  let all = 0
  for await (const o of duffel.offers.listWithGenerator({ offer_request_id: orq.id, limit: 5 })) {
    check(o.data.id.startsWith('off_'), 'an offer id')
    all++
  }
  check(all === orq.offers.length, `every offer through the cursor (${all} of ${orq.offers.length})`)

  // One offer with its services (bags).
  const chosen = orq.offers[0]
  const offer = record('offer', 'Offer',
    (await duffel.offers.get(chosen.id, { return_available_services: true })).data)
  const bag = offer.available_services.find((s) => s.type === 'baggage')
  check(bag, 'a bag for sale')
  const passenger = offer.passengers[0]

  // A loyalty account on the offer's passenger: the offer's price falls.
  const carrier = offer.slices[0].segments[0].marketing_carrier.iata_code
  record('offerPassenger', 'UpdateOfferPassenger', (await duffel.offers.update(offer.id, passenger.id, {
    given_name: 'Ada',
    family_name: 'Lovelace',
    loyalty_programme_accounts: [{ airline_iata_code: carrier, account_number: '12901014' }],
  })).data)
  const member = (await duffel.offers.get(offer.id)).data
  check(Number(member.total_amount) < Number(offer.total_amount), 'a member price')

  // An instant order paid from balance, with the bag.
  const amount = addAmounts(member.total_amount, bag.total_amount)
  const order = record('order', 'Order', (await duffel.orders.create({
    type: 'instant',
    selected_offers: [offer.id],
    passengers: [{
      id: passenger.id,
      title: 'ms',
      gender: 'f',
      given_name: 'Ada',
      family_name: 'Lovelace',
      born_on: '1985-12-10',
      email: 'ada@example.com',
      phone_number: '+442079460000',
      loyalty_programme_accounts: [{ airline_iata_code: carrier, account_number: '12901014' }],
    }],
    services: [{ id: bag.id, quantity: 1 }],
    payments: [{ type: 'balance', amount, currency: member.total_currency }],
    metadata: { booking_id: 'bkg_duffel_client' },
  })).data)
  check(order.total_amount === amount, `the order's total ${order.total_amount} = ${amount}`)
  check(order.services.length === 1 && order.services[0].id === bag.id, 'the bag on the order')
  const read = record('orderRead', 'Order', (await duffel.orders.get(order.id)).data)
  check(read.documents.length > 0 && read.documents[0].type === 'electronic_ticket', 'e-tickets')
  check(read.booking_reference.length === 6, 'a booking reference')
  check(read.payment_status.awaiting_payment === false, 'paid')
  record('airlineInitiatedChanges', 'AirlineInitiatedChange[]',
    (await duffel.airlineInitiatedChanges.list(order.id)).data)
  // How an integrator finds an order whose create answer was lost: the list
  // filtered by passenger name (and here the PNR), matched by metadata.
  const listed = await duffel.orders.list({
    'passenger_name[]': ['lovelace'], booking_reference: read.booking_reference, limit: 200 })
  record('orderList', 'Order[]', listed.data)
  record('orderListMeta', 'PaginationMeta', listed.meta)
  check(listed.data.length === 1 && listed.data[0].id === order.id
    && listed.data[0].metadata.booking_id === 'bkg_duffel_client',
    'the order listed by passenger name and reference, with its metadata')

  // Cancellation: a quote, then its confirmation.
  const quote = record('cancellationQuote', 'OrderCancellationQuote',
    (await duffel.orderCancellations.create({ order_id: order.id })).data)
  check(quote.confirmed_at === null && quote.refund_currency === order.total_currency, 'a quote')
  const confirmed = record('cancellationConfirmed', 'OrderCancellation',
    (await duffel.orderCancellations.confirm(quote.id)).data)
  check(confirmed.confirmed_at && confirmed.refund_amount === quote.refund_amount, 'confirmed')
  record('cancellationRead', 'OrderCancellation', (await duffel.orderCancellations.get(quote.id)).data)
  const cancelled = record('orderCancelled', 'Order', (await duffel.orders.get(order.id)).data)
  check(cancelled.cancelled_at, 'the order is cancelled')

  // A hold order ("hold" in the API reference), paid later.
  const orq2 = await search('CDG', 'FCO', 45)
  const o2 = orq2.offers[0]
  const held = record('orderHeld', 'Order', (await duffel.orders.create({
    type: 'hold',
    selected_offers: [o2.id],
    passengers: [{
      id: o2.passengers[0].id, title: 'mr', gender: 'm', given_name: 'Charles',
      family_name: 'Babbage', born_on: '1971-12-26', email: 'cb@example.com',
      phone_number: '+442079460001',
    }],
  })).data)
  check(held.payment_status.awaiting_payment === true, 'awaiting payment')
  const payment = record('payment', 'Payment', (await duffel.payments.create({
    order_id: held.id,
    payment: { type: 'balance', amount: held.total_amount, currency: held.total_currency },
  })).data)
  check(payment.amount === held.total_amount, 'the payment')
  const paid = record('orderPaid', 'Order', (await duffel.orders.get(held.id)).data)
  check(paid.payment_status.awaiting_payment === false && paid.documents.length > 0, 'ticketed')

  // Airlines.
  const airlines = await duffel.airlines.list({ limit: 50 })
  record('airlines', 'Airline[]', airlines.data)
  check(airlines.data.length === 50 && airlines.meta.after, 'a page of airlines and a cursor')
  record('airline', 'Airline', (await duffel.airlines.get(airlines.data[0].id)).data)

  // An error: the client raises DuffelError with Duffel's errors and meta.
  try {
    await duffel.orders.get('ord_0000000000000000000000')
    check(false, 'an unknown order is refused')
  } catch (e) {
    check(e instanceof DuffelError, `a DuffelError, not ${e}`)
    check(e.errors[0].code === 'not_found' && e.meta.status === 404, 'not_found, status 404')
    record('errors', 'ApiResponseError[]', e.errors)
    record('errorMeta', 'ApiResponseMeta', e.meta)
  }

  const n = write(outDir, 'recorded.ts', HEAD)
  console.log(`duffel client: ${n} answers recorded, every call answered`)
}

// The types the recorded answers are checked against.
const HEAD = `// Generated by flow.mjs: the sandbox's answers as @duffel/api types them.
import type { Duffel } from '@duffel/api'
import type {
  Airline, AirlineInitiatedChange, Offer, OfferRequest, Order, OrderCancellation, Payment,
  PaginationMeta, LoyaltyProgrammeAccount,
} from '@duffel/api/types'
import type { ApiResponseError, ApiResponseMeta } from '@duffel/api/types'
export type Client = Duffel
// A quote is an OrderCancellation not yet confirmed: Duffel answers
// confirmed_at null, where the library's type says string.
type OrderCancellationQuote = Omit<OrderCancellation, 'confirmed_at'> & { confirmed_at: null }
// What PATCH /air/offers/{id}/passengers/{id} answers (the library's
// UpdateOffer names a single account, not the list Duffel answers).
type UpdateOfferPassenger = {
  id: string
  type: 'adult' | 'child' | 'infant_without_seat' | null
  age: number | null
  fare_type: null
  given_name: string
  family_name: string
  loyalty_programme_accounts: LoyaltyProgrammeAccount[]
}
`

run('duffel client', main)
