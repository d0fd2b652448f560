#!/usr/bin/env bash
# Searches and price watches against a supplier that answers 429 past a
# rate, through the supplier call budget (docs/configuration.md, "Supplier
# call budgets").
#
#   tests/bench/budget.sh [SECONDS] [RATE]              (make bench)
#
# Starts a throwaway stack (its own PostgreSQL cluster, the sandbox and one
# httpd instance, sandbox latency 0) whose supplier lines carry
# max_calls_per_second=BUDGET (TRAVEL_SUPPLIER_BUDGET; default RATE less a
# fifth, since a call counted at the end of one of the gateway's seconds may
# reach the sandbox in its next one), and tells the sandbox to answer hotel
# SUPPLIER_A (LiteAPI) with 429 (Retry-After: 1) past RATE calls a second
# (default 10), whoever calls (a rate fault, docs/sandbox.md). WATCHES price
# watches (BUDGET_WATCHES, default 200, on hotel-stays SUPPLIER_A prices, due every 2 s)
# are checked while wrk (2 threads, 8 connections, SECONDS, default 20)
# sends hotel searches of a 30-hotel area with random dates, the three
# hotel suppliers asked at once. Then the load stops and every watch must
# be checked again within 60 s.
#
# Reports: searches answered, by status (the 5xx count must be 0: no
# supplier 429 reaches the client as a 5xx), searches that left SUPPLIER_A
# out (meta.unanswered_suppliers: the budget was spent), the 429s the
# sandbox answered, the calls the budget kept from the supplier, watch
# checks deferred and done, and lost checks: watch.price jobs dead, and
# watches not checked again after the load (must be 0).
set -euo pipefail
SECS=${1:-20}
RATE=${2:-10}
WATCHES=${BUDGET_WATCHES:-200}
BUDGET=${TRAVEL_SUPPLIER_BUDGET:-$((RATE * 4 / 5))}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/bench/lib.sh"
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"

export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0 STACK_PG_FAST=1
export TRAVEL_SANDBOX_LATENCY="0ms 0ms" TRAVEL_WATCH_INTERVAL=2 TRAVEL_JOB_POLL=100ms
# TRAVEL_SUPPLIER_BUDGET=0: no budget (the control run: the sandbox's 429s
# meet the supplier limit handling alone).
if [ "$BUDGET" -gt 0 ]; then export TRAVEL_SUPPLIER_BUDGET=$BUDGET; else unset TRAVEL_SUPPLIER_BUDGET; fi
trap '"$stack" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
db=$(cat "$dir/db.conninfo")
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
psql() { "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U travel -d travel -qtAX "$@"; }
API="http://127.0.0.1:$TRAVEL_PORT"
SBX="http://127.0.0.1:$TRAVEL_SANDBOX_PORT"
org=$("$root/bin/travelctl" --db "$db" org create bench | tail -n 1)
KEY=$("$root/bin/travelctl" --db "$db" key create --org "$org" --user bench 2>/dev/null | tail -n 1)
user=$(psql -c "SELECT user_id FROM api_keys WHERE org_id = '$org' LIMIT 1")
occ='"occupancy":[{"adults":2}],"guest_nationality":"GB","guest_residence":"GB","currency":"EUR"'
area='"destination":{"latitude":52.3676,"longitude":4.9041,"radius_m":14500}'

# Hotels with htl_ ids (the area's and London's), before any fault.
for dest in "$area" '"destination":{"city":"London","country_code":"GB"}'; do
  curl -sf -o /dev/null -H "x-api-key: $KEY" -H 'content-type: application/json' \
    -d "{$dest,\"check_in\":\"$(date -u -d '+30 days' +%F)\",\"check_out\":\"$(date -u -d '+32 days' +%F)\",$occ,\"limit\":50}" \
    "$API/v1/hotel/search"
done
# WATCHES watches over 40 SUPPLIER_A hotels x 5 stays; the trigger never fires.
psql -c "WITH h AS (SELECT hotel_id, row_number() OVER (ORDER BY hotel_id) - 1 AS n
                      FROM (SELECT DISTINCT hotel_id FROM hotel_supplier_ids
                             WHERE supplier = 'SUPPLIER_A') x ORDER BY hotel_id LIMIT 40),
  w AS (SELECT i, i % 200 AS hs FROM generate_series(0, $WATCHES - 1) i)
  INSERT INTO watches (id, org_id, user_id, kind, status, hotel_id, check_in, check_out,
                       occupancy, currency, guest_nationality, guest_residence, stay_key,
                       trigger_type, trigger_minor, next_check_at)
  SELECT 'wtc_budget-' || w.i, '$org', '$user', 'price', 'active', h.hotel_id,
         (now() AT TIME ZONE 'UTC')::date + 20 + (w.hs / 40)::int,
         (now() AT TIME ZONE 'UTC')::date + 22 + (w.hs / 40)::int,
         '[{\"adults\": 2}]', 'EUR', 'GB', 'GB',
         to_char((now() AT TIME ZONE 'UTC')::date + 20 + (w.hs / 40)::int, 'YYYY-MM-DD')
           || '|' || to_char((now() AT TIME ZONE 'UTC')::date + 22 + (w.hs / 40)::int,
           'YYYY-MM-DD') || '|2|EUR|GB|GB',
         'below_total', 1, now()
    FROM w JOIN h ON h.n = w.hs % 40"
