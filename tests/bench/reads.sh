#!/usr/bin/env bash
# The read path's CPU per request, for one checkout or two side by side.
#
#   tests/bench/reads.sh [CHECKOUT...]        (make bench: this checkout,
#                                              after READS_BASE when set)
#
# Each CHECKOUT (default: this one) is a built mod_travel tree (build/ and
# bin/travelctl, e.g. `git worktree add /tmp/old COMMIT && make -C /tmp/old
# build`); each gets its own throwaway stack from its own scripts/stack.sh
# (PostgreSQL, the sandbox's httpd, an API httpd; sandbox latency 0, rate
# limits off), FLIGHTS flights (default 200) and HOTELS hotel stays
# (default 40) booked through its API and their jobs run. Then ROUNDS
# rounds (default 3), each running, for every kind and every checkout in
# turn (the order reversed every other round, so neither side always goes
# first), wrk (2 threads, 16 connections) for exactly REQUESTS requests
# (default 20000) of:
#   flight GET   GET /v1/flight/bookings/{id}  (a random booked id each time)
#   hotel GET    GET /v1/hotel/bookings/{id}   (likewise)
#   list 20      GET /v1/flight/bookings?limit=20
# Each row: req/s, p50, p99 and the CPU time per request of the API httpd's
# process group (parent and children, utime+stime with what they reaped, from
# /proc before and after the run) and of PostgreSQL's (postmaster and
# backends). CPU per request is the figure to compare: on a shared machine
# req/s swings with whatever else runs; the load average is printed with
# each round. Before the rounds (after a warm-up of 1,000 requests of each
# kind), each stack's idle CPU (its background workers, IDLE seconds,
# default 5) is printed: it is inside every row.
# At the end, the median of each kind per checkout and, with two or more,
# each checkout's medians over the first's and the median of the rounds' own
# ratios. tests/bench/reads-ir.sh counts the same requests' instructions.
# Any answer other than 200 fails the script: a 404 is cheap, not fast.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-20000}
FLIGHTS=${FLIGHTS:-200}
HOTELS=${HOTELS:-40}
IDLE=${IDLE:-5}
THREADS=2 CONNS=16

