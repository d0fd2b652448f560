#!/usr/bin/env bash
# The chaos soak (`make chaos`; not part of `make test`: it takes minutes and
# wants the machine):
#
#   tests/chaos/soak.sh [BOOKINGS] [EVENTS]          (default 1000, 1000)
#
# On a throwaway stack (own PostgreSQL cluster, the sandbox in its own httpd,
# the API httpd on free ports, webhook retries "1 1 1", short job lease and
# poll), CHAOS_CLIENTS clients (default 8) book BOOKINGS SUPPLIER_A flights
# through the API (offers -> prebook -> book with the sandbox's test cards;
# every 10th passenger is named Async so ticketing finishes in a background
# job, every 20th booking is first tried with a declined card, every 7th
# confirmed booking is cancelled so refunds run), while EVENTS more webhook
# events are written to the outbox in batches, everything of the
# organization going to one subscription at the sandbox inbox. Meanwhile a
# chaos loop, bounded by CHAOS_SECONDS (default 900) and by the clients
# finishing, every 1-3 s does one of: kill -9 of a random child of the API
# httpd (pids read from its pid file's children, nothing else), a graceful
# restart of the API httpd, a fast restart of PostgreSQL.
#
# Clients retry what the chaos broke (no answer, 5xx, 409
# idempotency_key_in_use, 429) with the same idempotency keys, at most
# CHAOS_TRIES times per step; those answers are counted, not failures.
# After the clients finish, a bounded wait (CHAOS_DRAIN seconds, default
# 300) for the queue to drain, then the invariants (exit 1 if any fails):
#   events       every event of the organization received by the inbox with
#                a 2xx at least once (lost = 0); duplicates are counted
#   payments     per booking at the sandbox payment provider (authorizations
#                found by their idempotency key bkg_...:authorize:N): at
#                most one capture (double charges = 0); money kept only for
#                CONFIRMED bookings (captured) and CANCELED ones (captured
#                less the refund the service recorded); none left held;
#                no authorization that belongs to no booking
#   bookings     none in an in-progress state; CONFIRMED ones have a
#                ticketed order at the supplier and a CAPTURED payment;
#                no ticketed order at the supplier without a CONFIRMED (or
#                CANCELED) booking; what the client was told (200
#                CONFIRMED, 422 book_failed) matches the final state
#
# CHAOS_MODE=failover (`make chaos-failover`) replaces the chaos loop with a
# failover: a streaming standby of the cluster (pg_basebackup -R, its own
# socket and port) runs from the start, the API and sandbox instances reach
# the database through a multi-host conninfo (TRAVEL_DB_CONNINFO,
# TRAVEL_NOTIFY_CONNINFO, TRAVEL_SANDBOX_DB_CONNINFO: both hosts,
# target_session_attrs=read-write), and FAILOVER_AFTER seconds (default 15)
# into the load the primary is stopped (pg_ctl -m fast) and the standby
# promoted PROMOTE_AFTER seconds later (default 5). Reported: the window of
# answers that were 5xx or none, measured from the stop; one more invariant:
# no 500 answer (a lost database is a 503 with Retry-After).
# KEEP=1 keeps the stack folder.
set -uo pipefail
MODE=${CHAOS_MODE:-chaos}
FAILOVER_AFTER=${FAILOVER_AFTER:-15}
PROMOTE_AFTER=${PROMOTE_AFTER:-5}
BOOKINGS=${1:-1000}
EVENTS=${2:-1000}
CLIENTS=${CHAOS_CLIENTS:-8}
CHAOS_SECONDS=${CHAOS_SECONDS:-900}
DRAIN=${CHAOS_DRAIN:-300}
TRIES=${CHAOS_TRIES:-40}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-chaos.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

