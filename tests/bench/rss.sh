#!/usr/bin/env bash
# httpd child memory over a million mixed requests (make bench).
#
#   tests/bench/rss.sh [REQUESTS] [BOOKINGS]    (defaults 1000000, 50)
#
# Starts a throwaway stack, books BOOKINGS flights, then sends REQUESTS
# requests with wrk (2 threads, 32 connections) in rounds of 10 s, mixing:
# GET one booking (random), the list (plain, filtered, paged), an unknown
# booking (404), an invalid query (400) and a wrong key (401). After each
# round it records the resident memory (RSS) of every httpd child. Reports
# RSS after the first round (warm) and at the end, per child, and the
# largest change between them: the bar is +/-10 %.
set -euo pipefail
REQUESTS=${1:-1000000}
BOOKINGS=${2:-50}
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
ctl() { "$root/bin/travelctl" --db "$(cat "$dir/db.conninfo")" "$@" 2>/dev/null | tail -n 1; }
org=$(ctl org create bench)
KEY=$(ctl key create --org "$org" --user bench)
API="http://127.0.0.1:$TRAVEL_PORT/v1"
json() { curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' "$@"; }
field() { grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d'"' -f4; }
: >"$dir/ids"
for i in $(seq 1 "$BOOKINGS"); do
  day=$(date -u -d "+$((14 + i % 60)) days" +%F)
  ref=$(json "$API/flight/offers" -d "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"$day\"}],\"passengers\":{\"adults\":1},\"limit\":1}" | field offer_reference)
  id=$(json -H "x-idempotency-key: rss-$i" "$API/flight/prebook" -d "{\"offer_reference\":\"$ref\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"email\":\"ada@example.com\",\"phone_number\":\"5550100\",\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"birthday\":\"1990-01-02\",\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\"}]}" | field id)
  json "$API/flight/bookings/$id/book" -d '{"payment_instrument_id":"pi_test_visa"}' -o /dev/null
  echo "$id" >>"$dir/ids"
done
cat >"$dir/mix.lua" <<LUA
local ids = {}
for l in io.lines("$dir/ids") do ids[#ids + 1] = l end
local n = 0
request = function()
  n = n + 1
  local k, path = n % 10, nil
  local key = "$KEY"
  if k < 5 then path = "/v1/flight/bookings/" .. ids[math.random(#ids)]
  elseif k == 5 then path = "/v1/flight/bookings?limit=20"
  elseif k == 6 then path = "/v1/flight/bookings?limit=5&status=CONFIRMED&created_from=2020-01-01"
  elseif k == 7 then path = "/v1/flight/bookings?limit=10&offset=" .. math.random(40)
  elseif k == 8 then path = "/v1/flight/bookings/bkg_unknown-" .. n
  else
    if n % 20 == 9 then path = "/v1/flight/bookings?limit=0" else
      path = "/v1/flight/bookings"; key = "tk_test_wrong" .. n end
  end
  return wrk.format("GET", path, {["x-api-key"] = key})
end
LUA

rss() { # "pid:kB ..." of the instance's children
  local ppid p out=""
  ppid=$(cat "$dir/httpd-a/httpd.pid")
  for p in $(pgrep -P "$ppid" | sort -n); do out+="$p:$(awk '/^VmRSS/ {print $2}' /proc/$p/status) "; done
  echo "$out"
}
sent=0 round=0 first=""
while [ "$sent" -lt "$REQUESTS" ] && [ "$round" -lt 200 ]; do
  out=$(wrk -t2 -c32 -d10s -s "$dir/mix.lua" "http://127.0.0.1:$TRAVEL_PORT")
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  sent=$((sent + n)); round=$((round + 1))
  now=$(rss)
  [ -z "$first" ] && first=$now
  echo "round $round: $sent requests, child RSS (pid:kB) $now" >&2
done
echo "httpd child RSS over $sent mixed requests ($round rounds of 10 s, wrk -t2 -c32)"
echo "  after round 1: $first"
echo "  at the end:    $now"
for f in $first; do
  pid=${f%%:*} a=${f##*:}
  b=$(tr ' ' '\n' <<<"$now" | awk -F: -v p="$pid" '$1 == p {print $2}')
  if [ -n "$b" ]; then
    awk -v p="$pid" -v a="$a" -v b="$b" 'BEGIN { printf "  child %s: %d kB -> %d kB (%+.1f %%)\n", p, a, b, (b - a) * 100 / a }'
  else
    echo "  child $pid: gone (replaced) by the end"
  fi
done
