#!/usr/bin/env bash
# The read path's cost of TravelDBMode pooled (every statement sent whole
# with PQexecParams, as behind PgBouncer's transaction pooling) against
# direct (labelled statements prepared once per connection), both straight
# to the same PostgreSQL so only the statement form differs.
#
#   tests/bench/db-mode.sh [BOOKINGS] [SECONDS] [ROUNDS]
#
# Starts a throwaway stack with two API instances, d (direct) and p
# (pooled), books BOOKINGS flights (default 10), then runs ab (16
# keep-alive connections, SECONDS each, default 5) on GET
# /v1/flight/bookings/{id} and GET /v1/flight/bookings?limit=20, ROUNDS times
# (default 3), alternating the instances so a busy machine weighs on both
# alike; prints each round and the medians.
set -euo pipefail
BOOKINGS=${1:-10}
SECS=${2:-5}
ROUNDS=${3:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"
. "$root/tests/bench/lib.sh"
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0 STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms"
PORT_P=$(free_port)
cleanup() { "$stack" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" d >/dev/null
TRAVEL_PORT=$PORT_P TRAVEL_DB_MODE=pooled "$stack" httpd-start "$dir" p >/dev/null
ctl() { "$root/bin/travelctl" --db "$(cat "$dir/db.conninfo")" "$@" 2>/dev/null | tail -n 1; }
org=$(ctl org create bench)
KEY=$(ctl key create --org "$org" --user bench)
API="http://127.0.0.1:$TRAVEL_PORT/v1"
last=$(book_flights "$API" "$KEY" "$BOOKINGS")

rate() { # PORT PATH -> req/s (ab), failing on any non-2xx
  local out
  out=$(ab -q -k -c 16 -t "$SECS" -n 10000000 -H "x-api-key: $KEY" "http://127.0.0.1:$1$2" 2>&1)
  if echo "$out" | grep -q '^Non-2xx responses'; then echo "non-2xx answers on $1$2" >&2; exit 1; fi
  echo "$out" | awk '/^Requests per second/ {printf "%d", $4}'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A res
for what in get list; do
  path="/v1/flight/bookings/$last"; [ $what = list ] && path="/v1/flight/bookings?limit=20"
  for port in "$TRAVEL_PORT" "$PORT_P"; do rate "$port" "$path" >/dev/null; done  # warm-up
  for r in $(seq 1 "$ROUNDS"); do
    d=$(rate "$TRAVEL_PORT" "$path"); p=$(rate "$PORT_P" "$path")
    echo "round $r $what: direct $d req/s, pooled $p req/s"
    res[$what-d]+=" $d"; res[$what-p]+=" $p"
  done
done
for what in get list; do
  d=$(echo "${res[$what-d]}" | median); p=$(echo "${res[$what-p]}" | median)
  echo "median $what: direct $d req/s, pooled $p req/s ($(awk -v a="$p" -v b="$d" 'BEGIN {printf "%.2f", a / b}')x)"
done
