#!/usr/bin/env bash
# One check cycle of many price watches.
#
#   tests/bench/watches.sh [WATCHES] [HOTEL_STAYS]       (make bench)
#
# Starts a throwaway stack (its own PostgreSQL cluster, the sandbox and one
# httpd instance, 2 children x TRAVEL_WORKERS worker threads), finds hotels
# through the API (searches of five cities), then seeds by SQL WATCHES
# price watches (default 100,000) spread evenly over HOTEL_STAYS hotel-stays
# (default 2,000: 200 hotels x 10 check-in dates), none of which fires.
# It makes them all due at once, queues the schedule and waits until every
# watch has been checked. Reports:
#   supplier calls - offers requests the sandbox received from the checks
#                    (its access log, by the jobs' request ids)
#   wall time      - from making them due to the last watch recorded
# With one call per hotel-stay and supplier group of up to 10 hotels the
# calls are about HOTEL_STAYS / 10 (plus one per supplier and stay for the
# remainders), not one per watch.
set -euo pipefail
WATCHES=${1:-100000}
STAYS=${2:-2000}
DATES=10
HOTELS=$((STAYS / DATES))
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"

used=" "
free_port() {
  local p
  while :; do
    p=$(( 20000 + RANDOM % 12000 ))
    [[ $used == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then used+="$p "; echo "$p"; return; fi
  done
}
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0 STACK_PG_FAST=1
export TRAVEL_JOB_POLL=${TRAVEL_JOB_POLL:-100ms} TRAVEL_WORKERS=${TRAVEL_WORKERS:-4}
# One cycle is started by hand; no other comes during the measurement.
export TRAVEL_WATCH_INTERVAL=86400
trap '"$stack" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
db=$(cat "$dir/db.conninfo")
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
psql() { "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U travel -d travel -qtAX "$@"; }
api="http://127.0.0.1:$TRAVEL_PORT"

org=$("$root/bin/travelctl" --db "$db" org create bench | tail -n 1)
key=$("$root/bin/travelctl" --db "$db" key create --org "$org" --user bench 2>/dev/null | tail -n 1)
user=$(psql -c "SELECT user_id FROM api_keys WHERE org_id = '$org' LIMIT 1")
day() { date -u -d "+$1 days" +%Y-%m-%d; }

# Hotels with htl_ ids: the first pages of five cities' searches.
for city in "London GB" "Paris FR" "New York US" "Tokyo JP" "Berlin DE"; do
  set -- $city
  cc=${!#}; name=${city% *}
  curl -sf -o /dev/null -H "x-api-key: $key" -H 'content-type: application/json' \
    -d "{\"destination\":{\"city\":\"$name\",\"country_code\":\"$cc\"},\"check_in\":\"$(day 30)\",\"check_out\":\"$(day 32)\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\",\"limit\":50}" \
    "$api/v1/hotel/search"
done
have=$(psql -c "SELECT count(DISTINCT hotel_id) FROM hotel_supplier_ids")
if [ "$have" -lt "$HOTELS" ]; then
  echo "watch bench: only $have hotels found, $HOTELS needed" >&2; exit 1
fi

# WATCHES watches over HOTELS hotels x DATES stays, two nights, two
# adults; the trigger (0.01 EUR) never fires.
psql -c "WITH h AS (SELECT hotel_id, row_number() OVER (ORDER BY hotel_id) - 1 AS n
                      FROM (SELECT DISTINCT hotel_id FROM hotel_supplier_ids) x
                     ORDER BY hotel_id LIMIT $HOTELS),
  w AS (SELECT i, (i % $STAYS) AS hs FROM generate_series(0, $WATCHES - 1) i)
  INSERT INTO watches (id, org_id, user_id, kind, status, hotel_id, check_in, check_out,
                       occupancy, currency, guest_nationality, guest_residence, stay_key,
                       trigger_type, trigger_minor, next_check_at)
  SELECT 'wtc_bench-' || w.i, '$org', '$user', 'price', 'active', h.hotel_id,
         (now() AT TIME ZONE 'UTC')::date + 20 + (w.hs / $HOTELS)::int,
         (now() AT TIME ZONE 'UTC')::date + 22 + (w.hs / $HOTELS)::int,
         '[{\"adults\": 2}]', 'EUR', 'GB', 'GB',
         to_char((now() AT TIME ZONE 'UTC')::date + 20 + (w.hs / $HOTELS)::int, 'YYYY-MM-DD')
           || '|' || to_char((now() AT TIME ZONE 'UTC')::date + 22 + (w.hs / $HOTELS)::int,
           'YYYY-MM-DD') || '|2|EUR|GB|GB',
         'below_total', 1, now() + interval '1 day'
    FROM w JOIN h ON h.n = w.hs % $HOTELS"
psql -c "VACUUM ANALYZE watches"
stays=$(psql -c "SELECT count(*) FROM (SELECT DISTINCT hotel_id, stay_key FROM watches) x")

log="$dir/httpd-sandbox/access.log"
calls_before=$(grep -c '"POST .* job_' "$log" || true)
t0=$(psql -c "SELECT extract(epoch FROM clock_timestamp())")
psql -c "UPDATE watches SET next_check_at = now()"
psql -c "INSERT INTO jobs (kind, payload, max_attempts, dedupe_key)
         VALUES ('watch.schedule', '{}', 5, 'watch.schedule') ON CONFLICT DO NOTHING"
for i in $(seq 1 2400); do
  left=$(psql -c "SELECT count(*) FROM watches WHERE last_checked_at IS NULL")
  [ "$left" -eq 0 ] && break
  sleep 0.5
done
[ "$left" -eq 0 ] || { echo "watch bench: $left watches never checked" >&2; exit 1; }
t1=$(psql -c "SELECT extract(epoch FROM max(last_checked_at)) FROM watches")
calls=$(( $(grep -c '"POST .* job_' "$log" || true) - calls_before ))
fired=$(psql -c "SELECT count(*) FROM watches WHERE status <> 'active'")
awk -v w="$WATCHES" -v s="$stays" -v c="$calls" -v t0="$t0" -v t1="$t1" -v f="$fired" \
    -v k="$TRAVEL_WORKERS" 'BEGIN {
  printf "watch bench: %d watches on %d hotel-stays, 1 instance x 2 children x %d worker threads\n", w, s, k
  printf "  one check cycle: %d supplier calls (%.1f watches per call), %.2f s wall time, %d fired\n", c, w / (c ? c : 1), t1 - t0, f
}'
