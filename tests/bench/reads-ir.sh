#!/usr/bin/env bash
# Instructions per request of the read path, counted by callgrind: a figure
# the machine's load does not move, beside reads.sh's CPU time.
#
#   tests/bench/reads-ir.sh [CHECKOUT...]      (not part of make bench: the
#                                               runs under valgrind take
#                                               about 4 minutes a checkout)
#
# For each CHECKOUT (default: this one; built, as for reads.sh): a stack
# from its own scripts/stack.sh with 25 flights and 5 hotel stays booked and
# their jobs run (lib.sh, jobs_settle), then for each kind (flight GET, hotel
# GET, list 20) its API httpd run alone under callgrind (apache2 -X, 8
# threads), counting only inside ap_read_request and ap_process_async_request
# (reading and answering a request, not the background workers), twice:
# after 100 requests and after 400 (ab, one connection, keep-alive). The
# difference over 300 is the cost of a request with the first request's
# (connections, key cache) left out.
# Prints it in all and without libpq's: libpq's compaction of its input
# buffer (a memmove each time a large answer arrived in more pieces) depends
# on how the socket delivered the bytes, not on the code.
# callgrind's files stay in OUT (default a temporary folder, removed) for
# callgrind_annotate.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
command -v valgrind >/dev/null && command -v ab >/dev/null \
  || { echo "reads-ir.sh: needs valgrind and ab (apache2-utils)" >&2; exit 1; }
checkouts=("$@")
[ ${#checkouts[@]} -gt 0 ] || checkouts=("$root")
ir_setup mod_travel-ir

# ir FILE: the Ir counted, in all and without libpq's (its own and the
# memcpy and memmove it calls: in the caller tree, a block's callers come
# before its "*" line).
ir() {
  callgrind_annotate --auto=no --threshold=100 --inclusive=no --tree=caller "$1" 2>/dev/null | awk '
    function n(s) { gsub(",", "", s); return s + 0 }
    / PROGRAM TOTALS/ { total = n($1) }
    /^ *$/ { from_pq = 0; next }
    /^ *[0-9,]+ +\( *[0-9.]+%\) +< .*libpq\.so/ { from_pq += n($1); next }
    /^ *[0-9,]+ +\( *[0-9.]+%\) +\* .*\[[^]]*libpq\.so[^]]*\] *$/ { pq += n($1); next }
    /^ *[0-9,]+ +\( *[0-9.]+%\) +\* .*:__(memcpy|memmove)[a-z_]* \[/ { pq += from_pq }
    END { print total, total - pq }'
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-10s %14s %14s\n' checkout kind "Ir/request" "without libpq"
for c in "${checkouts[@]}"; do
  ir_stack "$c" mod_travel-ir-stack
  api="http://127.0.0.1:$TRAVEL_PORT/v1"
  flight=$(book_flights "$api" "$key" 25)
  hotel=$(book_hotels "$api" "$key" 5)
  jobs_settle "$(cat "$dir/db.conninfo")"
  "$c/scripts/stack.sh" httpd-stop "$dir" a
  sed -e 's/^ThreadsPerChild .*/ThreadsPerChild 8/' -e 's/^MaxRequestWorkers .*/MaxRequestWorkers 16/' \
    "$dir/httpd-a/httpd.conf" >"$dir/httpd-a/ir.conf"
  for kind in "flight GET|$api/flight/bookings/$flight" "hotel GET|$api/hotel/bookings/$hotel" \
              "list 20|$api/flight/bookings?limit=20"; do
    name=${kind%%|*} url=${kind#*|}
    for n in 100 400; do
      f="$out/$label.${name// /_}.$n"
      # Created here, writable by the child: callgrind opens it again at exit.
      : >"$f"; chmod 666 "$f"
      valgrind --tool=callgrind --collect-atstart=no --toggle-collect=ap_read_request \
        --toggle-collect=ap_process_async_request --callgrind-out-file="$f" \
        /usr/sbin/apache2 -X -f "$dir/httpd-a/ir.conf" >"$f.log" 2>&1 &
      vg=$!
      for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$TRAVEL_PORT") 2>/dev/null && break; sleep 0.5; done
      ab -n "$n" -c 1 -k -H "x-api-key: $key" "$url" >"$f.ab" 2>&1
      if ! grep -q "^Complete requests: *$n$" "$f.ab" || grep -q "Non-2xx" "$f.ab"; then
        echo "reads-ir.sh: $label $name: not $n answers of 200:" >&2; cat "$f.ab" >&2; exit 1
      fi
      kill -TERM "$vg"; wait "$vg" || true; vg=""
    done
    read -r a1 b1 <<<"$(ir "$out/$label.${name// /_}.100")"
    read -r a4 b4 <<<"$(ir "$out/$label.${name// /_}.400")"
    awk -v l="$label" -v k="$name" -v a=$((a4 - a1)) -v b=$((b4 - b1)) \
      'BEGIN { printf "%-10s %-10s %14.0f %14.0f\n", l, k, a / 300, b / 300 }'
  done
  "$c/scripts/stack.sh" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"; dir=""
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
