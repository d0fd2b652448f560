#!/usr/bin/env bash
# Overload: many clients at once on a throwaway development stack, counting
# what a client would see go wrong. Not part of `make test` (it needs a
# minute and the machine to itself); run it by hand:
#
#   tests/bench/overload.sh [CLIENTS] [SECONDS]      (default 200, 60)
#
# Starts PostgreSQL, the sandbox instance and the API instance exactly as
# `make start` configures them (the sandbox's latency realistic: 50-150 ms a
# call), books a few flights, then runs wrk with CLIENTS connections for
# SECONDS, each request in turn one of:
#   list    GET  /v1/flight/bookings?limit=20
#   get     GET  /v1/flight/bookings/{id}
#   offers  POST /v1/flight/offers (LHR-JFK, both suppliers in turn; each a
#           real HTTP call from the API to the sandbox instance)
# and prints the requests, wrk's socket errors (connect, read — a connection
# closed with no answer —, write, timeout), the answers by class (5xx
# counted separately) and the lines httpd logged about running out of
# workers (AH00484). The goal: zero socket errors and zero 5xx.
set -euo pipefail
CLIENTS=${1:-200}
SECS=${2:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-overload.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"
command -v wrk >/dev/null || { echo "wrk is needed (make bench installs it)" >&2; exit 2; }

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
export STACK_PG_FAST=1
# The measure is of closed connections and failures, not of the rate
# limiter: it is off here.
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0
cleanup() {
  "$stack" stop "$dir" >/dev/null 2>&1
  if [ -z "${KEEP:-}" ]; then rm -rf "$dir"; else echo "stack kept in $dir"; fi
}
trap cleanup EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
ctl() { "$root/bin/travelctl" --db "$(cat "$dir/db.conninfo")" "$@" 2>/dev/null | tail -n 1; }
org=$(ctl org create overload)
KEY=$(ctl key create --org "$org" --user overload)
API="http://127.0.0.1:$TRAVEL_PORT/v1"
json() { curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' "$@"; }
field() { grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d'"' -f4; }

echo "booking 5 flights..."
last=""
for i in 1 2 3 4 5; do
  day=$(date -u -d "+$((14 + i)) days" +%F)
  ref=$(json "$API/flight/offers" -d "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"$day\"}],\"passengers\":{\"adults\":1},\"limit\":1,\"supplier\":\"SUPPLIER_A\"}" | field offer_reference)
  id=$(json -H "x-idempotency-key: overload-$i" "$API/flight/prebook" -d "{\"offer_reference\":\"$ref\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"email\":\"ada@example.com\",\"phone_number\":\"5550100\",\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"birthday\":\"1990-01-02\",\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\"}]}" | field id)
  status=$(json "$API/flight/bookings/$id/book" -d '{"payment_instrument_id":"pi_test_visa"}' \
    -o /dev/null -w '%{http_code}')
  [ "$status" = 200 ] || { echo "booking $i: book answered $status" >&2; exit 1; }
  last=$id
done

day=$(date -u -d "+30 days" +%F)
cat >"$dir/mixed.lua" <<LUA
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) n = 0; c2 = 0; c4 = 0; c5 = 0; cother = 0 end
local h = {["x-api-key"] = "$KEY", ["content-type"] = "application/json"}
request = function()
  n = n + 1
  local k = n % 3
  if k == 0 then
    return wrk.format("GET", "/v1/flight/bookings?limit=20", h)
  elseif k == 1 then
    return wrk.format("GET", "/v1/flight/bookings/$last", h)
  end
  local s = (n % 2 == 0) and "SUPPLIER_A" or "SUPPLIER_B"
  return wrk.format("POST", "/v1/flight/offers", h,
    '{"journeys":[{"origin":"LHR","destination":"JFK","date":"$day"}],"passengers":{"adults":1},"limit":20,"supplier":"' .. s .. '"}')
end
response = function(status, headers, body)
  if status >= 500 then c5 = c5 + 1
  elseif status >= 400 then c4 = c4 + 1
  elseif status >= 200 and status < 300 then c2 = c2 + 1
  else cother = cother + 1 end
end
done = function(summary, latency, requests)
  local t2, t4, t5, to = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    t2 = t2 + t:get("c2"); t4 = t4 + t:get("c4"); t5 = t5 + t:get("c5"); to = to + t:get("cother")
  end
  local e = summary.errors
  io.write(string.format("requests answered: %d (%.0f/s)\n", summary.requests, summary.requests / (summary.duration / 1e6)))
  io.write(string.format("socket errors: connect %d, read %d, write %d, timeout %d\n", e.connect, e.read, e.write, e.timeout))
  io.write(string.format("answers: 2xx %d, 4xx %d, 5xx %d, other %d\n", t2, t4, t5, to))
  io.write(string.format("latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
LUA

echo "wrk: $CLIENTS connections for ${SECS}s (list, get, offers in turn)"
wrk -t4 -c"$CLIENTS" -d"${SECS}s" --timeout 30s -s "$dir/mixed.lua" "http://127.0.0.1:$TRAVEL_PORT" \
  | sed -n '/^requests answered/,$p'
echo "httpd (API): $(grep -c 'AH00484' "$dir/httpd-a/error.log" || true) AH00484 (out of workers) lines," \
  "$(awk '$(NF-3) >= 500' "$dir/httpd-a/access.log" | wc -l) answers >= 500 in the access log"
echo "httpd (sandbox): $(grep -c 'AH00484' "$dir/httpd-sandbox/error.log" || true) AH00484 lines," \
  "$(awk '$(NF-3) >= 500' "$dir/httpd-sandbox/access.log" | wc -l) answers >= 500 in the access log"