used=" "
free_port() {
  local p
  while :; do
    # Below the kernel's ephemeral range (32768-60999).
    p=$(( 20000 + RANDOM % 12000 ))
    [[ $used == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then used+="$p "; echo "$p"; return; fi
  done
}
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
export TRAVEL_RETRY_SCHEDULE="1 1 1" TRAVEL_JOB_LEASE=3s TRAVEL_JOB_POLL=100ms STACK_PG_FAST=1
export TRAVEL_SANDBOX_LATENCY="1ms 5ms"
export TRAVEL_SUPPLIER_TIMEOUT=6s TRAVEL_PAYMENT_TIMEOUT=6s TRAVEL_SANDBOX_HANG=10s
# What is measured is the chaos, not the rate limiter.
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0

pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  "$stack" stop "$dir" >/dev/null 2>&1
  [ -f "$dir/standby/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$dir/standby" -m fast -w stop >/dev/null 2>&1
  if [ -z "${KEEP:-}" ]; then rm -rf "$dir"; else echo "stack kept in $dir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$stack" pg-start "$dir" >/dev/null || exit 1
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
DBCI="host=$dir/pgrun port=$TRAVEL_PG_PORT dbname=travel user=travel"
if [ "$MODE" = failover ]; then
  # The standby: a base backup of the running cluster that streams from it.
  SB_PORT=$(free_port)
  mkdir -p "$dir/standby" "$dir/standby-run"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir/standby" "$dir/standby-run"
  chmod 700 "$dir/standby"
  as_pg "$pgbin/pg_basebackup" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U postgres -D "$dir/standby" \
    -R -X stream -c fast >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
  printf "port = %s\nunix_socket_directories = '%s'\n" "$SB_PORT" "$dir/standby-run" \
    | as_pg tee -a "$dir/standby/postgresql.conf" >/dev/null
  as_pg "$pgbin/pg_ctl" -D "$dir/standby" -l "$dir/standby/server.log" -w -t 60 start >/dev/null \
    || { tail -20 "$dir/standby/server.log" >&2; exit 1; }
  DBCI="host=$dir/pgrun,$dir/standby-run port=$TRAVEL_PG_PORT,$SB_PORT dbname=travel user=travel target_session_attrs=read-write connect_timeout=2"
  export TRAVEL_DB_CONNINFO="$DBCI" TRAVEL_NOTIFY_CONNINFO="$DBCI" TRAVEL_SANDBOX_DB_CONNINFO="$DBCI"
fi
# Everything started from here resolves through the test resolver (see
# tests/run-stack-tests.sh): the soak reaches only loopback.
export LD_PRELOAD="$root/build/tests/libhosts_only.so${LD_PRELOAD:+ $LD_PRELOAD}"
export TRAVEL_TEST_DNS_LOG="$dir/dns-refused.log"
: >"$TRAVEL_TEST_DNS_LOG"; chmod 666 "$TRAVEL_TEST_DNS_LOG"
"$stack" sandbox-start "$dir" >/dev/null || exit 1
"$stack" httpd-start "$dir" a >/dev/null || exit 1
db=$(cat "$dir/db.conninfo")
API="http://127.0.0.1:$TRAVEL_PORT/v1"
conf="$dir/httpd-a/httpd.conf"
psql() { "$pgbin/psql" "$DBCI" -qtAX -v ON_ERROR_STOP=1 "$@"; }

org=$("$root/bin/travelctl" --db "$db" org create chaos | tail -n 1)
KEY=$("$root/bin/travelctl" --db "$db" key create --org "$org" --user chaos 2>/dev/null | tail -n 1)
types='["flight.booking.confirmed","flight.booking.failed","flight.booking.canceled",
  "flight.booking.cancellation_rejected","flight.booking.airline_initiated_change"]'
sub=$(curl -sf -H "x-api-key: $KEY" -H 'content-type: application/json' \
  -d "{\"url\": \"http://127.0.0.1:$TRAVEL_SANDBOX_PORT/inbox/chaos\", \"event_types\": $types}" \
  "$API/flight/webhook-subscriptions" | jq -r ".data.id // .id")
[[ $sub == whs_* ]] || { echo "chaos: could not subscribe the inbox" >&2; exit 1; }

# ---- the clients ----
# One HTTP call: sets CODE (000: no answer) and RESP (the body); appends the
# step and code to the client's tally.
call() {
  local tally=$1 step=$2 method=$3 path=$4 body=$5 idem=${6:-} out
  out=$(mktemp "$dir/resp.XXXXXX")
  local args=(-s -o "$out" -w '%{http_code}' --max-time 40 -X "$method"
              -H "x-api-key: $KEY" -H 'content-type: application/json')
  [ -n "$idem" ] && args+=(-H "x-idempotency-key: $idem")
  [ -n "$body" ] && args+=(-d "$body")
  CODE=$(curl "${args[@]}" "$API$path" 2>/dev/null) || true
  [ -n "$CODE" ] || CODE=000
  RESP=$(cat "$out"); rm -f "$out"
  echo "$step $CODE $EPOCHREALTIME" >>"$tally"
}
# Whether an answer is one to try again with the same key: the chaos broke
# the call (no answer, 5xx other than result_unknown's final word, 409 the
# same key still running, 429).
retryable() {
  case $CODE in
    000|429|502|503|504) return 0 ;;
    500) return 0 ;;
    409) [ "$(jq -r '.error.code // empty' <<<"$RESP" 2>/dev/null)" = idempotency_key_in_use ] ;;
    *) return 1 ;;
  esac
}
routes=(LHR-JFK JFK-LHR CDG-JFK LHR-CDG)