watches=$(psql -c "SELECT count(*) FROM watches WHERE id LIKE 'wtc_budget-%'")

# The supplier answers 429 past RATE calls a second.
curl -sf -o /dev/null -H 'content-type: application/json' "$SBX/sandbox/faults" -d \
  "{\"api\":\"hotel_a\",\"request_id_prefix\":\"*\",\"status\":429,\"code\":\"rate_limited\",\"retry_after\":\"1\",\"per_second\":$RATE}"

cat >"$dir/search.lua" <<LUA
local day = 86400
function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end
request = function()
  local t = os.time() + (14 + math.random(0, 299)) * day
  local ci = os.date("!%Y-%m-%d", t)
  local co = os.date("!%Y-%m-%d", t + math.random(1, 4) * day)
  return wrk.format("POST", "/v1/hotel/search", {["x-api-key"] = "$KEY",
                    ["content-type"] = "application/json"},
                    '{$area,"check_in":"' .. ci .. '","check_out":"' .. co .. '",$occ,"limit":20}')
end
LUA

# A series' value (label values hold spaces: "hotel SUPPLIER_A"); 0 when absent.
metric() { curl -s "$API/metrics" | grep -F "$1 " | awk '{v = $NF} END {print v + 0}'; }
A='{upstream="hotel SUPPLIER_A"}'
log="$dir/httpd-a/access.log"
lines0=$(wc -l <"$log")
wc -l <"$dir/httpd-sandbox/access.log" >"$dir/sbx.lines0"
psql -c "INSERT INTO jobs (kind, payload, max_attempts, dedupe_key)
         VALUES ('watch.schedule', '{}', 5, 'watch.schedule') ON CONFLICT DO NOTHING"
t0=$(psql -c "SELECT extract(epoch FROM clock_timestamp())")
refused0=$(metric "travel_upstream_budget_refused_total$A")
deferred0=$(metric "travel_upstream_deferred_total$A")
calls0=$(metric "travel_upstream_calls_total$A")
wrk -t2 -c8 -d"${SECS}s" -s "$dir/search.lua" "$API" >"$dir/wrk.out"
t1=$(psql -c "SELECT extract(epoch FROM clock_timestamp())")
refused=$(( $(metric "travel_upstream_budget_refused_total$A") - refused0 ))
deferred=$(( $(metric "travel_upstream_deferred_total$A") - deferred0 ))
calls=$(( $(metric "travel_upstream_calls_total$A") - calls0 ))
# The most calls SUPPLIER_A received in one second of the load (the
# sandbox's access log, by its second).
sbxlines0=$(cat "$dir/sbx.lines0")
peak=$(tail -n +"$((sbxlines0 + 1))" "$dir/httpd-sandbox/access.log" | grep '/hotels/a/' \
  | awk '{print $2}' | sort | uniq -c | sort -rn | head -n 1 | awk '{print $1 + 0}')
# Every watch checked again after the load, within 60 s.
for i in $(seq 1 120); do
  late=$(psql -c "SELECT count(*) FROM watches WHERE id LIKE 'wtc_budget-%'
                   AND (last_checked_at IS NULL OR last_checked_at < to_timestamp($t1))")
  [ "$late" -eq 0 ] && break
  sleep 0.5
done
dead=$(psql -c "SELECT count(*) FROM jobs WHERE kind = 'watch.price' AND status = 'dead'")
searches=$(tail -n +"$((lines0 + 1))" "$log" | grep -c '"POST /v1/hotel/search' || true)
fivexx=$(tail -n +"$((lines0 + 1))" "$log" | grep '"POST /v1/hotel/search' | awk '$7 >= 500' | wc -l)
ok=$(tail -n +"$((lines0 + 1))" "$log" | grep '"POST /v1/hotel/search' | awk '$7 == 200' | wc -l)
hits=$(curl -s "$SBX/sandbox/faults?request_id_prefix=*" | grep -o '"hits":[0-9]*' | head -n 1 | cut -d: -f2)

deferred_all=$(( $(metric "travel_upstream_deferred_total$A") - deferred0 ))
checks=$(psql -c "SELECT count(*) FROM watches WHERE id LIKE 'wtc_budget-%' AND last_checked_at >= to_timestamp($t0)")
rps=$(awk '/Requests\/sec/ {print $2}' "$dir/wrk.out")
echo "budget bench: hotel SUPPLIER_A answers 429 past $RATE calls/s; every supplier line max_calls_per_second=${TRAVEL_SUPPLIER_BUDGET:-none}; ${SECS}s of wrk -t2 -c8 hotel search (3 suppliers), $watches watches due every 2 s"
echo "  searches: $searches answered ($rps req/s), $ok 200, $fivexx 5xx"
echo "  hotel SUPPLIER_A during the load: $calls calls sent ($(awk -v c="$calls" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", c/(b-a)}')/s, at most $peak in one second), $refused kept back by the budget; $hits answered 429 by the sandbox (load and after)"
echo "  watches: $checks of $watches checked during and after the load, $deferred checks deferred during it ($deferred_all in all), $dead watch.price jobs dead, $late watches not checked again within 60 s of the load's end"
if [ "$fivexx" -ne 0 ] || [ "$dead" -ne 0 ] || [ "$late" -ne 0 ]; then
  echo "budget bench: FAILED (5xx answered, or a watch check lost)" >&2
  exit 1
fi
