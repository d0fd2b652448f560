#!/usr/bin/env bash
# Instructions the sandbox's hotel suppliers spend per hotel search and per
# hotel offers request, counted by callgrind: a figure the machine's load
# does not move, beside search.sh's "suppliers" CPU time.
#
#   tests/bench/sandbox-ir.sh [CHECKOUT...]     (not part of make bench: the
#                                               sandbox under valgrind takes
#                                               a few minutes a checkout)
#
# For each CHECKOUT (default: this one; built): a stack from its own
# scripts/stack.sh (sandbox latency 0), the sandbox's httpd then run alone
# under callgrind (apache2 -X), counting only inside ap_process_async_request
# (reading and answering a request), while the API instance sends it
# search.sh's requests (the 30-hotel Amsterdam area, a page of 20; offers
# for 10 of its hotels, up to 5 each; 2 adults, EUR), one at a time, each
# with its own dates (check-in 14 + i days ahead, 1 to 4 nights), twice:
# after N1 requests and after N2. The difference over N2 - N1 is the cost
# of a request with the first ones (connections, prepared statements) left
# out. Prints it in all and per supplier route (the handler's inclusive
# count: LiteAPI rates, Hotelbeds availability, Rapid geography and
# availability; the answers' writing out and Hotelbeds' gzip come after the
# handler, in the total only).
# callgrind's files stay in OUT (default a temporary folder, removed) for
# callgrind_annotate.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
command -v valgrind >/dev/null || { echo "sandbox-ir.sh: needs valgrind" >&2; exit 1; }
N1=${N1:-20} N2=${N2:-80}
checkouts=("$@")
[ ${#checkouts[@]} -gt 0 ] || checkouts=("$root")
ir_setup mod_travel-sbx-ir

total_ir() {
  callgrind_annotate --auto=no --threshold=100 --inclusive=no "$1" 2>/dev/null \
    | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%d\n", $1 }'
}
# inclusive FILE FUNCTION: the inclusive Ir of FUNCTION of source file FILE
# (callgrind_annotate names it "...FILE:FUNCTION", "[object]" after it or
# not).
inclusive() {
  callgrind_annotate --auto=no --threshold=100 --inclusive=yes "$1" 2>/dev/null \
    | awk -v f="/$2:$3" '{ i = index($0, f); r = substr($0, i + length(f), 1) }
        i && (r == "" || r == " ") { gsub(",", "", $1); n += $1 } END { printf "%d\n", n }'
}

area='"destination":{"latitude":52.3676,"longitude":4.9041,"radius_m":14500}'
occ='"occupancy":[{"adults":2}],"guest_nationality":"GB","guest_residence":"GB","currency":"EUR"'
send() { # api key kind count
  local i ci co body
  for i in $(seq 1 "$4"); do
    ci=$(date -u -d "+$((14 + i)) days" +%F)
    co=$(date -u -d "+$((14 + i + 1 + i % 4)) days" +%F)
    if [ "$3" = search ]; then
      body="{$area,\"check_in\":\"$ci\",\"check_out\":\"$co\",$occ,\"limit\":20}"
    else
      body="{\"hotel_ids\":[$ten],\"check_in\":\"$ci\",\"check_out\":\"$co\",$occ,\"max_offers_per_hotel\":5}"
    fi
    st=$(curl -s -o /dev/null -w '%{http_code}' -H "x-api-key: $2" \
      -H 'content-type: application/json' "$1/hotel/$3" -d "$body")
    [ "$st" = 200 ] || { echo "sandbox-ir.sh: $3 $i answered $st" >&2; exit 1; }
  done
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-8s %12s %10s %10s %10s %10s\n' checkout kind "Ir/request" "A rates" \
  "B avail" "C geo" "C avail"
for c in "${checkouts[@]}"; do
  ir_stack "$c" mod_travel-sbx-ir-stack
  api="http://127.0.0.1:$TRAVEL_PORT/v1"
  ci=$(date -u -d "+30 days" +%F) co=$(date -u -d "+33 days" +%F)
  ten=$(curl -s -H "x-api-key: $key" -H 'content-type: application/json' "$api/hotel/search" \
    -d "{$area,\"check_in\":\"$ci\",\"check_out\":\"$co\",$occ,\"limit\":50}" \
    | grep -o '"hotel_id":"htl_[^"]*"' | head -n 10 | cut -d'"' -f4 | sed 's/.*/"&"/' | paste -sd, -)
  [ -n "$ten" ] || { echo "sandbox-ir.sh: the area answered no hotels" >&2; exit 1; }
  "$c/scripts/stack.sh" httpd-stop "$dir" sandbox
  sed -e 's/^ThreadsPerChild .*/ThreadsPerChild 8/' -e 's/^MaxRequestWorkers .*/MaxRequestWorkers 16/' \
    "$dir/httpd-sandbox/httpd.conf" >"$dir/httpd-sandbox/ir.conf"
  for kind in search offers; do
    for n in "$N1" "$N2"; do
      f="$out/$label.$kind.$n"
      : >"$f"; chmod 666 "$f"
      valgrind --tool=callgrind --collect-atstart=no --toggle-collect=ap_process_async_request \
        --callgrind-out-file="$f" \
        /usr/sbin/apache2 -X -f "$dir/httpd-sandbox/ir.conf" >"$f.log" 2>&1 &
      vg=$!
      for _ in $(seq 1 600); do
        curl -s -o /dev/null "http://127.0.0.1:$TRAVEL_SANDBOX_PORT/health" && break; sleep 0.5
      done
      send "$api" "$key" "$kind" "$n"
      kill -TERM "$vg"; wait "$vg" || true; vg=""
    done
    f1="$out/$label.$kind.$N1" f2="$out/$label.$kind.$N2"
    row="$(printf '%-10s %-8s %12.0f' "$label" "$kind" \
      "$(( ($(total_ir "$f2") - $(total_ir "$f1")) / (N2 - N1) ))")"
    for h in "supplier_a.c rates" "supplier_b.c availability" "supplier_c.c geography" \
             "supplier_c.c availability"; do
      # (unquoted $h: the file and the function)
      # shellcheck disable=SC2086
      row+="$(printf ' %10.0f' "$(( ($(inclusive "$f2" $h) - $(inclusive "$f1" $h)) / (N2 - N1) ))")"
    done
    echo "$row"
  done
  "$c/scripts/stack.sh" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"; dir=""
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
