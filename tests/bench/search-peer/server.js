// The comparison point for tests/bench/search.sh: how a typical hand-written
// Node gateway would serve the same three search requests against the same
// sandbox suppliers and the same database - the API key looked up by its
// SHA-256, the suppliers asked at once (Promise.all over keep-alive HTTP),
// their answers read with JSON.parse, hotels merged by code or by name,
// postal code and distance, the page's ids kept by the same hotel_map_page
// statement, offer references and cursors sealed with HMAC-SHA-256, and
// JSON.stringify - one worker process per core (node:cluster), a pg pool per
// worker. It serves what the bench asks (a point or a city, hotel_ids,
// flight offers from the first flight supplier) and nothing else: no
// validation beyond what the work needs, no other endpoints.
//
// Environment: PORT, WORKERS, PGHOST, PGPORT, SANDBOX (http://127.0.0.1:N),
// SECRET_FILE (the stack's secret.key, 64 hex digits).
'use strict';
const cluster = require('node:cluster');
const http = require('node:http');
const crypto = require('node:crypto');
const fs = require('node:fs');
const zlib = require('node:zlib');
const { Pool } = require('pg');

const PORT = Number(process.env.PORT || 9091);
const WORKERS = Number(process.env.WORKERS || 2);
const SANDBOX = process.env.SANDBOX || 'http://127.0.0.1:8081';
const SECRET = Buffer.from(fs.readFileSync(process.env.SECRET_FILE, 'utf8').trim(), 'hex');
const CONTENT_TTL_MS = 3600 * 1000;
const OFFER_TTL_S = 30 * 60;
const MATCH_M = 100;

// The stack's supplier lines (conf/stack.conf.in), in registry order.
const HOTELS = [
  { name: 'SUPPLIER_A', kind: 'liteapi', base: `${SANDBOX}/hotels/a/v3.0`, key: 'sandbox-key-hotel-a' },
  { name: 'SUPPLIER_B', kind: 'hotelbeds', base: `${SANDBOX}/hotels/b`, key: 'sandbox-key-hotel-b', secret: 'sandbox-secret-hotel-b' },
  { name: 'SUPPLIER_C', kind: 'rapid', base: `${SANDBOX}/hotels/c/v3`, key: 'sandbox-key-hotel-c', secret: 'sandbox-secret-hotel-c' },
];
const FLIGHT = { name: 'SUPPLIER_A', base: `${SANDBOX}/suppliers/a`, token: 'sandbox-key-a' };

if (cluster.isPrimary) {
  for (let i = 0; i < WORKERS; i++) cluster.fork();
} else {
  worker();
}

// ---- money: integer minor units, never floating point arithmetic ----

function minorOf(v) {
  const s = typeof v === 'number' ? String(v) : v;
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(s || '');
  if (!m) throw new Error(`not an amount: ${v}`);
  const n = Number(m[2]) * 100 + Number((m[3] || '').padEnd(2, '0'));
  return m[1] ? -n : n;
}
function money(minor, currency) {
  const whole = Math.trunc(minor / 100), cents = Math.abs(minor % 100);
  return { amount: cents ? Number(`${minor < 0 && whole === 0 ? '-' : ''}${whole}.${String(cents).padStart(2, '0')}`) : whole, currency };
}
const iso = (s) => new Date(s).toISOString();
const BOARDS = { RO: 'ROOM_ONLY', BB: 'BED_AND_BREAKFAST', HB: 'HALF_BOARD', FB: 'FULL_BOARD', AI: 'ALL_INCLUSIVE' };
const board = (c) => BOARDS[(c || 'RO').toUpperCase()] || (c || 'ROOM_ONLY').toUpperCase();

// ---- sealing (hotel/seal.c, flight/offer_ref.c): tag of 16 bytes + payload ----

function seal(parts, payload) {
  const h = crypto.createHmac('sha256', SECRET);
  for (const p of parts) h.update(`${p}\0`);
  h.update(payload);
  return Buffer.concat([h.digest().subarray(0, 16), Buffer.from(payload)]).toString('base64url');
}

