// The comparison point for tests/bench/api.sh: how a typical hand-written
// Node gateway would serve the same two reads on the same database - the API
// key looked up by its SHA-256, the same queries, JSON.stringify - with one
// worker process per core (node:cluster) and a pg pool per worker.
'use strict';
const cluster = require('node:cluster');
const http = require('node:http');
const crypto = require('node:crypto');
const { Pool } = require('pg');

const PORT = Number(process.env.PORT || 9090);
const WORKERS = Number(process.env.WORKERS || 2);

if (cluster.isPrimary) {
  for (let i = 0; i < WORKERS; i++) cluster.fork();
} else {
  const pool = new Pool({ host: process.env.PGHOST, port: Number(process.env.PGPORT), user: 'travel', database: 'travel', max: 8 });
  const money = (a, c) => (a == null ? null : { amount: Number(a), currency: c });
  const send = (res, status, doc) => {
    const body = JSON.stringify(doc);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const render = (b, pays, full) => ({
    id: b.id, supplier: b.supplier, status: b.status,
    total_amount: money(b.total_amount, b.currency), fare_amount: money(b.fare_amount, b.currency),
    fare_tax_amount: money(b.fare_tax_amount, b.currency), services_amount: money(b.services_amount, b.currency),
    services: b.services,
    payments: pays.filter((p) => p.booking_id === b.id).map((p) => ({
      id: p.id, status: p.status, amount: money(p.amount, p.currency), collected_by: p.collected_by,
      ...(full ? { payment_method: p.card ? { type: 'CARD', card: p.card } : null } : {}), created_at: p.created_at })),
    expires_at: b.expires_at, cancellation_policy: b.cancellation_policy, fare_conditions: b.fare_conditions,
    passengers: b.passengers, journeys: b.journeys, supplier_reference: b.supplier_reference, airline_pnr: b.airline_pnr,
    confirmed_at: b.confirmed_at, canceled_at: b.canceled_at, cancellation: b.cancellation, failure: b.failure,
    airline_initiated_changes: b.airline_initiated_changes || [], created_at: b.created_at, updated_at: b.updated_at,
  });

  http.createServer(async (req, res) => {
    try {
      const key = req.headers['x-api-key'];
      const hash = crypto.createHash('sha256').update(String(key || '')).digest('hex');
      const k = await pool.query('SELECT org_id, user_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
      if (!k.rows.length) return send(res, 401, { error: { code: 'unauthorized', message: 'The API key is invalid or revoked' } });
      const { org_id, user_id } = k.rows[0];
      const url = new URL(req.url, 'http://localhost');
      const one = url.pathname.match(/^\/v1\/flight\/bookings\/(bkg_[A-Za-z0-9-]+)$/);
      if (one) {
        const r = await pool.query('SELECT * FROM flight_bookings WHERE id = $1 AND org_id = $2 AND user_id = $3', [one[1], org_id, user_id]);
        if (!r.rows.length) return send(res, 404, { error: { code: 'not_found', message: 'No such booking' } });
        const pays = (await pool.query('SELECT * FROM flight_payments WHERE booking_id = $1', [one[1]])).rows;
        return send(res, 200, { data: render(r.rows[0], pays, true) });
      }
      if (url.pathname !== '/v1/flight/bookings') return send(res, 404, { error: { code: 'not_found', message: 'No such endpoint' } });
      const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') || 20)));
      const offset = Math.max(0, Number(url.searchParams.get('offset') || 0));
      await pool.query("UPDATE flight_bookings SET status = 'EXPIRED' WHERE org_id = $1 AND user_id = $2 AND status = 'READY_FOR_COMPLETE' AND expires_at <= now()", [org_id, user_id]);
      const r = await pool.query('WITH f AS (SELECT * FROM flight_bookings WHERE org_id = $1 AND user_id = $2), t AS (SELECT count(*) AS total FROM f) '
        + 'SELECT t.total, p.* FROM t LEFT JOIN LATERAL (SELECT * FROM f ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4) p ON true', [org_id, user_id, limit, offset]);
      const total = Number(r.rows[0].total);
      const rows = r.rows[0].id ? r.rows : [];
      const pays = rows.length ? (await pool.query('SELECT * FROM flight_payments WHERE booking_id = ANY($1)', [rows.map((b) => b.id)])).rows : [];
      return send(res, 200, { data: rows.map((b) => render(b, pays, false)), meta: { pagination: { limit, offset, has_more: offset + rows.length < total, total } } });
    } catch (e) {
      return send(res, 500, { error: { code: 'internal_error', message: String(e) } });
    }
  }).listen(PORT, '127.0.0.1');
}
