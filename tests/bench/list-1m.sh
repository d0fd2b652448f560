#!/usr/bin/env bash
# The bookings list at a million rows of one user (make bench).
#
#   tests/bench/list-1m.sh [ROWS] [SECONDS]      (ROWS default 1000000)
#
# Starts a throwaway stack, books one flight through the API and copies
# that booking by SQL (new ids, references and creation times spread over
# two years; statuses mixed) to 10,000 bookings of the same user, measures
# three list requests, grows the same user to ROWS bookings and measures
# them again:
#   first     GET /v1/flight/bookings?limit=20
#   filtered  ...&status=CONFIRMED&created_from=2025-06-01&created_to=2025-08-31
#   deep      GET /v1/flight/bookings?limit=20&offset=10000
# Each is wrk with 1 thread and 2 connections for SECONDS (default 5), after
# the page's bookings have their renderings stored and a second of warm-up.
# The figure that counts is the p50 at ROWS against the p50 at 10,000.
# Reads never store renderings: every change to a booking queues a render
# job (sql/045). The seed's copies are written with that trigger off (a
# million render jobs would keep the workers busy through the measurement);
# the bookings of each measured page get their render jobs queued by hand,
# what the trigger would have done, and the script waits for them.
set -euo pipefail
ROWS=${1:-1000000}
SECS=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"

used=" "
free_port() {
  local p
  while :; do
    p=$(( 20000 + RANDOM % 40000 ))
    [[ $used == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then used+="$p "; echo "$p"; return; fi
  done
}
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
export STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms"
# No rate limit: every request of the measurement is one key from 127.0.0.1.
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0
trap '"$stack" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
psql() { "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U travel -d travel -qtAX -v ON_ERROR_STOP=1 "$@"; }
ctl() { "$root/bin/travelctl" --db "$(cat "$dir/db.conninfo")" "$@" 2>/dev/null | tail -n 1; }
org=$(ctl org create bench)
KEY=$(ctl key create --org "$org" --user bench)
API="http://127.0.0.1:$TRAVEL_PORT/v1"
json() { curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' "$@"; }
field() { grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d'"' -f4; }

day=$(date -u -d "+30 days" +%F)
ref=$(json "$API/flight/offers" -d "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"$day\"}],\"passengers\":{\"adults\":1},\"limit\":1}" | field offer_reference)
tpl=$(json -H "x-idempotency-key: bench-template" "$API/flight/prebook" -d "{\"offer_reference\":\"$ref\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"email\":\"ada@example.com\",\"phone_number\":\"5550100\",\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"birthday\":\"1990-01-02\",\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\"}]}" | field id)
code=$(json "$API/flight/bookings/$tpl/book" -d '{"payment_instrument_id":"pi_test_visa"}' -o /dev/null -w '%{http_code}')
[ "$code" = 200 ] || { echo "booking the template answered $code" >&2; exit 1; }

# Copies of the template numbered by the series in $1 (SQL over i): every
# column of the template but those that make a booking itself. Copy i is
# created SPAN/ROWS after copy i-1, so ROWS copies span two years and every
# (ROWS/10,000)-th of them spans the same two years.
seed() {
  psql -v tpl="$tpl" -v rows="$ROWS" <<SQL
ALTER TABLE flight_bookings DISABLE TRIGGER flight_bookings_render_insert;
SELECT string_agg(quote_ident(column_name), ', ') AS cols FROM information_schema.columns
 WHERE table_name = 'flight_bookings' AND column_name NOT IN ('id', 'status',
   'idempotency_key', 'supplier_reference', 'airline_pnr', 'created_at', 'updated_at',
   'revision', 'offer_reference') \gset
INSERT INTO flight_bookings (id, status, idempotency_key, supplier_reference, airline_pnr,
                             offer_reference, created_at, updated_at, :cols)
SELECT 'bkg_seed_' || i,
       (ARRAY['CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED',
              'CONFIRMED', 'CANCELED', 'FAILED', 'EXPIRED'])[1 + abs(hashint4(i::int)) % 10],
       'seed-' || i, 'SEED-' || i, 'PNR' || i, 'seed-offer-' || i,
       timestamptz '2025-01-01T00:00:00Z' + i * (interval '730 days' / :rows),
       timestamptz '2025-01-01T00:00:00Z' + i * (interval '730 days' / :rows), :cols
  FROM flight_bookings t, ($1) s WHERE t.id = :'tpl';
ALTER TABLE flight_bookings ENABLE TRIGGER flight_bookings_render_insert;
SQL
  psql -c "VACUUM ANALYZE flight_bookings" -c "VACUUM ANALYZE flight_booking_counts"
  # The seed's gigabytes are written out now, not during the measurement.
  "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U postgres -d travel -qtAX -c "CHECKPOINT"
}

# Queues the render jobs of the bookings listed at $1, as the seed's
# trigger would have, and waits (at most 60 s) until the workers ran them.
render_page() {
  local ids i
  ids=$(curl -s -H "x-api-key: $KEY" "$1" | { grep -o '"id":"bkg_[^"]*"' || true; } | cut -d'"' -f4 | paste -sd, -)
  psql -v ids="{$ids}" <<'SQL'
INSERT INTO jobs (kind, payload, max_attempts, dedupe_key)
SELECT 'flight.booking.render',
       jsonb_build_object('id', b.id, 'request_id', '-', 'revision', b.revision), 5,
       'flight.booking.render:' || b.id || ':' || b.revision
  FROM flight_bookings b WHERE b.id = ANY (:'ids'::text[])
ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL
    AND status IN ('queued', 'running') DO NOTHING;
SQL
  for i in $(seq 600); do
    [ "$(psql -c "SELECT count(*) FROM jobs WHERE kind = 'flight.booking.render' AND status <> 'dead'")" = 0 ] && return
    sleep 0.1
  done
  echo "render jobs still queued after 60 s" >&2
  exit 1
}

measure() {
  local label=$1 name url out total
  for name in first filtered deep; do
    case $name in
      first) url="$API/flight/bookings?limit=20" ;;
      filtered) url="$API/flight/bookings?limit=20&status=CONFIRMED&created_from=2025-06-01&created_to=2025-08-31" ;;
      deep) url="$API/flight/bookings?limit=20&offset=10000" ;;
    esac
    render_page "$url"
    total=$(curl -s -H "x-api-key: $KEY" "$url" | grep -o '"total":[0-9]*' | cut -d: -f2)
    # Warm: every pooled connection has prepared the statement (and
    # compiled the total's function) before the measured run.
    wrk -t1 -c2 -d1s -H "x-api-key: $KEY" "$url" >/dev/null
    out=$(wrk -t1 -c2 -d"${SECS}s" --latency -H "x-api-key: $KEY" "$url")
    printf '%-12s %-9s total %8s %9s req/s   p50 %9s   p99 %9s %s\n' "$label" "$name" \
      "$total" "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
      "$(echo "$out" | awk '$1 == "50%" {print $2}')" \
      "$(echo "$out" | awk '$1 == "99%" {print $2}')" \
      "$(echo "$out" | grep -o 'Non-2xx.*' || true)"
  done
}

step=$(( ROWS / 10000 ))
echo "list at 10,000 and $ROWS bookings of one user (wrk -t1 -c2, ${SECS}s each; the template booking adds 1)"
seed "SELECT i FROM generate_series($step, $ROWS, $step) i"
measure "10,000"
seed "SELECT i FROM generate_series(1, $ROWS) i WHERE i % $step <> 0"
measure "$ROWS"
