#!/usr/bin/env bash
# API throughput of mod_travel against a Node gateway doing the same work.
#
#   tests/bench/api.sh [BOOKINGS] [SECONDS]        (make bench)
#
# Starts a throwaway stack (its own PostgreSQL cluster, an httpd with
# mod_travel and one with the sandbox, on free ports; sandbox latency 0 so the
# gateway, not the simulated supplier, is measured), books BOOKINGS flights
# (default 40) through the API, then runs wrk (2 threads, 16 connections,
# SECONDS each, default 8) against:
#   list    GET /v1/flight/bookings?limit=20
#   get     GET /v1/flight/bookings/{id}
#   airline GET /v1/flight/airlines?q=air&limit=20
#   offers  POST /v1/flight/offers (LHR-JFK, both suppliers in turn)
# and the same list and get on tests/bench/node-baseline (node:cluster with
# one worker per core, a pg pool each, the same queries) on the same
# database. Everything shares the machine's cores with PostgreSQL and wrk.
set -euo pipefail
BOOKINGS=${1:-40}
SECS=${2:-8}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"

used=" "
free_port() {
  local p
  while :; do
    # Below the kernel's ephemeral range (32768-60999): a port picked there
    # may be taken by an outgoing connection before httpd binds it.
    p=$(( 20000 + RANDOM % 12000 ))
    [[ $used == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then used+="$p "; echo "$p"; return; fi
  done
}
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
# Throughput is measured, not the rate limiter.
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0
NODE_PORT=$(free_port)
export STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms"
node_pid=""
cleanup() {
  [ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null
  "$stack" stop "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
ctl() { "$root/bin/travelctl" --db "$(cat "$dir/db.conninfo")" "$@" 2>/dev/null | tail -n 1; }
org=$(ctl org create bench)
KEY=$(ctl key create --org "$org" --user bench)
API="http://127.0.0.1:$TRAVEL_PORT/v1"
json() { curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' "$@"; }
field() { grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d'"' -f4; }

echo "booking $BOOKINGS flights through the API..."
last=""
for i in $(seq 1 "$BOOKINGS"); do
  day=$(date -u -d "+$((14 + i % 60)) days" +%F)
  ref=$(json "$API/flight/offers" -d "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"$day\"}],\"passengers\":{\"adults\":1},\"limit\":1}" | field offer_reference)
  id=$(json -H "x-idempotency-key: bench-$i" "$API/flight/prebook" -d "{\"offer_reference\":\"$ref\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"email\":\"ada@example.com\",\"phone_number\":\"5550100\",\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"birthday\":\"1990-01-02\",\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\"}]}" | field id)
  status=$(json "$API/flight/bookings/$id/book" -d '{"payment_instrument_id":"pi_test_visa"}' \
    -o /dev/null -w '%{http_code}')
  [ "$status" = 200 ] || { echo "booking $i: book answered $status" >&2; exit 1; }
  last=$id
done

day=$(date -u -d "+30 days" +%F)
cat >"$dir/offers.lua" <<LUA
local n = 0
request = function()
  n = n + 1
  local s = (n % 2 == 0) and "SUPPLIER_A" or "SUPPLIER_B"
  return wrk.format("POST", "/v1/flight/offers", {["x-api-key"] = "$KEY", ["content-type"] = "application/json"},
    '{"journeys":[{"origin":"LHR","destination":"JFK","date":"$day"}],"passengers":{"adults":1},"limit":20,"supplier":"' .. s .. '"}')
end
LUA

run() { # name url [script]
  local out
  if [ -n "${3:-}" ]; then
    out=$(wrk -t2 -c16 -d"${SECS}s" --latency -s "$3" "$2")
  else
    out=$(wrk -t2 -c16 -d"${SECS}s" --latency -H "x-api-key: $KEY" "$2")
  fi
  printf '%-28s %10s req/s   p50 %8s   p99 %8s\n' "$1" \
    "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    "$(echo "$out" | awk '$1 == "50%" {print $2}')" \
    "$(echo "$out" | awk '$1 == "99%" {print $2}')"
  if echo "$out" | grep -q "Non-2xx"; then echo "  (non-2xx answers: $(echo "$out" | grep Non-2xx))"; fi
}

echo
echo "mod_travel (httpd event MPM, 2 children x 64 threads, DBDMax 6 per child)"
run "list (20 bookings)" "$API/flight/bookings?limit=20"
run "get one booking" "$API/flight/bookings/$last"
run "airline search" "$API/flight/airlines?q=air&limit=20"
run "offers (sandbox, 20 fares)" "$API/flight/offers" "$dir/offers.lua"

if command -v node >/dev/null && (cd "$root/tests/bench/node-baseline" && npm ci --no-audit --no-fund >/dev/null 2>&1); then
  PGHOST="$dir/pgrun" PGPORT=$TRAVEL_PG_PORT PORT=$NODE_PORT WORKERS=$(nproc) \
    node "$root/tests/bench/node-baseline/server.js" &
  node_pid=$!
  for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$NODE_PORT/" && break; sleep 0.1; done
  echo
  echo "Node baseline (node:cluster, $(nproc) workers, pg pool of 8 each, same queries)"
  run "list (20 bookings)" "http://127.0.0.1:$NODE_PORT/v1/flight/bookings?limit=20"
  run "get one booking" "http://127.0.0.1:$NODE_PORT/v1/flight/bookings/$last"
else
  echo "(node or the baseline's npm packages are missing: no Node comparison)"
fi