checkouts=("$@")
[ ${#checkouts[@]} -gt 0 ] || checkouts=("$root")
labels=() dirs=() ports=() keys=() httpd_pids=() pg_pids=()
work=$(mktemp -d /tmp/mod_travel-reads.XXXXXX)
chmod 755 "$work"
cleanup() {
  local i
  for i in "${!dirs[@]}"; do
    "${checkouts[$i]}/scripts/stack.sh" stop "${dirs[$i]}" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

for i in "${!checkouts[@]}"; do
  c=$(cd "${checkouts[$i]}" && pwd)
  checkouts[$i]=$c
  if [ ! -f "$c/build/mod_travel.so" ] || [ ! -x "$c/bin/travelctl" ]; then
    echo "reads.sh: $c is not built (make -C $c build)" >&2
    exit 1
  fi
  label=$(git -C "$c" rev-parse --short HEAD 2>/dev/null || basename "$c")
  git -C "$c" diff --quiet HEAD 2>/dev/null || label+="+"
  labels[$i]="$label"
done

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
for i in "${!checkouts[@]}"; do
  c=${checkouts[$i]} dir="$work/stack-$i"
  dirs[$i]=$dir
  mkdir -p "$dir"
  ports[$i]=$(free_port)
  # Each stack its own ports; the variables stack.sh reads.
  (
    export TRAVEL_PORT=${ports[$i]} TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
    export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0 STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms"
    "$c/scripts/stack.sh" pg-start "$dir" >/dev/null
    "$c/scripts/stack.sh" sandbox-start "$dir" >/dev/null
    "$c/scripts/stack.sh" httpd-start "$dir" a >/dev/null
  )
  ctl() { "$c/bin/travelctl" --db "$(cat "$dir/db.conninfo")" "$@" 2>/dev/null | tail -n 1; }
  org=$(ctl org create bench)
  keys[$i]=$(ctl key create --org "$org" --user bench)
  api="http://127.0.0.1:${ports[$i]}/v1"
  echo "${labels[$i]} ($c): booking $FLIGHTS flights and $HOTELS hotel stays..."
  book_flights "$api" "${keys[$i]}" "$FLIGHTS" "$dir/flight.ids" >/dev/null
  book_hotels "$api" "${keys[$i]}" "$HOTELS" "$dir/hotel.ids" >/dev/null
  jobs_settle "$(cat "$dir/db.conninfo")"
  # Autovacuum would otherwise come to the freshly written tables during
  # the first rounds of the last stack booked, inside PostgreSQL's CPU.
  psql "$(cat "$dir/db.conninfo")" -qc "VACUUM ANALYZE" >/dev/null
  : >"$dir/none.ids"
  httpd_pids[$i]=$(cat "$dir/httpd-a/httpd.pid")
  pg_pids[$i]=$(head -n 1 "$dir/pg/postmaster.pid")
done

# A wrk script: GET PREFIX, or PREFIX and a random id of the file, until
# this thread has its share of the requests. wrk itself only knows a
# duration: the thread that finishes last (a line each in a file counts
# them) ends the run as Ctrl-C would, so the run lasts as long as its
# requests take and req/s stays true. The kill comes from a shell left in
# the background: system() ignores SIGINT in wrk until its shell exits.
cat >"$work/get.lua" <<'LUA'
local ids, done, limit, prefix, key, flag, threads = {}, 0, 0, "", "", "", 0
function init(args)
  limit, prefix, key, flag, threads = tonumber(args[1]), args[2], args[3], args[5], tonumber(args[6])
  for line in io.lines(args[4]) do ids[#ids + 1] = line end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end
request = function()
  local path = prefix
  if #ids > 0 then path = path .. ids[math.random(#ids)] end
  return wrk.format("GET", path, {["x-api-key"] = key})
end
response = function(status, headers, body)
  done = done + 1
  if done ~= limit then return end
  wrk.thread:stop()
  local f = io.open(flag, "a"); f:write("done\n"); f:close()
  local n = 0
  for _ in io.lines(flag) do n = n + 1 end
  if n >= threads then
    local stat = io.open("/proc/self/stat")
    os.execute("(sleep 0.01; kill -INT " .. stat:read("*n") .. ") >/dev/null 2>&1 &")
    stat:close()
  end
end
LUA

kinds=("flight GET|/v1/flight/bookings/|flight" "hotel GET|/v1/hotel/bookings/|hotel"
       "list 20|/v1/flight/bookings?limit=20|none")

# wrk_run I KIND N: N requests of KIND on checkout I; the row's figures
# (req/s p50 p99 requests httpd-ticks pg-ticks) on stdout.
wrk_run() {
  local i=$1 name prefix ids out h0 p0 h1 p1
  IFS='|' read -r name prefix ids <<<"$2"
  h0=$(tree_ticks "${httpd_pids[$i]}"); p0=$(tree_ticks "${pg_pids[$i]}")
  : >"$work/done"
  out=$(wrk -t$THREADS -c$CONNS -d600s --latency -s "$work/get.lua" \
    "http://127.0.0.1:${ports[$i]}" -- "$(( $3 / THREADS ))" "$prefix" "${keys[$i]}" \
    "${dirs[$i]}/$ids.ids" "$work/done" "$THREADS")
  h1=$(tree_ticks "${httpd_pids[$i]}"); p1=$(tree_ticks "${pg_pids[$i]}")
  if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
    echo "reads.sh: ${labels[$i]} $name: not every answer was 200:" >&2
    echo "$out" >&2
    return 1
  fi
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(awk '$1 == "50%" {print $2}' <<<"$out")" \
       "$(awk '$1 == "99%" {print $2}' <<<"$out") $(awk '/requests in/ {print $1}' <<<"$out")" \
       "$((h1 - h0)) $((p1 - p0))"
}

# Warm-up: every kind once on every checkout (pools open, caches filled).
for i in "${!checkouts[@]}"; do
  for k in "${kinds[@]}"; do wrk_run "$i" "$k" 1000 >/dev/null; done
done

echo
echo "idle (background workers, ${IDLE}s): CPU ms per second"
for i in "${!checkouts[@]}"; do
  h0=$(tree_ticks "${httpd_pids[$i]}"); p0=$(tree_ticks "${pg_pids[$i]}")
  sleep "$IDLE"
  h1=$(tree_ticks "${httpd_pids[$i]}"); p1=$(tree_ticks "${pg_pids[$i]}")
  awk -v l="${labels[$i]}" -v h=$((h1 - h0)) -v p=$((p1 - p0)) -v hz="$HZ" -v s="$IDLE" \
    'BEGIN { printf "  %-10s httpd %6.1f   PostgreSQL %6.1f\n", l, h * 1000 / hz / s, p * 1000 / hz / s }'
done

echo
echo "$REQUESTS requests a run, wrk $THREADS threads x $CONNS connections; CPU ms/request"
printf '%-5s %-10s %-10s %8s %9s %9s %8s %8s %8s\n' round kind checkout req/s p50 p99 httpd PG total
rows="$work/rows"
: >"$rows"
for r in $(seq 1 "$ROUNDS"); do
  order=("${!checkouts[@]}")
  if [ $((r % 2)) -eq 0 ]; then
    order=(); for ((j = ${#checkouts[@]} - 1; j >= 0; j--)); do order+=("$j"); done
  fi
  for k in "${kinds[@]}"; do
    for i in "${order[@]}"; do
      res=$(wrk_run "$i" "$k" "$REQUESTS")
      read -r rps p50 p99 n h p <<<"$res"
      awk -v r="$r" -v k="${k%%|*}" -v l="${labels[$i]}" -v i="$i" -v rps="$rps" -v p50="$p50" \
          -v p99="$p99" -v n="$n" -v h="$h" -v p="$p" -v hz="$HZ" -v rows="$rows" \
        'BEGIN { hm = h * 1000 / hz / n; pm = p * 1000 / hz / n
                 printf "%-5s %-10s %-10s %8.0f %9s %9s %8.3f %8.3f %8.3f\n", r, k, l, rps, p50, p99, hm, pm, hm + pm
                 printf "%s|%s|%s|%.0f|%.4f|%.4f|%s\n", k, i, l, rps, hm, pm, r >> rows }'
    done
  done
  echo "      load average after round $r: $(cut -d' ' -f1-3 /proc/loadavg)"
done

echo
echo "median of $ROUNDS rounds (CPU ms/request); with two checkouts or more, each one's"
echo "medians over the first's, and the median of the rounds' own ratios (each"
echo "round runs the two side by side, so its ratio shares that round's load)"
vs=""
[ ${#checkouts[@]} -lt 2 ] || vs="vs ${labels[0]}: httpd, total; per round: httpd, total"
printf '%-10s %-10s %8s %8s %8s %8s   %s\n' kind checkout req/s httpd PG total "$vs"
for k in "${kinds[@]}"; do
  for i in "${!checkouts[@]}"; do
    awk -F'|' -v k="${k%%|*}" -v i="$i" -v l="${labels[$i]}" '
      function median(a, n,    j, m, t) {
        for (j = 1; j <= n; j++) for (m = j + 1; m <= n; m++) if (a[m] < a[j]) { t = a[j]; a[j] = a[m]; a[m] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      $1 == k && $2 == i { n++; rps[n] = $4; h[n] = $5; p[n] = $6; t[n] = $5 + $6; rh[$7] = $5; rt[$7] = $5 + $6 }
      $1 == k && $2 == 0 { b++; bh[b] = $5; bt[b] = $5 + $6; brh[$7] = $5; brt[$7] = $5 + $6 }
      END { for (r in rh) if (brh[r] > 0 && brt[r] > 0) { q++; qh[q] = rh[r] / brh[r]; qt[q] = rt[r] / brt[r] }
            mh = median(h, n); mt = median(t, n)
            printf "%-10s %-10s %8.0f %8.3f %8.3f %8.3f", k, l, median(rps, n), mh, median(p, n), mt
            if (i > 0) printf "   %.2fx, %.2fx; %.2fx, %.2fx", mh / median(bh, b), mt / median(bt, b), median(qh, q), median(qt, q)
            printf "\n" }' "$rows"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