function sortedJson(v) {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

function uuid7() {
  const b = crypto.randomBytes(16);
  const ms = BigInt(Date.now());
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---- hotel merging (hotel/mapping.c) ----

const nameKey = (s) => (s || '').trim().split(/\s+/).join(' ').toLowerCase();
function distanceM(lat1, lon1, lat2, lon2) {
  const r = 6371000, rad = Math.PI / 180;
  const dlat = (lat2 - lat1) * rad, dlon = (lon2 - lon1) * rad;
  const a = Math.sin(dlat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dlon / 2) ** 2;
  return 2 * r * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a));
}
function groupFound(found) {
  const groups = [], byCode = new Map();
  const newGroup = (f) => { const g = { members: [], giata: f.giata, nameKey: nameKey(f.name), cheapest: null }; groups.push(g); return g; };
  const add = (g, f) => { g.members.push(f); if (f.priced && (!g.cheapest || f.total < g.cheapest.total)) g.cheapest = f; };
  const has = (g, s) => g.members.some((m) => m.supplier === s);
  for (const f of found) {
    if (!f.giata) continue;
    const code = `${f.country}:${f.giata}`;
    let g = byCode.get(code);
    if (!g || has(g, f.supplier)) { g = newGroup(f); byCode.set(code, g); }
    add(g, f);
  }
  for (const f of found) {
    if (f.giata) continue;
    const fk = nameKey(f.name);
    const g = groups.find((c) => {
      const m = c.members[0];
      return !has(c, f.supplier) && m.country === f.country && c.nameKey === fk && f.postal
        && m.postal === f.postal && distanceM(m.lat, m.lon, f.lat, f.lon) <= MATCH_M;
    });
    add(g || newGroup(f), f);
  }
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  groups.sort((x, y) => {
    if (!x.cheapest !== !y.cheapest) return x.cheapest ? -1 : 1;
    if (x.cheapest && x.cheapest.total !== y.cheapest.total) return x.cheapest.total - y.cheapest.total;
    const a = x.members[0], b = y.members[0];
    return cmp(x.nameKey, y.nameKey) || cmp(a.country || '', b.country || '') || cmp(a.postal || '', b.postal || '') || cmp(a.sid, b.sid);
  });
  return groups;
}

