#!/usr/bin/env bash
# The circuit breaker's isolation: does a receiver that hangs slow down the
# others?
#
#   tests/bench/breaker.sh [EVENTS] [HEALTHY]        (make bench)
#
# Starts a throwaway stack (one instance, 2 children x TRAVEL_WORKERS sender
# threads, 4 by default, as webhooks.sh), HEALTHY (20) organizations each
# with one subscription to its own sandbox inbox, and one more whose inbox
# answers only after 12 s (every request to it times out at 10 s). Then two
# runs, each committing EVENTS (5000) events to the healthy receivers one
# per transaction, LAT_GAP_MS (5) apart, round robin:
#   without  the hanging receiver gets nothing
#   with     every 20th commit is also an event for the hanging receiver
# and reports the healthy receivers' commit-to-receipt p50, p99 and max
# (the first receipt of each event) in each run, the p99 ratio (with /
# without), the CPU of mod_travel and PostgreSQL per healthy delivery
# (from /proc, the commits included), and how long mod_travel's threads
# were runnable but waiting for a CPU (on a shared machine, what a slow
# run's senders were doing instead of sending). On stderr, per run: the
# receipts over 50 ms and the slowest 1 %, each split into time to be
# claimed and claim to receipt, and in a "with" run the seconds in which
# the hanging receiver got its requests.
#
# BENCH_ROUNDS=N (1) makes N pairs of runs, alternating their order (without
# then with, with then without, ...): a later run must not look better or
# worse for coming later; at the end it prints every pair's ratio and their
# median. The hanging receiver's subscription is made at the
# start of each "with" run and deleted at its end (its queued requests are
# then not sent), and the next run waits out its requests still going on
# (the 10 s timeout): no "without" run has it.
#
# BENCH_CONTROL=1 is the bench's control: the "with" run of each pair is
# a second run without the hanging receiver (the same order, vacuum and
# waits otherwise), so its ratios show how far two runs of the same work
# differ on this machine, the spread a with / without ratio sits in.
#
# LAT_GAP_MS=5 (about 150 commits a second, the 2-core machine about a
# third busy) is where the bench can tell 10 %: two runs of the same work
# (the control) differ there by 2-5 %. At 2 (about 270 a second, half busy
# and in bursts) they differed by up to 22 %, more than the target the
# bench measures (docs/performance.md, 29 November).
#
# HANG_MS=N (12000) is how long the 21st receiver takes to answer: 0 makes
# it a healthy receiver that gets the same 250 events, whose ratio is the
# cost of those events alone, without any hanging.
#
# BENCH_PG_STATS=1 loads pg_stat_statements (track = all: the statements
# inside functions and triggers too) and prints, after each run, the
# statements that took the most PostgreSQL time in it, with their calls
# and rows (the bench's own queries included: they are the SELECTs on
# sandbox.inbox_requests).
set -euo pipefail
EVENTS=${1:-5000}
HEALTHY=${2:-20}
LAT_GAP_MS=${LAT_GAP_MS:-5}
HANG_MS=${HANG_MS:-12000}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"

. "$root/tests/bench/lib.sh"
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0
export TRAVEL_JOB_POLL=${TRAVEL_JOB_POLL:-100ms} STACK_PG_FAST=1
export TRAVEL_WORKERS=${TRAVEL_WORKERS:-4}
# The hanging receiver's retries come a second apart, as in the test stack:
# the most pressure it can put on the senders.
export TRAVEL_RETRY_SCHEDULE=${TRAVEL_RETRY_SCHEDULE:-1 1 1}
trap '"$stack" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT

pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
psql() { "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U travel -d travel -qtAX "$@"; }
pgsu() { "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U postgres -d travel -qtAX "$@"; }
"$stack" pg-start "$dir" >/dev/null
if [ "${BENCH_PG_STATS:-0}" = 1 ]; then
  pgsu -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
  "$stack" pg-stop "$dir" >/dev/null
  "$stack" pg-start "$dir" >/dev/null
  pgsu -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" \
       -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
fi
# Autovacuum off: every run starts with a VACUUM ANALYZE of the tables it
# writes (run), and autovacuum's passes (one a minute, about a second of
# vacuum and analyze of jobs, events, deliveries, attempts and the inbox)
# fell in the middle of whichever run was going on, one run of a pair and
# not the other.
pgsu -c "ALTER SYSTEM SET autovacuum = off" -c "SELECT pg_reload_conf()" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
db=$(cat "$dir/db.conninfo")
# PostgreSQL's processes: pid, CPU ticks, title (a backend's without its
# state), one a line.
pg_procs() {
  local pm c
  pm=$(head -n 1 "$dir/pg/postmaster.pid")
  for c in $(ps -o pid= --ppid "$pm" 2>/dev/null); do
    echo "$c $(awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null || echo 0) $(ps -o args= -p "$c" | awk '{ print $1, $2, $3 }')"
  done
}
# The statements of the run that took the most PostgreSQL time, and the CPU
# of PostgreSQL's processes over the run by kind (a process that ended in
# the run counts as "ended" with what it had at the start, subtracted).
pg_stats() {
  pg_procs >"$dir/procs.after"
  echo "  run $1: PostgreSQL CPU s by process (started in the run, kind):" >&2
  awk -v hz="$(getconf CLK_TCK)" 'NR == FNR { b[$1] = $2; next }
    { k = ($1 in b ? "" : "new ") $3 " " $4 " " $5; cpu[k] += $2 - ($1 in b ? b[$1] : 0); n[k]++; seen[$1] = 1 }
    END { for (p in b) if (!(p in seen)) { cpu["ended"] -= b[p]; n["ended"]++ }
          for (k in cpu) printf "    %6.2f s  %3d x %s\n", cpu[k] / hz, n[k], k }' \
    "$dir/procs.before" "$dir/procs.after" | sort -rn | head -n 4 >&2
  if [ "${BENCH_PG_PIDS:-0}" = 1 ]; then
    awk -v hz="$(getconf CLK_TCK)" 'NR == FNR { b[$1] = $2; next } { printf "%d %.2f\n", $1, ($2 - b[$1]) / hz }' \
      "$dir/procs.before" "$dir/procs.after" | sort -k2 -rn | head -n 12 | while read -r pid s; do
      echo "    $pid $s s: $(pgsu -c "SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 100) FROM pg_stat_activity WHERE pid = $pid")"
    done >&2
  fi
  [ "${BENCH_PG_STATS:-0}" = 1 ] || return 0
  echo "  run $1: statements by total time (calls, rows, total ms, mean ms, buffers read per call, statement):" >&2
  pgsu -F ' | ' -c "SELECT calls, rows, round(total_exec_time::numeric), round(mean_exec_time::numeric, 2),
      round((shared_blks_hit + shared_blks_read)::numeric / greatest(calls, 1), 1),
      left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
    FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT ${BENCH_PG_STATS_TOP:-14}" | sed 's/^/    /' >&2
}

# One organization per receiver (at most 5 subscriptions per organization
# and family): healthy ones h1..hN, the hanging one last.
subscribe() {
  local name=$1 org key
  org=$("$root/bin/travelctl" --db "$db" org create "bench-$name" | tail -n 1)
  key=$("$root/bin/travelctl" --db "$db" key create --org "$org" --user bench 2>/dev/null | tail -n 1)
  curl -sf -o /dev/null -H "x-api-key: $key" -H 'content-type: application/json' \
    -d "{\"url\": \"http://127.0.0.1:$TRAVEL_SANDBOX_PORT/inbox/bench-$name\", \"event_types\": [\"flight.booking.confirmed\"]}" \
    "http://127.0.0.1:$TRAVEL_PORT/v1/flight/webhook-subscriptions"
  echo "$org"
}
orgs=()
for i in $(seq 1 "$HEALTHY"); do orgs+=("$(subscribe "h$i")"); done
hang_org=$("$root/bin/travelctl" --db "$db" org create bench-hang | tail -n 1)
hang_key=$("$root/bin/travelctl" --db "$db" key create --org "$hang_org" --user bench 2>/dev/null | tail -n 1)
hang_sub=
# The hanging receiver's subscription, for a "with" run only.
hang_on() {
  hang_sub=$(curl -sf -H "x-api-key: $hang_key" -H 'content-type: application/json' \
    -d "{\"url\": \"http://127.0.0.1:$TRAVEL_SANDBOX_PORT/inbox/bench-hang\", \"event_types\": [\"flight.booking.confirmed\"]}" \
    "http://127.0.0.1:$TRAVEL_PORT/v1/flight/webhook-subscriptions" | jq -r .data.id)
  # (It read .id, which is null: the subscription was never deleted, every
  # later run had it, "without" ones too, and its queued requests.)
  [[ $hang_sub == whs_* ]] || { echo "bench: the hanging subscription was not made" >&2; exit 1; }
}
hang_off() {
  local code
  code=$(curl -s -o "$dir/hang-off.json" -w '%{http_code}' -X DELETE -H "x-api-key: $hang_key" \
    "http://127.0.0.1:$TRAVEL_PORT/v1/flight/webhook-subscriptions/$hang_sub")
  if [ "$code" != 204 ] && [ "$code" != 200 ]; then
    echo "bench: deleting the hanging subscription answered $code: $(cat "$dir/hang-off.json")" >&2
    grep -E ':(error|warn)' "$dir/httpd-a/error.log" | tail -n 5 >&2
  fi
  sleep 11
}
curl -sf -o /dev/null -X PUT -H 'content-type: application/json' -d "{\"status\": 200, \"delay_ms\": $HANG_MS}" \
  "http://127.0.0.1:$TRAVEL_SANDBOX_PORT/sandbox/inboxes/bench-hang/behavior"
org_list=$(printf "'%s'," "${orgs[@]}"); org_list="ARRAY[${org_list%,}]"

# CPU seconds used so far by a process and its children (live ones): the
# root of each part of the stack.
cpu_tree() {
  local pid=$1 ticks=0 c
  for c in $pid $(ps -o pid= --ppid "$pid" 2>/dev/null); do
    ticks=$(( ticks + $(awk '{ print $14 + $15 }' "/proc/$c/stat" 2>/dev/null || echo 0) ))
  done
  echo "$ticks"
}
# Nanoseconds the live threads of a process and its children have spent
# runnable but waiting for a CPU (schedstat's second field): how much of
# the senders' time went to waiting for a core. Threads that ended during
# the run (a request's own) are not counted.
wait_tree() {
  local pid=$1 c
  for c in $pid $(ps -o pid= --ppid "$pid" 2>/dev/null); do
    cat /proc/"$c"/task/*/schedstat 2>/dev/null
  done | awk '{ w += $2 } END { printf "%.0f", w }'
}
cpu_now() {
  echo "$(cpu_tree "$(cat "$dir/httpd-a/httpd.pid")") $(cpu_tree "$(cat "$dir/httpd-sandbox/httpd.pid")") $(cpu_tree "$(head -n 1 "$dir/pg/postmaster.pid")") $(wait_tree "$(cat "$dir/httpd-a/httpd.pid")")"
}
# The healthy receivers' commit-to-first-receipt times (ms) of the events
# whose id matches the condition $1 (on e.id): the run's p99, or all the
# rounds' pooled.
healthy_receipts() {
  echo "SELECT extract(epoch FROM min(r.received_at) - e.created_at) * 1000 AS ms
            FROM sandbox.inbox_requests r JOIN events e ON e.id = r.headers->>'webhook-id'
           WHERE r.inbox <> 'bench-hang' AND $1 GROUP BY e.id, e.created_at"
}
# RUN events one per commit, round robin over the healthy organizations;
# with HANG=1 every 20th commit also writes one for the hanging receiver.
run() {
  local tag=$1 hang=$2 EVENTS=${3:-$EVENTS} before after
  # Each run starts from the same queue: the previous run left ~16,000 dead
  # rows in jobs (5,000 jobs inserted, claimed and deleted) that autovacuum
  # (a pass a minute at most) may or may not have removed by then, and a
  # run that inherits them pays more for every claim (measured: the second
  # run's jobs held 16,000 dead rows at its start, 32,000 at its end; its
  # event INSERTs, which no receiver touches, took 0.90 ms against 0.76).
  psql -c "VACUUM ANALYZE jobs, webhook_deliveries, webhook_attempts, events, webhook_subscriptions, sandbox.inbox_requests" >/dev/null
  [ "${BENCH_PG_STATS:-0}" = 1 ] && pgsu -c "SELECT pg_stat_statements_reset()" >/dev/null
  pg_procs >"$dir/procs.before"
  local opens0
  opens0=$(passive_opens)
  before=$(cpu_now)
  psql -c "DO \$\$ DECLARE o text[] := $org_list; e text; BEGIN FOR i IN 1..$EVENTS LOOP
      INSERT INTO events (id, org_id, family, type, data) VALUES ('evt_${tag}_' || i,
        o[1 + (i - 1) % array_length(o, 1)], 'flight', 'flight.booking.confirmed',
        jsonb_build_object('booking', jsonb_build_object('id', 'bkg_${tag}_' || i, 'status', 'CONFIRMED')));
      IF $hang = 1 AND i % 20 = 0 THEN
        INSERT INTO events (id, org_id, family, type, data) VALUES ('evt_${tag}_hang_' || i,
          '$hang_org', 'flight', 'flight.booking.confirmed',
          jsonb_build_object('booking', jsonb_build_object('id', 'bkg_hang_' || i)));
      END IF;
      COMMIT;
      PERFORM pg_sleep($LAT_GAP_MS / 1000.0);
    END LOOP; END \$\$"
  local n=0 i
  for i in $(seq 1 600); do
    n=$(psql -c "SELECT count(DISTINCT r.headers->>'webhook-id') FROM sandbox.inbox_requests r
      WHERE r.inbox LIKE 'bench-h%' AND r.inbox <> 'bench-hang' AND r.headers->>'webhook-id' LIKE 'evt_${tag}_%'")
    [ "$n" -ge "$EVENTS" ] && break
    sleep 0.5
  done
  [ "$n" -ge "$EVENTS" ] || { echo "bench: only $n of $EVENTS reached the healthy receivers" >&2; return 1; }
  # The CPU of the commits and the deliveries, not of the queries below.
  after=$(cpu_now)
  psql -F ' ' -c "SELECT count(*), round(extract(epoch FROM max(created_at) - min(created_at))::numeric, 1)
      FROM events WHERE id LIKE 'evt_${tag}_%'" |
    awk -v t="$tag" '{ printf "  run %s: %d events committed in %s s (%.0f a second)\n", t, $1, $2, ($2 > 0 ? $1 / $2 : 0) }' >&2
  echo "  run $tag: $(( $(passive_opens) - opens0 )) TCP connections accepted on the machine (the senders' new connections to the sandbox, the bench's psql)" >&2
  pg_stats "$tag"
  local cpu
  cpu=$(awk -v b="$before" -v a="$after" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    split(b, x, " "); split(a, y, " ")
    printf "%.1f %.1f %.1f %.1f", (y[1] - x[1]) / hz, (y[2] - x[2]) / hz, (y[3] - x[3]) / hz, (y[4] - x[4]) / 1e9 }')
  psql -F ' ' -c "SELECT count(*), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
      round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1), round(max(ms)::numeric, 1),
      '$cpu'
    FROM ($(healthy_receipts "e.id LIKE 'evt_${tag}_%'")) x"
  # Where the slow receipts were: how many took over 50 ms, over which
  # seconds of the run they were committed, and where their time went:
  # waiting to be claimed (commit to the claim that published the delivery)
  # or after the claim (claim to receipt: the sender's throttle and hold,
  # its thread, the connection).
  # (A hash join: by index, event by event, this took 40 s of PostgreSQL.)
  psql -F ' ' -c "SET enable_nestloop = off" -c "SELECT count(*), coalesce(string_agg(DISTINCT s::text, ',' ORDER BY s::text), '-'),
      coalesce(round(avg(claim_ms)::numeric, 1), 0), coalesce(round(avg(ms - claim_ms)::numeric, 1), 0)
    FROM (SELECT (extract(epoch FROM e.created_at - t.t0))::int AS s,
                 extract(epoch FROM min(r.received_at) - e.created_at) * 1000 AS ms,
                 extract(epoch FROM min(d.published_at) - e.created_at) * 1000 AS claim_ms
            FROM sandbox.inbox_requests r JOIN events e ON e.id = r.headers->>'webhook-id'
            JOIN webhook_deliveries d ON d.event_id = e.id,
                 (SELECT min(created_at) AS t0 FROM events WHERE id LIKE 'evt_${tag}_%') t
           WHERE r.inbox <> 'bench-hang' AND e.id LIKE 'evt_${tag}_%'
           GROUP BY e.id, e.created_at, t.t0) x WHERE ms > 50" |
    awk -v t="$tag" '{ printf "  run %s: %s receipts over 50 ms, committed in seconds %s of the run; on average %s ms to be claimed, %s ms from claim to receipt\n", t, $1, $2, $3, $4 }' >&2
  # The same split for the run's slowest 1 % (from its p99 up), whatever
  # their time: what the p99 is made of, in a run with the hanging receiver
  # and one without (waiting to be claimed: the senders were busy or
  # asleep; claim to receipt: the request itself, its thread, the
  # receiver). The median of the whole run beside it, for scale.
  psql -F ' ' -c "SET enable_nestloop = off" -c "WITH x AS (
      SELECT extract(epoch FROM min(r.received_at) - e.created_at) * 1000 AS ms,
             extract(epoch FROM min(d.published_at) - e.created_at) * 1000 AS claim_ms
        FROM sandbox.inbox_requests r JOIN events e ON e.id = r.headers->>'webhook-id'
        JOIN webhook_deliveries d ON d.event_id = e.id
       WHERE r.inbox <> 'bench-hang' AND e.id LIKE 'evt_${tag}_%'
       GROUP BY e.id, e.created_at),
    q AS (SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99,
                 percentile_cont(0.5) WITHIN GROUP (ORDER BY claim_ms) AS claim50,
                 percentile_cont(0.5) WITHIN GROUP (ORDER BY ms - claim_ms) AS send50 FROM x)
    SELECT count(*), round(avg(claim_ms)::numeric, 1), round(avg(ms - claim_ms)::numeric, 1),
           round(max(q.claim50)::numeric, 1), round(max(q.send50)::numeric, 1)
      FROM x, q WHERE x.ms >= q.p99" |
    awk -v t="$tag" '{ printf "  run %s: its slowest %s receipts (p99 and over): on average %s ms to be claimed, %s ms from claim to receipt (all receipts, median: %s and %s ms)\n", t, $1, $2, $3, $4, $5 }' >&2
}

# A run with the hanging receiver; prints the run's figures and how many of
# its events' requests reached the hanging one.
run_with() {
  local out hung
  hang_on
  out=$(run "$1" 1 "${2:-$EVENTS}")
  hung=$(psql -c "SELECT count(*) FROM sandbox.inbox_requests WHERE inbox = 'bench-hang'
    AND headers->>'webhook-id' LIKE 'evt_$1_%'")
  # When they came (second of the run: requests), to set beside the seconds
  # of the slow healthy receipts: a request that times out ends 10 s later.
  psql -c "SELECT string_agg(s || ':' || n, ' ' ORDER BY s) FROM (
      SELECT (extract(epoch FROM r.received_at - t.t0))::int AS s, count(*) AS n
        FROM sandbox.inbox_requests r, (SELECT min(created_at) AS t0 FROM events WHERE id LIKE 'evt_$1_%') t
       WHERE r.inbox = 'bench-hang' AND r.headers->>'webhook-id' LIKE 'evt_$1_%' GROUP BY 1) x" |
    awk -v t="$1" '{ printf "  run %s: requests to the hanging receiver by second of the run (second:requests): %s\n", t, $0 }' >&2
  # The hanging subscription at the end of the run: its deliveries by
  # status, its jobs (claimed: attempts > 0; due later), its circuit.
  psql -c "SELECT (SELECT string_agg(status || ':' || n, ' ') FROM (SELECT status, count(*) n
        FROM webhook_deliveries WHERE subscription_id = '$hang_sub' GROUP BY 1) x),
      (SELECT count(*) || ' jobs, ' || count(*) FILTER (WHERE j.available_at > now()) || ' due later'
        FROM jobs j JOIN webhook_deliveries d ON d.id = j.payload->>'delivery_id'
       WHERE d.subscription_id = '$hang_sub'),
      (SELECT 'open until +' || coalesce(round(extract(epoch FROM open_until - now())::numeric, 1)::text, '-')
              || ' s, failing since ' || coalesce(round(extract(epoch FROM now() - failing_since)::numeric, 1)::text, '-') || ' s'
        FROM webhook_subscriptions WHERE id = '$hang_sub')" |
    awk -v t="$1" -v s="$hang_sub" '{ printf "  run %s: the hanging subscription %s at the end: %s\n", t, s, $0 }' >&2
  hang_off
  echo "$out $hung"
}

# Warm up (connections, prepared statements) with the hanging receiver: the
# first run with it made the sandbox open new PostgreSQL connections for the
# requests held 12 s (3 in that run, with about 1.1 s of PostgreSQL CPU for
# the new backends, in the middle of the measure), a cost every later run
# had already paid.
run_with w 400 >/dev/null
echo "circuit breaker bench: $HEALTHY healthy receivers, $EVENTS events one per commit ${LAT_GAP_MS} ms apart, 1 instance x 2 children x $TRAVEL_WORKERS sender threads"
# The second run of a pair: with the hanging receiver, or (the control)
# one more without it (no request reaches a hanging receiver).
second() {
  if [ "${BENCH_CONTROL:-0}" = 1 ]; then echo "$(run "$1" 0) 0"; else run_with "$1"; fi
}
what="with a receiver answering after $HANG_MS ms" ratio="healthy p99 with / without"
[ "${BENCH_CONTROL:-0}" = 1 ] && what="again without it (control)" ratio="healthy p99 control / without"
ratios=()
for r in $(seq 1 "${BENCH_ROUNDS:-1}"); do
  if [ $((r % 2)) = 1 ]; then
    without=$(run "a$r" 0); with=$(second "b$r"); order="without, then with"
  else
    with=$(second "b$r"); without=$(run "a$r" 0); order="with, then without"
  fi
  awk -v a="$without" -v b="$with" -v r="$r" -v o="$order" -v w="$what" -v q="$ratio" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    printf "round %d (%s; load average %s):\n", r, o, l
    printf "  without the hanging receiver: commit to receipt p50 %s ms, p99 %s ms, max %s ms (%d events)\n", x[2], x[3], x[4], x[1]
    printf "  %s: commit to receipt p50 %s ms, p99 %s ms, max %s ms (%d events; %d requests reached the hanging one)\n", w, y[2], y[3], y[4], y[1], y[9]
    printf "  CPU s (mod_travel, sandbox, PostgreSQL): without %s, %s, %s; with %s, %s, %s\n", x[5], x[6], x[7], y[5], y[6], y[7]
    # Per healthy event delivered (the requests to the hanging receiver and the
    # commits are in the CPU of the run: what the healthy ones cost, all in).
    if (x[1] > 0 && y[1] > 0) printf "  CPU ms per delivery (mod_travel + PostgreSQL): without %.2f (%.2f + %.2f), with %.2f (%.2f + %.2f)\n", (x[5] + x[7]) * 1000 / x[1], x[5] * 1000 / x[1], x[7] * 1000 / x[1], (y[5] + y[7]) * 1000 / y[1], y[5] * 1000 / y[1], y[7] * 1000 / y[1]
    printf "  mod_travel threads runnable but waiting for a CPU: without %s s, with %s s\n", x[8], y[8]
    if (x[3] > 0) printf "  %s: %.2f\n", q, y[3] / x[3]
  }'
  ratios+=("$(awk -v a="$without" -v b="$with" 'BEGIN { split(a, x, " "); split(b, y, " "); if (x[3] > 0) printf "%.2f", y[3] / x[3] }')")
done
# Every pair's ratio, and their median (a pair moves by a tenth or more from
# run to run on a shared machine; the median of several is the figure).
if [ ${#ratios[@]} -gt 1 ]; then
  printf '%s\n' "${ratios[@]}" | sort -n | awk -v all="${ratios[*]}" -v q="$ratio" '{ v[NR] = $1 }
    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          printf "%s, pair by pair: %s; median %.2f\n", q, all, m }'
fi
# The receipts of all the rounds' runs of each side pooled (EVENTS x rounds
# each): a p99 of 20,000 receipts moves less than one of 5,000 (the 50th
# slowest, a few scheduling stalls on a shared machine).
if [ "${BENCH_ROUNDS:-1}" -gt 1 ]; then
  pooled() {
    psql -c "SET enable_nestloop = off" -c "SELECT count(*), round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1)
      FROM ($(healthy_receipts "e.id ~ '^evt_$1[0-9]+_[0-9]+\$'")) x"
  }
  awk -v a="$(pooled a)" -v b="$(pooled b)" -v q="$ratio" 'BEGIN { split(a, x, "|"); split(b, y, "|")
    printf "%s, the %d and %d receipts of all rounds pooled: p99 %s ms / %s ms = %.2f\n", q, y[1], x[1], y[2], x[2], y[2] / x[2] }'
fi
