#!/usr/bin/env bash
# Hotel search and offers end to end: mod_travel asking the three sandbox
# hotel suppliers over HTTP on loopback, with mapping and ids in PostgreSQL.
#
#   tests/bench/hotels.sh [SECONDS]        (make bench)
#
# Starts a throwaway stack (its own PostgreSQL cluster, an httpd with
# mod_travel and one with the sandbox, on free ports; sandbox latency 0 so the
# gateway and the suppliers' work are measured, not simulated waiting), then
# runs wrk (2 threads, 16 connections, SECONDS each, default 8) against:
#   search  POST /v1/hotel/search: one page of 20 of a 30-hotel area (the
#           30 of Amsterdam's 40 hotels within 14.5 km of the centre, all
#           three suppliers asked at once, 2 adults, 3 nights)
#   offers  POST /v1/hotel/offers for 10 of those hotels (by htl_ id, up to
#           5 offers each, the same stay)
# The area is checked first: a search of it must answer exactly 30 hotels
# (the sandbox's catalogue is deterministic), else the script fails.
set -euo pipefail
SECS=${1:-8}
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
export STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms"
cleanup() {
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

ci=$(date -u -d "+30 days" +%F)
co=$(date -u -d "+33 days" +%F)
stay="\"check_in\":\"$ci\",\"check_out\":\"$co\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\""
area='"destination":{"latitude":52.3676,"longitude":4.9041,"radius_m":14500}'
search="{$area,$stay,\"limit\":20}"

# The whole area in one answer: 30 hotels, and the ids offers will price.
all=$(curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' "$API/hotel/search" \
  -d "{$area,$stay,\"limit\":50}")
ids=$(echo "$all" | grep -o '"hotel_id":"htl_[^"]*"' | cut -d'"' -f4)
n=$(echo "$ids" | grep -c . || true)
if [ "$n" -ne 30 ]; then
  echo "hotels.sh: the area answered $n hotels, not 30: $(echo "$all" | head -c 300)" >&2
  exit 1
fi
ten=$(echo "$ids" | head -n 10 | sed 's/.*/"&"/' | paste -sd, -)
offers="{\"hotel_ids\":[$ten],$stay,\"max_offers_per_hotel\":5}"
for check in "hotel/search|$search" "hotel/offers|$offers"; do
  status=$(curl -s -o "$dir/check.json" -w '%{http_code}' -H "x-api-key: $KEY" \
    -H 'content-type: application/json' "$API/${check%%|*}" -d "${check#*|}")
  [ "$status" = 200 ] || { echo "hotels.sh: ${check%%|*} answered $status: $(head -c 300 "$dir/check.json")" >&2; exit 1; }
done
pages=$(grep -o '"hotel_id"' "$dir/check.json" | wc -l)
echo "area: 30 hotels; offers of 10 hotels answer $pages offers"

post_script() { # file path body
  cat >"$1" <<LUA
wrk.method = "POST"
wrk.path = "$2"
wrk.headers["x-api-key"] = "$KEY"
wrk.headers["content-type"] = "application/json"
wrk.body = '$3'
LUA
}
post_script "$dir/search.lua" "/v1/hotel/search" "$search"
post_script "$dir/offers.lua" "/v1/hotel/offers" "$offers"

run() { # name url script
  local out
  out=$(wrk -t2 -c16 -d"${SECS}s" --latency -s "$3" "$2")
  printf '%-34s %10s req/s   p50 %8s   p99 %8s\n' "$1" \
    "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
    "$(echo "$out" | awk '$1 == "50%" {print $2}')" \
    "$(echo "$out" | awk '$1 == "99%" {print $2}')"
  if echo "$out" | grep -q "Non-2xx"; then echo "  (non-2xx answers: $(echo "$out" | grep Non-2xx))"; fi
}

echo
echo "mod_travel hotels (httpd event MPM, 2 children x 64 threads; sandbox latency 0)"
run "search (page of 20, 30 hotels)" "$API/hotel/search" "$dir/search.lua"
run "offers (10 hotels, up to 5 each)" "$API/hotel/offers" "$dir/offers.lua"