function worker() {
  const pool = new Pool({ host: process.env.PGHOST, port: Number(process.env.PGPORT), user: 'travel', database: 'travel', max: 8 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const content = new Map();

  function call(method, url, headers, body) {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const h = { accept: 'application/json', ...headers };
      if (data !== undefined) { h['content-type'] = 'application/json'; h['content-length'] = Buffer.byteLength(data); }
      const rq = http.request(url, { method, headers: h, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          // Hotelbeds' answers come gzipped to a client that asks, as the
          // gateway does (Accept-Encoding: gzip, below); decoded here as
          // libcurl decodes them there.
          let buf = Buffer.concat(chunks);
          if (res.headers['content-encoding'] === 'gzip') {
            try { buf = zlib.gunzipSync(buf); } catch (e) { return reject(e); }
          }
          const text = buf.toString('utf8');
          if (res.statusCode !== 200 && res.statusCode !== 201) return reject(new Error(`${url} answered ${res.statusCode}: ${text.slice(0, 200)}`));
          try { resolve(JSON.parse(text)); } catch (e) { reject(e); }
        });
      });
      rq.on('error', reject);
      rq.end(data);
    });
  }
  // Content (hotel lists) is kept in the process, as the gateway keeps it.
  async function callContent(url, headers) {
    const kept = content.get(url);
    if (kept && kept.until > Date.now()) return kept.doc;
    const doc = await call('GET', url, headers);
    content.set(url, { doc, until: Date.now() + CONTENT_TTL_MS });
    return doc;
  }

  const auth = {
    liteapi: (s) => ({ 'x-api-key': s.key }),
    // Hotelbeds and Rapid asked for gzip as the gateway asks them
    // (hotel/suppliers/supplier_b.c, supplier_c.c): the sandbox compresses
    // Hotelbeds' answers for a client that accepts it, so without it the
    // peer's rounds cost the sandbox less than the gateway's.
    hotelbeds: (s) => ({ 'accept-encoding': 'gzip', 'api-key': s.key, 'x-signature': crypto.createHash('sha256').update(`${s.key}${s.secret}${Math.floor(Date.now() / 1000)}`).digest('hex') }),
    rapid: (s) => {
      const ts = Math.floor(Date.now() / 1000);
      return { 'accept-encoding': 'gzip', authorization: `EAN APIKey=${s.key},Signature=${crypto.createHash('sha512').update(`${s.key}${s.secret}${ts}`).digest('hex')},timestamp=${ts}` };
    },
  };
  const rapidOcc = (r) => `${r.adults}${(r.children || []).length ? `-${r.children.join(',')}` : ''}`;
  const hbOcc = (stay) => stay.occupancy.map((r) => ({ rooms: 1, adults: r.adults, children: (r.children || []).length, paxes: (r.children || []).map((age) => ({ type: 'CH', age })) }));
  const liteOcc = (stay) => stay.occupancy.map((r) => ({ adults: r.adults, children: r.children || [] }));

  // ---- search: each supplier's hotels of the area with their cheapest price ----
  const search = {
    async liteapi(s, area, stay) {
      const q = area.latitude !== undefined
        ? `latitude=${area.latitude.toFixed(6)}&longitude=${area.longitude.toFixed(6)}&radius=${area.radius_m}`
        : `countryCode=${encodeURIComponent(area.country_code)}&cityName=${encodeURIComponent(area.city)}`;
      const list = (await callContent(`${s.base}/data/hotels?${q}&limit=500`, auth.liteapi(s))).data;
      const found = list.map((h) => ({ supplier: s.name, sid: h.id, name: h.name, city: h.city, country: h.country, postal: h.zip,
        giata: Number.isInteger(h.giataId) ? String(h.giataId) : null, lat: h.latitude, lon: h.longitude, priced: false, total: 0 }));
      const byId = new Map(found.map((f) => [f.sid, f]));
      for (let k = 0; k < found.length; k += 50) {
        const res = await call('POST', `${s.base}/hotels/rates`, auth.liteapi(s), { hotelIds: found.slice(k, k + 50).map((f) => f.sid),
          checkin: stay.check_in, checkout: stay.check_out, occupancies: liteOcc(stay), currency: stay.currency,
          guestNationality: stay.guest_nationality, maxRatesPerHotel: 1 });
        for (const h of res.data) {
          const f = byId.get(h.hotelId), rate = h.roomTypes && h.roomTypes[0] && h.roomTypes[0].offerRetailRate;
          if (!f || !rate) continue;
          if (rate.currency !== stay.currency) throw new Error('a price in another currency');
          f.total = minorOf(rate.amount); f.priced = true;
        }
      }
      return found;
    },
    async hotelbeds(s, area, stay) {
      const body = { stay: { checkIn: stay.check_in, checkOut: stay.check_out }, occupancies: hbOcc(stay), filter: { maxRatesPerRoom: 1 } };
      if (area.latitude === undefined) throw new Error('the bench searches around a point');
      body.geolocation = { latitude: area.latitude, longitude: area.longitude, radius: area.radius_m / 1000, unit: 'km' };
      const res = await call('POST', `${s.base}/hotel-api/1.0/hotels`, auth.hotelbeds(s), body);
      const list = res.hotels.hotels, info = new Map();
      for (const dc of new Set(list.map((h) => h.destinationCode))) {
        const c = await callContent(`${s.base}/hotel-content-api/1.0/hotels?fields=all&language=ENG&destinationCode=${encodeURIComponent(dc)}&from=1&to=1000`, auth.hotelbeds(s));
        for (const h of c.hotels) info.set(String(h.code), h);
      }
      return list.filter((h) => h.currency === stay.currency).map((h) => {
        const i = info.get(String(h.code)) || {};
        return { supplier: s.name, sid: String(h.code), name: h.name, city: (i.city && i.city.content) || h.destinationName,
          country: i.countryCode, postal: i.postalCode, giata: Number.isInteger(i.giataCode) ? String(i.giataCode) : null,
          lat: Number(h.latitude), lon: Number(h.longitude), ...cheapestOf(h, stay) };
      });
    },
    async rapid(s, area, stay) {
      // As the gateway asks Rapid (hotel/suppliers/supplier_c.c): the
      // property ids of a 24-point polygon around the point, then their
      // content (kept like the gateway's content cache).
      if (area.latitude === undefined) throw new Error('the bench searches around a point');
      const ring = [], dlat = area.radius_m / 111320.0, dlon = dlat / Math.cos(area.latitude * Math.PI / 180.0);
      for (let i = 0; i <= 24; i++) {
        const a = (i % 24) * 2.0 * Math.PI / 24.0;
        ring.push([area.longitude + dlon * Math.cos(a), area.latitude + dlat * Math.sin(a)]);
      }
      const idMap = await call('POST', `${s.base}/properties/geography?include=property_ids&supply_source=expedia`, auth.rapid(s),
        { type: 'Polygon', coordinates: [ring] });
      const pids = Object.keys(idMap).slice(0, 250);
      if (!pids.length) return [];
      const props = await callContent(`${s.base}/properties/content?language=en-US&supply_source=expedia`
        + pids.map((id) => `&property_id=${encodeURIComponent(id)}`).join(''), auth.rapid(s));
      const found = Object.values(props).map((p) => ({ supplier: s.name, sid: p.property_id, name: p.name, city: p.address.city,
        country: p.address.country_code, postal: p.address.postal_code, giata: null,
        lat: p.location.coordinates.latitude, lon: p.location.coordinates.longitude, priced: false, total: 0 }));
      if (!found.length) return found;
      const byId = new Map(found.map((f) => [f.sid, f]));
      const avail = await call('GET', `${s.base}/properties/availability?checkin=${stay.check_in}&checkout=${stay.check_out}&currency=${stay.currency}${rapidSale(stay)}&rate_plan_count=3`
        + stay.occupancy.map((r) => `&occupancy=${encodeURIComponent(rapidOcc(r))}`).join('')
        + found.map((f) => `&property_id=${encodeURIComponent(f.sid)}`).join(''), auth.rapid(s));
      for (const h of avail) {
        const f = byId.get(h.property_id);
        if (!f) continue;
        for (const room of h.rooms || []) for (const rate of room.rates || []) {
          const t = rapidTotal(rate, stay);
          if (!f.priced || t < f.total) { f.total = t; f.priced = true; }
        }
      }
      return found;
    },
  };
  // What Rapid's availability requires beside the stay (as the gateway sends it).
  function rapidSale(stay) {
    const pos = stay.guest_residence || stay.guest_nationality || 'US';
    return `&country_code=${encodeURIComponent(pos)}&language=en-US&sales_channel=website&sales_environment=hotel_only`;
  }
  // A Hotelbeds rate's price to the traveller (supplier_b.c, rate_price):
  // its net, or no less than its sellingRate when the hotel binds the
  // seller (hotelMandatory); the floor -1 when nothing binds.
  function hbPrice(rate) {
    const net = minorOf(rate.net);
    if (rate.hotelMandatory !== true) return { price: net, floor: -1 };
    const floor = minorOf(rate.sellingRate);
    return { price: floor > net ? floor : net, floor };
  }
  // A searched hotel's cheapest price from its rates, as the gateway takes
  // it (hotel_cheapest): not minRate, the cheapest net, which a binding
  // sellingRate may forbid. One occupancy group, as the bench's stays.
  function cheapestOf(h, stay) {
    const g = hbOcc(stay);
    if (g.length !== 1) throw new Error('the peer prices stays of one occupancy group');
    let best = -1;
    for (const room of h.rooms || []) for (const rate of room.rates || []) {
      if (rate.rooms !== g[0].rooms || rate.adults !== g[0].adults || rate.children !== g[0].children) continue;
      const { price } = hbPrice(rate);
      if (best < 0 || price < best) best = price;
    }
    return best < 0 ? { priced: false, total: 0 } : { priced: true, total: best };
  }
  function rapidTotal(rate, stay) {
    let t = 0;
    for (const r of stay.occupancy) {
      const inc = rate.occupancy_pricing[rapidOcc(r)].totals.inclusive.request_currency;
      if (inc.currency !== stay.currency) throw new Error('a price in another currency');
      t += minorOf(inc.value);
    }
    return t;
  }

  // ---- offers: each supplier's offers of its hotels, in the API's shape ----
  const policyOf = (refundable, pens, from, amount) => ({ refundable, penalties: (pens || []).map((p) => ({ from: iso(p[from]), amount: money(minorOf(p[amount]), p.currency || null) })) });
  const offersOf = {
    async liteapi(s, stay, sids, per) {
      const res = await call('POST', `${s.base}/hotels/rates`, auth.liteapi(s), { hotelIds: sids, checkin: stay.check_in, checkout: stay.check_out,
        occupancies: liteOcc(stay), currency: stay.currency, guestNationality: stay.guest_nationality, maxRatesPerHotel: per });
      const out = [];
      for (const h of res.data) for (const o of h.roomTypes || []) {
        const cur = stay.currency, promos = [], merged = new Map();
        const rooms = o.rates.map((rate, i) => {
          const cp = rate.cancellationPolicies || {};
          for (const info of cp.cancelPolicyInfos || []) merged.set(info.cancelTime, (merged.get(info.cancelTime) || 0) + minorOf(info.amount));
          for (const p of rate.promotions || []) addPromo(promos, p.name, Math.abs(minorOf(p.amount)), cur, i);
          return { position: i, name: rate.name, board: board(rate.boardType), board_name: rate.boardName, adults: stay.occupancy[i].adults,
            children: stay.occupancy[i].children || [], total: money(minorOf(rate.retailRate.total[0].amount), cur), due_at_property: null,
            cancellation_policy: { refundable: cp.refundableTag === 'RFN', penalties: (cp.cancelPolicyInfos || []).map((x) => ({ from: iso(x.cancelTime), amount: money(minorOf(x.amount), cur) })) } };
        });
        const total = minorOf(o.offerRetailRate.amount);
        out.push({ sid: h.hotelId, ref: o.offerId, total, doc: { room_type: { code: o.roomTypeId, name: o.rates[0].name }, board: board(o.rates[0].boardType),
          board_name: o.rates[0].boardName, total: money(total, cur),
          cancellation_policy: { refundable: o.rateType === 'RFN', penalties: [...merged.keys()].sort().map((at) => ({ from: iso(at), amount: money(merged.get(at), cur) })) },
          promotions: promos, rooms } });
      }
      return trim(out, per);
    },
    async hotelbeds(s, stay, sids, per) {
      // As hotel/suppliers/supplier_b.c reads them: a rate prices one
      // occupancy group (its rooms, adults, children), at its net or, when
      // the hotel binds the seller (hotelMandatory), no less than its
      // sellingRate; its taxes not included are due at the property, its
      // penalties and price shared among the group's rooms. The bench's
      // stays are one group (one room of 2 adults): a stay of several
      // groups is refused here rather than served differently.
      const groups = hbOcc(stay);
      if (groups.length !== 1) throw new Error('the peer prices stays of one occupancy group');
      const g = groups[0], n = g.rooms, share = (amount, i) => Math.trunc(amount / n) + (i === 0 ? amount % n : 0);
      const res = await call('POST', `${s.base}/hotel-api/1.0/hotels`, auth.hotelbeds(s), { stay: { checkIn: stay.check_in, checkOut: stay.check_out },
        occupancies: groups, hotels: { hotel: sids.map(Number) }, filter: { maxRatesPerRoom: per } });
      const out = [], cur = stay.currency;
      for (const h of res.hotels.hotels || []) {
        if (h.currency !== cur) continue;
        for (const room of h.rooms || []) for (const rate of room.rates || []) {
          if (rate.rooms !== g.rooms || rate.adults !== g.adults || rate.children !== g.children) throw new Error('a rate of another occupancy');
          const { price, floor } = hbPrice(rate);
          const promos = [], refundable = rate.rateClass !== 'NRF';
          const owed = ((rate.taxes && rate.taxes.taxes) || []).filter((t) => !t.included);
          const due = owed.length ? owed.reduce((a, t) => a + minorOf(t.amount), 0) : null;
          for (const e of rate.offers || []) if (e.name) addPromo(promos, e.name, Math.abs(minorOf(e.amount)), cur, 0);
          const rooms = stay.occupancy.map((occ, i) => ({ position: i, name: room.name, board: board(rate.boardCode), board_name: rate.boardName,
            adults: occ.adults, children: occ.children || [],
            total: money(floor < 0 ? share(price, i) : share(floor, i) + share(price - floor, i), cur),
            minimum_selling_price: floor < 0 ? null : money(share(floor, i), cur),
            due_at_property: due === null ? null : money(share(due, i), cur),
            cancellation_policy: { refundable, penalties: (rate.cancellationPolicies || []).map((e) => ({ from: iso(e.from), amount: money(share(minorOf(e.amount), i), cur) })) } }));
          // The offer's policy: the rooms' penalties summed at each instant.
          const merged = new Map();
          for (const r of rooms) for (const p of r.cancellation_policy.penalties) merged.set(p.from, (merged.get(p.from) || 0) + minorOf(String(p.amount.amount)));
          out.push({ sid: String(h.code), ref: JSON.stringify([rate.rateKey]), total: price, doc: { room_type: { code: room.code, name: room.name }, board: board(rate.boardCode),
            board_name: rate.boardName, total: money(price, cur),
            cancellation_policy: { refundable, penalties: [...merged.keys()].sort().map((at) => ({ from: at, amount: money(merged.get(at), cur) })) },
            promotions: promos, rooms } });
        }
      }
      return trim(out, per);
    },
    async rapid(s, stay, sids, per) {
      const res = await call('GET', `${s.base}/properties/availability?checkin=${stay.check_in}&checkout=${stay.check_out}&currency=${stay.currency}${rapidSale(stay)}&rate_plan_count=${per}`
        + stay.occupancy.map((r) => `&occupancy=${encodeURIComponent(rapidOcc(r))}`).join('')
        + sids.map((id) => `&property_id=${encodeURIComponent(id)}`).join(''), auth.rapid(s));
      const out = [], cur = stay.currency;
      for (const h of res) for (const room of h.rooms || []) for (const rate of room.rates || []) {
        const bg = Object.values(rate.bed_groups || {})[0];
        const bd = rate.id && rate.id.includes('-') ? rate.id.slice(rate.id.indexOf('-') + 1) : 'RO';
        const promos = [], deal = rate.promotions && rate.promotions.deal && rate.promotions.deal.description;
        const rooms = stay.occupancy.map((occ, i) => {
          const pr = rate.occupancy_pricing[rapidOcc(occ)], fees = pr.totals.property_fees && pr.totals.property_fees.request_currency;
          for (const e of pr.stay || []) if (e.type === 'promotion') addPromo(promos, deal || 'Promotion', Math.abs(minorOf(e.value)), cur, i);
          return { position: i, name: room.room_name, board: board(bd), board_name: null, adults: occ.adults, children: occ.children || [],
            total: money(minorOf(pr.totals.inclusive.request_currency.value), cur), due_at_property: fees ? money(minorOf(fees.value), cur) : null };
        });
        const total = rapidTotal(rate, stay);
        out.push({ sid: h.property_id, ref: bg.links.price_check.href, total, doc: { room_type: { code: room.id, name: room.room_name }, board: board(bd),
          board_name: null, total: money(total, cur),
          cancellation_policy: { refundable: rate.refundable === true, penalties: (rate.cancel_penalties || []).map((e) => ({ from: iso(e.start), amount: money(minorOf(e.amount), cur) })) },
          promotions: promos, rooms } });
      }
      return trim(out, per);
    },
  };
  function addPromo(promos, name, minor, currency, position) {
    if (!name) return;
    const e = promos.find((p) => p.name === name);
    if (e) { e.amount = money(minorOf(String(e.amount.amount)) + minor, currency); e.room_positions.push(position); } else promos.push({ name, amount: money(minor, currency), room_positions: [position] });
  }
  function trim(offers, per) {
    offers.sort((x, y) => (x.sid < y.sid ? -1 : x.sid > y.sid ? 1 : x.total - y.total || (x.ref < y.ref ? -1 : x.ref > y.ref ? 1 : 0)));
    let run = 0;
    return offers.filter((o, i) => { run = i > 0 && offers[i - 1].sid === o.sid ? run + 1 : 0; return run < per; });
  }
  const occText = (stay) => stay.occupancy.map((r) => `${r.adults}${(r.children || []).length ? `-${r.children.join(',')}` : ''}`).join(';');

  async function hotelSearch(org, body) {
    const area = body.destination, stay = body, limit = body.limit || 20;
    const lists = await Promise.all(HOTELS.map((s) => search[s.kind](s, area, stay)));
    const groups = groupFound(lists.flat()).filter((g) => g.cheapest);
    const page = groups.slice(0, limit);
    let ids = [];
    if (page.length) {
      const doc = page.map((g) => {
        const m = g.members[0];
        return { id: `htl_${uuid7()}`, country_code: m.country, name_key: g.nameKey, postal_code: m.postal || '', giata: g.giata,
          name: m.name, city: m.city, latitude: m.lat, longitude: m.lon, members: g.members.map((f) => ({ supplier: f.supplier, id: f.sid })) };
      });
      ids = (await pool.query('SELECT i, id FROM hotel_map_page($1::jsonb) ORDER BY i', [JSON.stringify(doc)])).rows.map((r) => r.id);
    }
    const data = page.map((g, i) => ({ hotel_id: ids[i], supplier: g.cheapest.supplier, supplier_hotel_id: g.cheapest.sid, name: g.cheapest.name,
      city: g.cheapest.city, country: g.cheapest.country, suppliers: g.members.map((f) => f.supplier), cheapest_price: { total: money(g.cheapest.total, stay.currency) } }));
    const pagination = { limit };
    if (limit < groups.length) {
      const fields = { ...body }; delete fields.cursor; delete fields.limit;
      const digest = crypto.createHash('sha256').update(sortedJson(fields)).digest('hex').slice(0, 32);
      pagination.next_cursor = seal(['hotel-search', org], `${digest}|${limit}`);
    }
    return { data, meta: { supplier: null, pagination } };
  }

  async function hotelOffers(org, body) {
    const stay = body, per = body.max_offers_per_hotel || 5, ids = body.hotel_ids;
    const sellers = (await pool.query('SELECT hotel_id, supplier, supplier_hotel_id FROM hotel_supplier_ids WHERE hotel_id = ANY ($1::text[]) ORDER BY hotel_id, supplier', [ids])).rows;
    const targets = ids.map((id) => {
      for (const s of HOTELS) {
        const r = sellers.find((x) => x.hotel_id === id && x.supplier === s.name);
        if (r) return { hotel_id: id, s, sid: r.supplier_hotel_id };
      }
      return { hotel_id: id, s: null };
    });
    const priced = new Map();
    await Promise.all(HOTELS.map(async (s) => {
      const sids = targets.filter((t) => t.s === s).map((t) => t.sid);
      if (sids.length) priced.set(s.name, await offersOf[s.kind](s, stay, sids, per));
    }));
    const exp = Math.floor(Date.now() / 1000) + OFFER_TTL_S, data = [];
    for (const t of targets) {
      for (const o of (t.s && priced.get(t.s.name)) || []) {
        if (o.sid !== t.sid) continue;
        const payload = `1|${t.s.name}|${o.sid}|${t.hotel_id}|${stay.check_in}|${stay.check_out}|${occText(stay)}|${stay.guest_nationality}|${stay.guest_residence}|${stay.currency}|${o.total}|${exp}|${o.ref}`;
        data.push({ ...o.doc, offer_reference: seal(['hotel-offer', org], payload), hotel_id: t.hotel_id, supplier: t.s.name, supplier_hotel_id: o.sid,
          expires_at: new Date(exp * 1000).toISOString() });
      }
    }
    return { data, meta: null };
  }

  // ---- flight offers: the first flight supplier (Duffel protocol) ----
  const isoMinutes = (s) => {
    const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(s || '');
    return m ? Number(m[1] || 0) * 1440 + Number(m[2] || 0) * 60 + Number(m[3] || 0) : -1;
  };
  const bagQty = (p, type) => ((p && p.baggages) || []).filter((b) => b.type === type).reduce((a, b) => a + b.quantity, 0);
  const penalty = (c) => (c && c.allowed && c.penalty_amount != null ? money(minorOf(c.penalty_amount), c.penalty_currency) : null);
  function apiOffer(o) {
    const first = o.slices[0].origin.iata_code;
    const journeys = o.slices.map((sl, j) => ({ origin: sl.origin.iata_code, destination: sl.destination.iata_code,
      direction: o.slices.length === 2 && j === 1 && first === sl.destination.iata_code ? 'INBOUND' : 'OUTBOUND',
      departure_time: sl.segments[0].departing_at, arrival_time: sl.segments[sl.segments.length - 1].arriving_at,
      duration_minutes: isoMinutes(sl.duration), stops: sl.segments.length - 1,
      segments: sl.segments.map((s) => ({ origin: s.origin.iata_code, destination: s.destination.iata_code, departure_time: s.departing_at,
        arrival_time: s.arriving_at, marketing_flight: `${s.marketing_carrier.iata_code}${s.marketing_carrier_flight_number}`,
        marketing_carrier: s.marketing_carrier.name, marketing_carrier_code: s.marketing_carrier.iata_code, marketing_carrier_logo_url: s.marketing_carrier.logo_symbol_url,
        operating_carrier: s.operating_carrier.name, operating_carrier_code: s.operating_carrier.iata_code, operating_carrier_logo_url: s.operating_carrier.logo_symbol_url,
        duration_minutes: isoMinutes(s.duration), cabin_class: (s.passengers[0].cabin_class || '').toUpperCase() })) }));
    const c = o.conditions || {}, p0 = o.slices[0].segments[0].passengers[0];
    const conds = { refund: { allowed: !!(c.refund_before_departure && c.refund_before_departure.allowed), penalty: penalty(c.refund_before_departure) },
      change: { allowed: !!(c.change_before_departure && c.change_before_departure.allowed), penalty: penalty(c.change_before_departure) } };
    return { offer_reference: o.id, total_amount: money(minorOf(o.total_amount), o.total_currency), expires_at: o.expires_at,
      fare_family: o.slices[0].fare_brand_name, refundable: conds.refund.allowed, fare_conditions: conds,
      documents_required: o.passenger_identity_documents_required === true,
      included_baggage: { checked: bagQty(p0, 'checked') > 0, carry_on: bagQty(p0, 'carry_on') > 0 },
      journeys, total_duration_minutes: journeys.reduce((a, j) => a + j.duration_minutes, 0) };
  }
  async function flightOffers(org, body) {
    const pax = body.passengers || {}, limit = body.limit || 50;
    const passengers = [...Array(pax.adults || 0)].map(() => ({ type: 'adult' }))
      .concat([...Array(pax.children || 0)].map(() => ({ age: 10 })), [...Array(pax.infants || 0)].map(() => ({ age: 1 })));
    const res = await call('POST', `${FLIGHT.base}/air/offer_requests?return_offers=true`, { authorization: `Bearer ${FLIGHT.token}`, 'duffel-version': 'v2' },
      { data: { slices: body.journeys.map((j) => ({ origin: j.origin, destination: j.destination, departure_date: j.date })), passengers, cabin_class: (body.cabin_class || 'economy').toLowerCase() } });
    const all = res.data.offers, data = all.slice(0, limit).map(apiOffer);
    for (const o of data) {
      const exp = o.expires_at ? Math.floor(Date.parse(o.expires_at) / 1000) : 0;
      o.offer_reference = seal([org], `1|${FLIGHT.name}|${pax.adults || 0}|${pax.children || 0}|${pax.infants || 0}|${exp}|${o.offer_reference}`);
    }
    const meta = { supplier: FLIGHT.name, unsupported_filters: [] };
    if (all.length > limit) meta.truncated = true;
    return { data, meta };
  }

  const routes = { '/v1/hotel/search': hotelSearch, '/v1/hotel/offers': hotelOffers, '/v1/flight/offers': flightOffers };
  const send = (res, status, doc) => {
    const body = JSON.stringify(doc);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      try {
        const route = routes[req.url];
        if (req.method !== 'POST' || !route) return send(res, 404, { error: { code: 'not_found', message: 'No such endpoint' } });
        const hash = crypto.createHash('sha256').update(String(req.headers['x-api-key'] || '')).digest('hex');
        const k = await pool.query('SELECT org_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
        if (!k.rows.length) return send(res, 401, { error: { code: 'unauthorized', message: 'The API key is invalid or revoked' } });
        return send(res, 200, await route(k.rows[0].org_id, JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      } catch (e) {
        return send(res, 502, { error: { code: 'supplier_error', message: String(e) } });
      }
    });
  }).listen(PORT, '127.0.0.1');
}
