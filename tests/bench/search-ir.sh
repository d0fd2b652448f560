#!/usr/bin/env bash
# Instructions per hotel search in the API's httpd, counted by callgrind: a
# figure the machine's load does not move (the method of reads-ir.sh and of
# docs/performance.md's seventh pass).
#
#   tests/bench/search-ir.sh [CHECKOUT...]     (not part of make bench)
#
# For each CHECKOUT (default: this one; built): a stack from its own
# scripts/stack.sh (sandbox latency 0), the bench's area searched once (its
# hotels mapped), then the API httpd run alone under callgrind (apache2 -X,
# 8 threads, counting only inside ap_read_request and
# ap_process_async_request, and in the fan-out's calls on other threads
# (core/fanout.c's fanout_job, and run before the workers: the second and
# third suppliers' calls)) while the same search (a page of 20 of the 30
# hotels, one stay) is sent 10 and then 40 times (ab, keep-alive); the
# difference over 30 is one search. The sandbox and PostgreSQL run normally.
# KIND=offers counts search.sh's hotel offers request instead (10 of the
# area's hotels, found by a first search, up to 5 offers each); KIND=flights
# its flight offers (LHR-JFK, one adult, limit 50).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
command -v valgrind >/dev/null && command -v ab >/dev/null \
  || { echo "search-ir.sh: needs valgrind and ab (apache2-utils)" >&2; exit 1; }
checkouts=("$@")
[ ${#checkouts[@]} -gt 0 ] || checkouts=("$root")
ir_setup mod_travel-sir
total() { callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null \
  | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 + 0 }'; }

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
ci=$(date -u -d "+30 days" +%F); co=$(date -u -d "+33 days" +%F)
kind=${KIND:-search}
case "$kind" in search|offers|flights) ;; *) echo "search-ir.sh: KIND is search, offers or flights" >&2; exit 1;; esac
stay="\"check_in\":\"$ci\",\"check_out\":\"$co\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\""
body="{\"destination\":{\"latitude\":52.3676,\"longitude\":4.9041,\"radius_m\":14500},$stay,\"limit\":20}"
for c in "${checkouts[@]}"; do
  ir_stack "$c" mod_travel-sir-stack
  url="http://127.0.0.1:$TRAVEL_PORT/v1/hotel/search"
  printf '%s' "$body" >"$out/body.json"
  page=$(curl -s -H "x-api-key: $key" -H 'content-type: application/json' "$url" -d @"$out/body.json")
  if [ "$kind" = offers ]; then
    ten=$(echo "$page" | grep -o '"hotel_id":"htl_[^"]*"' | cut -d'"' -f4 | head -n 10 \
      | sed 's/.*/"&"/' | paste -sd, -)
    url="http://127.0.0.1:$TRAVEL_PORT/v1/hotel/offers"
    printf '{"hotel_ids":[%s],%s,"max_offers_per_hotel":5}' "$ten" "$stay" >"$out/body.json"
    curl -s -o /dev/null -H "x-api-key: $key" -H 'content-type: application/json' "$url" -d @"$out/body.json"
  fi
  if [ "$kind" = flights ]; then
    url="http://127.0.0.1:$TRAVEL_PORT/v1/flight/offers"
    printf '{"journeys":[{"origin":"LHR","destination":"JFK","date":"%s"}],"passengers":{"adults":1},"limit":50}' \
      "$ci" >"$out/body.json"
    curl -s -o /dev/null -H "x-api-key: $key" -H 'content-type: application/json' "$url" -d @"$out/body.json"
  fi
  "$c/scripts/stack.sh" httpd-stop "$dir" a
  sed -e 's/^ThreadsPerChild .*/ThreadsPerChild 8/' -e 's/^MaxRequestWorkers .*/MaxRequestWorkers 16/' \
    "$dir/httpd-a/httpd.conf" >"$dir/httpd-a/ir.conf"
  for n in 10 40; do
    f="$out/$label.$kind.$n"
    : >"$f"; chmod 666 "$f"
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=ap_read_request \
      --toggle-collect=ap_process_async_request --toggle-collect=run --toggle-collect=fanout_job \
      --callgrind-out-file="$f" \
      /usr/sbin/apache2 -X -f "$dir/httpd-a/ir.conf" >"$f.log" 2>&1 &
    vg=$!
    for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$TRAVEL_PORT") 2>/dev/null && break; sleep 0.5; done
    ab -n "$n" -c 1 -k -p "$out/body.json" -T application/json -H "x-api-key: $key" "$url" >"$f.ab" 2>&1
    if ! grep -q "^Complete requests: *$n$" "$f.ab" || grep -q "Non-2xx" "$f.ab"; then
      echo "search-ir.sh: $label: not $n answers of 200:" >&2; cat "$f.ab" >&2; exit 1
    fi
    kill -TERM "$vg"; wait "$vg" || true; vg=""
  done
  a=$(total "$out/$label.$kind.10"); b=$(total "$out/$label.$kind.40")
  awk -v l="$label" -v k="$kind" -v d=$((b - a)) 'BEGIN { printf "%-10s %-7s %14.0f Ir/request\n", l, k, d / 30 }'
  "$c/scripts/stack.sh" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"; dir=""
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