book_one() {
  local i=$1 tally=$2 res=$3 try ref id route day last body
  route=${routes[$((i % 4))]}
  day=$(date -u -d "+$((2 + i / 4)) days" +%F)
  last=Byron; (( i % 10 == 4 )) && last=Async
  for ((try = 0; try < TRIES; try++)); do
    call "$tally" offers POST /flight/offers "{\"journeys\":[{\"origin\":\"${route%-*}\",\"destination\":\"${route#*-}\",\"date\":\"$day\"}],\"passengers\":{\"adults\":1},\"limit\":1,\"supplier\":\"SUPPLIER_A\"}"
    ref=$(jq -r '.data[0].offer_reference // empty' <<<"$RESP" 2>/dev/null)
    [ "$CODE" = 200 ] && [ -n "$ref" ] && break
    sleep 0.5
  done
  [ -n "${ref:-}" ] || { echo "$i - no_offer" >>"$res"; return; }
  body="{\"offer_reference\":\"$ref\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"$last\",\"email\":\"ada@example.com\",\"phone_number\":\"5550100\",\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\",\"last_name\":\"$last\",\"birthday\":\"1990-01-02\",\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\"}]}"
  for ((try = 0; try < TRIES; try++)); do
    call "$tally" prebook POST /flight/prebook "$body" "chaos-$i-prebook"
    retryable || break
    sleep 0.5
  done
  id=$(jq -r '.data.id // .error.booking_id // empty' <<<"$RESP" 2>/dev/null)
  case $CODE in
    200|201) ;;
    *) echo "$i ${id:--} prebook_${CODE}_$(jq -r '.error.code // empty' <<<"$RESP" 2>/dev/null)" >>"$res"; return ;;
  esac
  # A repeated key answers the booking as it is: one whose first prebook
  # died with its process is FAILED (prebook_interrupted; a new key is
  # needed), which the client takes as the answer.
  local st
  st=$(jq -r '.data.status // empty' <<<"$RESP" 2>/dev/null)
  if [ "$st" != READY_FOR_COMPLETE ]; then
    echo "$i $id prebook_${CODE}_${st}_$(jq -r '.data.failure.code // empty' <<<"$RESP" 2>/dev/null)" >>"$res"
    return
  fi
  if (( i % 20 == 7 )); then
    for ((try = 0; try < TRIES; try++)); do
      call "$tally" book-declined POST "/flight/bookings/$id/book" '{"payment_instrument_id":"pi_test_decline"}' "chaos-$i-book-declined"
      retryable || break
      sleep 0.5
    done
  fi
  for ((try = 0; try < TRIES; try++)); do
    call "$tally" book POST "/flight/bookings/$id/book" '{"payment_instrument_id":"pi_test_visa"}' "chaos-$i-book"
    retryable || break
    sleep 0.5
  done
  local told="book_$CODE"
  case $CODE in 4*) told="book_${CODE}_$(jq -r '.error.code // empty' <<<"$RESP" 2>/dev/null)" ;; esac
  if [ "$CODE" = 200 ] && (( i % 7 == 3 )); then
    for ((try = 0; try < TRIES; try++)); do
      call "$tally" cancel POST "/flight/bookings/$id/cancel" '' "chaos-$i-cancel"
      retryable || break
      sleep 0.5
    done
    told="$told cancel_$CODE"
    case $CODE in 4*) told="${told}_$(jq -r '.error.code // empty' <<<"$RESP" 2>/dev/null)" ;; esac
  fi
  echo "$i $id $told" >>"$res"
}

