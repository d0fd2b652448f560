#!/usr/bin/env bash
# Whether this checkout answers the search path as another does:
#   tests/bench/search-same.sh BASE_CHECKOUT
# runs BASE_CHECKOUT's build (instance a) and this one's (instance b) on one
# stack (one PostgreSQL, one sandbox, one secret key) and sends both the
# same hotel searches, hotel offers and flight offers (one way; a return
# with a child); the answers must be byte for byte the same once the sealed
# references, cursors and expiries (which carry the time they were made)
# are masked. Exits non-zero when one differs.
set -euo pipefail
base=$(cd "${1:?usage: search-same.sh BASE_CHECKOUT}" && pwd)
br=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d /tmp/search-same.XXXXXX)
. "$br/tests/bench/lib.sh"
dir=$(mktemp -d /tmp/search-same-stack.XXXXXX); chmod 755 "$dir"
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
B_PORT=$(free_port)
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0 STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms"
trap '"$base/scripts/stack.sh" stop "$dir" >/dev/null 2>&1; rm -rf "$dir" "$out"' EXIT
"$base/scripts/stack.sh" pg-start "$dir" >/dev/null
"$base/scripts/stack.sh" sandbox-start "$dir" >/dev/null
"$base/scripts/stack.sh" httpd-start "$dir" a >/dev/null
TRAVEL_PORT=$B_PORT "$br/scripts/stack.sh" httpd-start "$dir" b >/dev/null
ctl() { "$br/bin/travelctl" --db "$(cat "$dir/db.conninfo")" "$@" 2>/dev/null | tail -n 1; }
org=$(ctl org create same); KEY=$(ctl key create --org "$org" --user same)
ci=$(date -u -d "+30 days" +%F); co=$(date -u -d "+33 days" +%F)
occ='"occupancy":[{"adults":2}],"guest_nationality":"GB","guest_residence":"GB","currency":"EUR"'
stay="\"check_in\":\"$ci\",\"check_out\":\"$co\",$occ"
area='"destination":{"latitude":52.3676,"longitude":4.9041,"radius_m":14500}'
q() { curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' "http://127.0.0.1:$1/v1/$2" -d "$3"; }
all=$(q $TRAVEL_PORT hotel/search "{$area,$stay,\"limit\":50}")
ten=$(echo "$all" | grep -o '"hotel_id":"htl_[^"]*"' | cut -d'"' -f4 | head -n 10 | sed 's/.*/"&"/' | paste -sd, -)
# Each supplier's own ids too (up to 10 of the area's each), so that every
# adapter's offers are compared, not only those of the first that sells a
# hotel.
own=()
for sup in SUPPLIER_A SUPPLIER_B SUPPLIER_C; do
  sids=$(psql -qtA "$(cat "$dir/db.conninfo")" -c "SELECT string_agg('\"' || supplier_hotel_id || '\"', ',') FROM (SELECT supplier_hotel_id FROM hotel_supplier_ids WHERE supplier = '$sup' ORDER BY supplier_hotel_id LIMIT 10) s")
  [ -n "$sids" ] && own+=("hotel/offers|{\"supplier\":\"$sup\",\"supplier_hotel_ids\":[$sids],$stay,\"max_offers_per_hotel\":5}")
done
n=0 status=0
for r in "hotel/search|{$area,$stay,\"limit\":50}" "hotel/search|{$area,$stay,\"limit\":20}" \
         "hotel/offers|{\"hotel_ids\":[$ten],$stay,\"max_offers_per_hotel\":5}" "${own[@]}" \
         "flight/offers|{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"$ci\"}],\"passengers\":{\"adults\":1},\"limit\":50}" \
         "flight/offers|{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"$ci\"},{\"origin\":\"JFK\",\"destination\":\"LHR\",\"date\":\"$co\"}],\"passengers\":{\"adults\":2,\"children\":1},\"limit\":50}"; do
  n=$((n+1))
  q $TRAVEL_PORT "${r%%|*}" "${r#*|}" > $out/a-$n.json
  q $B_PORT "${r%%|*}" "${r#*|}" > $out/b-$n.json
  # Sealed references and expiries carry the time they were made: masked.
  mask() { sed -E 's/"(offer_reference|next_cursor|expires_at)":"[^"]*"/"\1":"X"/g' "$1"; }
  if cmp -s <(mask $out/a-$n.json) <(mask $out/b-$n.json); then
    echo "same: ${r%%|*} ($(wc -c <$out/a-$n.json) bytes; identical before masking: $(cmp -s $out/a-$n.json $out/b-$n.json && echo yes || echo no))"
  else echo "DIFFERENT: ${r%%|*}"; status=1; fi
done
exit $status