client() {
  local w=$1 i
  for ((i = w; i < BOOKINGS; i += CLIENTS)); do
    book_one "$i" "$dir/tally-$w" "$dir/results-$w"
  done
}

# ---- the events: EVENTS more, in batches, while the chaos runs ----
emitter() {
  local sent=0 n
  while (( sent < EVENTS )); do
    n=$(( EVENTS - sent < 50 ? EVENTS - sent : 50 ))
    # One transaction a batch; retried when PostgreSQL is restarting.
    if psql -c "WITH e AS (INSERT INTO events (id, org_id, family, type, data)
        SELECT 'evt_' || gen_random_uuid(), '$org', 'flight', 'flight.booking.confirmed',
          jsonb_build_object('booking', jsonb_build_object('id', 'bkg_chaos_' || ($sent + i)), 'chaos', true)
        FROM generate_series(1, $n) i RETURNING id)
      INSERT INTO jobs (kind, payload) SELECT 'event.publish', jsonb_build_object('event_id', id) FROM e" \
        >/dev/null 2>&1; then
      sent=$((sent + n))
      sleep 1
    else
      sleep 0.5
    fi
  done
}

# ---- the chaos ----
chaos() {
  local deadline=$(( $(date +%s) + CHAOS_SECONDS )) r parent kids victim
  : >"$dir/chaos.log"
  while (( $(date +%s) < deadline )) && [ ! -e "$dir/clients-done" ]; do
    sleep "$(( 1 + RANDOM % 3 ))"
    r=$(( RANDOM % 100 ))
    if (( r < 60 )); then
      parent=$(cat "$dir/httpd-a/httpd.pid" 2>/dev/null) || continue
      mapfile -t kids < <(ps -o pid= --ppid "$parent" | tr -d ' ')
      (( ${#kids[@]} )) || continue
      victim=${kids[$((RANDOM % ${#kids[@]}))]}
      kill -9 "$victim" 2>/dev/null && echo "kill $victim" >>"$dir/chaos.log"
    elif (( r < 85 )); then
      /usr/sbin/apache2 -f "$conf" -k graceful 2>>"$dir/chaos.err" && echo "graceful" >>"$dir/chaos.log"
    else
      as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -m fast -w -t 60 restart \
        >>"$dir/chaos.err" 2>&1 && echo "pg-restart" >>"$dir/chaos.log"
    fi
  done
}

# ---- the failover (CHAOS_MODE=failover) ----
failover() {
  : >"$dir/chaos.log"
  sleep "$FAILOVER_AFTER"
  echo "$EPOCHREALTIME" >"$dir/failover-stop"
  as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m fast -w -t 60 stop >>"$dir/chaos.err" 2>&1
  echo "$EPOCHREALTIME" >"$dir/failover-stopped"
  sleep "$PROMOTE_AFTER"
  as_pg "$pgbin/pg_ctl" -D "$dir/standby" -w -t 60 promote >>"$dir/chaos.err" 2>&1
  echo "$EPOCHREALTIME" >"$dir/failover-promoted"
}

echo "chaos soak ($MODE): $BOOKINGS bookings by $CLIENTS clients, $EVENTS more events (stack in $dir)"
t0=$(date +%s)
if [ "$MODE" = failover ]; then failover & else chaos & fi
pids+=($!); chaos_pid=$!
emitter & pids+=($!); emitter_pid=$!
cpids=()
for ((w = 0; w < CLIENTS; w++)); do client "$w" & cpids+=($!); pids+=($!); done
for p in "${cpids[@]}"; do wait "$p"; done
wait "$emitter_pid"
touch "$dir/clients-done"
wait "$chaos_pid"
t1=$(date +%s)
kills=$(grep -c '^kill' "$dir/chaos.log"); gracefuls=$(grep -c '^graceful' "$dir/chaos.log")
pgr=$(grep -c '^pg-restart' "$dir/chaos.log")
echo "load done in $((t1 - t0)) s; chaos: $kills children killed, $gracefuls graceful restarts, $pgr PostgreSQL restarts"
cat "$dir"/tally-* | awk '{n[$2]++; t++} END {
  printf "client calls: %d;", t; for (c in n) printf " %s:%d", c, n[c]; printf "\n" }'
answers_500=0
if [ "$MODE" = failover ]; then
  stop=$(cat "$dir/failover-stop"); stopped=$(cat "$dir/failover-stopped")
  promoted=$(cat "$dir/failover-promoted")
  echo "failover: primary stop began at +0.0 s, done at +$(awk -v a="$stop" -v b="$stopped" 'BEGIN {printf "%.1f", b - a}') s," \
    "standby promoted at +$(awk -v a="$stop" -v b="$promoted" 'BEGIN {printf "%.1f", b - a}') s"
  # The window of unanswered or 5xx calls, from the stop.
  cat "$dir"/tally-* | awk -v s="$stop" '$3 >= s && ($2 == "000" || $2 ~ /^5/) {
      if (!n || $3 < f) f = $3; if ($3 > l) l = $3; n++; c[$2]++ }
    END { if (!n) { print "failover: no 5xx or unanswered call"; exit }
      printf "failover: %d calls answered 5xx or not at all, from +%.1f s to +%.1f s after the stop (", n, f - s, l - s
      for (k in c) printf " %s:%d", k, c[k]; print " )" }'
  cat "$dir"/tally-* | awk -v s="$stop" '$3 >= s && $2 == "409" { n++; if ($3 > l) l = $3 }
    END { if (n) printf "failover: %d answers 409 (idempotency key in use), the last +%.1f s after the stop\n", n, l - s }'
  answers_500=$(cat "$dir"/tally-* | awk '$2 == "500"' | wc -l)
fi

# ---- drain: the API instance keeps running its jobs; bounded ----
pending_sql="SELECT
  (SELECT count(*) FROM flight_bookings WHERE org_id = '$org' AND status IN
     ('CREATED','PREBOOK_IN_PROGRESS','COMPLETE_IN_PROGRESS','CANCEL_IN_PROGRESS'))
  + (SELECT count(*) FROM webhook_deliveries WHERE subscription_id = '$sub' AND status IN ('PENDING','PUBLISHED'))
  + (SELECT count(*) FROM jobs WHERE status IN ('queued','running') AND kind <> 'flight.booking.expire'
       AND kind NOT LIKE '%sweep%')
  + (SELECT count(*) FROM flight_authorization_intents WHERE status IN ('PENDING','UNRESOLVED','RELEASING'))
  + (SELECT count(*) FROM flight_refunds WHERE status = 'PENDING')"
left=-1
for ((s = 0; s < DRAIN; s += 2)); do
  left=$(psql -c "$pending_sql" 2>/dev/null) || left=-1
  [ "$left" = 0 ] && break
  sleep 2
done
echo "drain: $s s, $left items still pending"
"$stack" httpd-stop "$dir" a >/dev/null 2>&1

# ---- the invariants ----
failed=0
check() { # NAME VALUE: VALUE must be 0
  if [ "$2" = 0 ]; then printf '  ok    %-58s 0\n' "$1"
  else printf '  FAIL  %-58s %s\n' "$1" "$2"; failed=1; fi
}
q() { psql -c "$1"; }

# Events.
total_events=$(q "SELECT count(*) FROM events WHERE org_id = '$org'")
chaos_events=$(q "SELECT count(*) FROM events WHERE org_id = '$org' AND data ? 'chaos'")
ok_rows="SELECT headers->>'webhook-id' AS id FROM sandbox.inbox_requests WHERE inbox = 'chaos' AND status BETWEEN 200 AND 299"
lost=$(q "SELECT count(*) FROM events e WHERE e.org_id = '$org'
  AND NOT EXISTS (SELECT 1 FROM sandbox.inbox_requests r WHERE r.inbox = 'chaos'
    AND r.status BETWEEN 200 AND 299 AND r.headers->>'webhook-id' = e.id)")
dups=$(q "SELECT count(*) - count(DISTINCT id) FROM ($ok_rows) r")
requests=$(q "SELECT count(*) FROM sandbox.inbox_requests WHERE inbox = 'chaos'")
dlv=$(q "SELECT string_agg(status || ':' || n, ' ') FROM (SELECT status, count(*) n FROM webhook_deliveries
  WHERE subscription_id = '$sub' GROUP BY status ORDER BY status) s")
echo
echo "events: $total_events recorded ($chaos_events written by the soak, $((total_events - chaos_events)) by bookings);" \
  "inbox: $requests requests, $dups duplicate 2xx deliveries; deliveries $dlv"

# Payments: the provider's authorizations by booking.
q "CREATE TABLE IF NOT EXISTS public.chaos_auth AS
  SELECT split_part(i.key, ':', 1) AS booking_id, a.id, a.status, a.amount,
         a.amount_captured, a.amount_refunded
  FROM sandbox.idempotency i JOIN sandbox.pay_authorizations a ON a.id = i.response->>'id'
  WHERE i.key LIKE 'bkg\_%:authorize:%'" >/dev/null
auths=$(q "SELECT count(*) FROM sandbox.pay_authorizations")
captures=$(q "SELECT count(*) FROM chaos_auth WHERE amount_captured > 0")
orphan_auths=$(q "SELECT count(*) FROM sandbox.pay_authorizations a WHERE NOT EXISTS
  (SELECT 1 FROM chaos_auth c WHERE c.id = a.id)")
double=$(q "SELECT count(*) FROM (SELECT booking_id FROM chaos_auth WHERE amount_captured > 0
  GROUP BY booking_id HAVING count(*) > 1) d")
charge_no_booking=$(q "SELECT count(*) FROM chaos_auth c JOIN flight_bookings b ON b.id = c.booking_id
  WHERE c.amount_captured - c.amount_refunded > 0 AND b.status NOT IN ('CONFIRMED', 'CANCELED')")
unknown_booking=$(q "SELECT count(*) FROM chaos_auth c WHERE NOT EXISTS
  (SELECT 1 FROM flight_bookings b WHERE b.id = c.booking_id)")
held=$(q "SELECT count(*) FROM sandbox.pay_authorizations WHERE status = 'requires_capture'")
# A CANCELED booking keeps at the provider what it captured less the refund
# the service recorded (the fee); the refund must have gone through.
cancel_mismatch=$(q "SELECT count(*) FROM flight_bookings b
  JOIN flight_payments p ON p.booking_id = b.id AND p.collected_by = 'SERVICE'
  LEFT JOIN flight_refunds f ON f.payment_id = p.id
  LEFT JOIN chaos_auth c ON c.id = p.provider_ref
  WHERE b.org_id = '$org' AND b.status = 'CANCELED'
    AND (f.status IS DISTINCT FROM 'SUBMITTED'
         OR c.amount_refunded IS DISTINCT FROM round(f.amount * 100)::bigint)")

# Bookings.
states=$(q "SELECT string_agg(status || ':' || n, ' ') FROM (SELECT status, count(*) n FROM flight_bookings
  WHERE org_id = '$org' GROUP BY status ORDER BY status) s")
in_progress=$(q "SELECT count(*) FROM flight_bookings WHERE org_id = '$org' AND status IN
  ('CREATED','PREBOOK_IN_PROGRESS','COMPLETE_IN_PROGRESS','CANCEL_IN_PROGRESS')")
confirmed_no_order=$(q "SELECT count(*) FROM flight_bookings b WHERE b.org_id = '$org' AND b.status = 'CONFIRMED'
  AND NOT EXISTS (SELECT 1 FROM sandbox.flight_orders o WHERE o.id = b.supplier_reference AND o.status = 'ticketed')")
confirmed_uncharged=$(q "SELECT count(*) FROM flight_bookings b WHERE b.org_id = '$org' AND b.status = 'CONFIRMED'
  AND NOT EXISTS (SELECT 1 FROM flight_payments p JOIN chaos_auth c ON c.id = p.provider_ref
    WHERE p.booking_id = b.id AND p.status = 'CAPTURED' AND c.amount_captured > 0)")
order_no_booking=$(q "SELECT count(*) FROM sandbox.flight_orders o WHERE o.status = 'ticketed'
  AND NOT EXISTS (SELECT 1 FROM flight_bookings b WHERE b.supplier_reference = o.id
    AND b.status IN ('CONFIRMED', 'CANCELED'))")
failed_charged=$(q "SELECT count(*) FROM flight_bookings b JOIN chaos_auth c ON c.booking_id = b.id
  WHERE b.org_id = '$org' AND b.status = 'FAILED' AND c.amount_captured > c.amount_refunded")
# What each client was told against where its booking ended.
cat "$dir"/results-* >"$dir/results"
told_mismatch=0
while read -r i id told; do
  [ "$id" = - ] && continue
  final=$(q "SELECT status FROM flight_bookings WHERE id = '$id'")
  case $told in
    "book_200 cancel_200"|"book_200 cancel_202") want="CANCELED" ;;
    book_200*) want="CONFIRMED CANCELED" ;;
    book_422_book_failed*|prebook_*_FAILED_*) want="FAILED" ;;
    *) continue ;;
  esac
  [[ " $want " == *" $final "* ]] || { told_mismatch=$((told_mismatch + 1)); echo "  booking $id: told $told, now $final"; }
done <"$dir/results"
outcomes=$(awk '{ $1 = ""; $2 = ""; sub(/^ +/, ""); n[$0]++ } END { for (k in n) printf " %s:%d", k, n[k] }' "$dir/results")
dead=$(q "SELECT coalesce(string_agg(kind || ':' || n, ' '), 'none') FROM (SELECT kind, count(*) n FROM jobs WHERE status = 'dead' GROUP BY kind) s")
echo "bookings: $(wc -l <"$dir/results") attempted; told:$outcomes"
echo "final states: $states; payments: $auths authorizations, $captures captured; dead jobs: $dead"
echo
echo "invariants:"
check "events lost (recorded, never received with a 2xx)" "$lost"
check "double charges (bookings with two captures)" "$double"
check "charges kept without a CONFIRMED/CANCELED booking" "$charge_no_booking"
check "FAILED bookings with a capture not refunded" "$failed_charged"
check "authorizations of no booking" "$((orphan_auths + unknown_booking))"
check "authorizations still held" "$held"
check "CANCELED bookings whose refund is not at the provider" "$cancel_mismatch"
check "bookings in an in-progress state" "$in_progress"
check "CONFIRMED bookings without a ticketed supplier order" "$confirmed_no_order"
check "CONFIRMED bookings without a captured payment" "$confirmed_uncharged"
check "ticketed supplier orders without a CONFIRMED booking" "$order_no_booking"
check "bookings whose final state contradicts the client's answer" "$told_mismatch"
[ "$MODE" = failover ] && check "500 answers (a lost database must answer 503)" "$answers_500"
check "names looked up outside the test resolver's table" "$(sort -u "$TRAVEL_TEST_DNS_LOG" | wc -l)"
if [ $failed -eq 0 ]; then echo "chaos soak passed"; else KEEP=1; echo "CHAOS SOAK FAILED"; fi
exit $failed
