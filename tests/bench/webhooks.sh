#!/usr/bin/env bash
# Webhook delivery throughput to the local sandbox inbox.
#
#   tests/bench/webhooks.sh [EVENTS] [INSTANCES]     (make bench)
#
# Starts a throwaway stack (its own PostgreSQL cluster and 1 or 2 httpd
# instances on free ports, TRAVEL_WORKERS sender threads per child (4), 2
# children per instance), subscribes one endpoint at the sandbox inbox,
# commits EVENTS events (default 5000) into the outbox in one transaction
# and times how long until every delivery is DELIVERED. Reports:
#   end to end   - commit of the events to the last delivery recorded
#                  (fan-out, signing, POST, recording: everything)
#   sending      - first to last attempt recorded (the senders alone)
# The inbox itself writes each request to PostgreSQL, so the receiver
# shares the 2 cores with the senders and the database.
set -euo pipefail
EVENTS=${1:-5000}
INSTANCES=${2:-1}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"

used=" "
free_port() {
  local p
  while :; do
    # Below the kernel's ephemeral range (32768-60999): a port picked there
    # may be taken by an outgoing connection before httpd binds it.
    p=$(( 20000 + RANDOM % 12000 ))
    [[ $used == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then used+="$p "; echo "$p"; return; fi
  done
}
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
# Throughput is measured, not the rate limiter.
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0
PORT_B=$(free_port)
export TRAVEL_JOB_POLL=${TRAVEL_JOB_POLL:-100ms} STACK_PG_FAST=1
export TRAVEL_WORKERS=${TRAVEL_WORKERS:-4}
trap '"$stack" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
if [ "$INSTANCES" -ge 2 ]; then
  TRAVEL_PORT=$PORT_B "$stack" httpd-start "$dir" b >/dev/null
fi
db=$(cat "$dir/db.conninfo")
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
psql() { "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U travel -d travel -qtAX "$@"; }

org=$("$root/bin/travelctl" --db "$db" org create bench | tail -n 1)
key=$("$root/bin/travelctl" --db "$db" key create --org "$org" --user bench 2>/dev/null | tail -n 1)
sub=$(curl -sf -H "x-api-key: $key" -H 'content-type: application/json' \
  -d "{\"url\": \"http://127.0.0.1:$TRAVEL_SANDBOX_PORT/inbox/bench\", \"event_types\": [\"flight.booking.confirmed\"]}" \
  "http://127.0.0.1:$TRAVEL_PORT/v1/flight/webhook-subscriptions" | sed -E 's/.*"id":"(whs_[^"]+)".*/\1/')

# Events as trv_outbox_emit writes them, in one transaction: the event,
# whose insert fans out (deliveries and send jobs, sql/044), then an
# event.publish job only for an event that insert did not publish (none
# here: the fan-out trigger is on).
emit_batch=0
emit() {
  emit_batch=$((emit_batch + 1))
  local b="b$$-$emit_batch"
  psql -c "INSERT INTO events (id, org_id, family, type, data)
    SELECT 'evt_$b-' || i, '$org', 'flight', 'flight.booking.confirmed',
      jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || i, 'status', 'CONFIRMED',
        'total_amount', jsonb_build_object('amount', 1234.5, 'currency', 'EUR')))
    FROM generate_series(1, $1) i;
    INSERT INTO jobs (kind, payload, max_attempts)
    SELECT 'event.publish', jsonb_build_object('event_id', 'evt_$b-' || i), 20
    FROM generate_series(1, $1) i
    WHERE NOT EXISTS (SELECT 1 FROM events WHERE id = 'evt_$b-' || i AND published_at IS NOT NULL)"
}
wait_done() {
  local want=$1 n=0 i
  # Polled 4 times a second: the count is not free, and the figures come
  # from the recorded times, not from when the poll noticed.
  for i in $(seq 1 1200); do
    n=$(psql -c "SELECT count(*) FROM webhook_deliveries WHERE subscription_id = '$sub' AND status = 'DELIVERED'")
    [ "$n" -ge "$want" ] && return 0
    sleep 0.25
  done
  echo "bench: only $n of $want delivered" >&2; return 1
}

# Latency: LAT_EVENTS events committed one per transaction, LAT_GAP_MS
# apart (below saturation), each from its commit to the receiver's
# recording of the request.
LAT_EVENTS=${LAT_EVENTS:-500}
LAT_GAP_MS=${LAT_GAP_MS:-5}
latency() {
  psql -c "DO \$\$ DECLARE e text; BEGIN FOR i IN 1..$LAT_EVENTS LOOP
      e := 'evt_lat_' || gen_random_uuid();
      INSERT INTO events (id, org_id, family, type, data) VALUES (e, '$org', 'flight',
        'flight.booking.confirmed', jsonb_build_object('booking', jsonb_build_object('id',
        'bkg_lat_' || i, 'status', 'CONFIRMED')));
      INSERT INTO jobs (kind, payload, max_attempts) SELECT 'event.publish',
        jsonb_build_object('event_id', e), 20
        WHERE NOT EXISTS (SELECT 1 FROM events WHERE id = e AND published_at IS NOT NULL);
      COMMIT;
      PERFORM pg_sleep($LAT_GAP_MS / 1000.0);
    END LOOP; END \$\$"
}

# Warm up (connections, prepared statements), then measure.
emit 200; wait_done 200
t0=$(date +%s.%N)
emit "$EVENTS"
wait_done $((EVENTS + 200))
# The end: the last delivery of this batch recorded as DELIVERED.
t1=$(psql -c "SELECT extract(epoch FROM max(d.delivered_at)) FROM webhook_deliveries d
  JOIN events e ON e.id = d.event_id WHERE d.subscription_id = '$sub' AND e.created_at >= to_timestamp($t0)")
read -r first last attempts <<<"$(psql -F ' ' -c "SELECT extract(epoch FROM min(a.created_at)), extract(epoch FROM max(a.created_at)), count(*)
  FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id
  WHERE d.subscription_id = '$sub' AND e.created_at >= to_timestamp($t0)")"
dups=$(psql -c "SELECT count(*) - count(DISTINCT headers->>'webhook-id') FROM sandbox.inbox_requests WHERE inbox = 'bench'")
awk -v n="$EVENTS" -v t0="$t0" -v t1="$t1" -v f="$first" -v l="$last" -v a="$attempts" -v i="$INSTANCES" \
    -v w="$TRAVEL_WORKERS" -v d="$dups" 'BEGIN {
  printf "webhook bench: %d events, %d instance(s) x 2 children x %d sender threads\n", n, i, w
  printf "  end to end: %.2f s  -> %.0f deliveries/s\n", t1 - t0, n / (t1 - t0)
  printf "  sending:    %.2f s  -> %.0f deliveries/s (%d attempts, %d duplicate requests)\n", l - f, a / (l - f), a, d
}'

before=$(psql -c "SELECT count(*) FROM webhook_deliveries WHERE subscription_id = '$sub' AND status = 'DELIVERED'")
latency
wait_done $((before + LAT_EVENTS))
psql -F ' ' -c "SELECT count(*), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
    round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1), round(max(ms)::numeric, 1)
  FROM (SELECT extract(epoch FROM r.received_at - e.created_at) * 1000 AS ms
          FROM sandbox.inbox_requests r JOIN events e ON e.id = r.headers->>'webhook-id'
         WHERE r.inbox = 'bench' AND e.id LIKE 'evt_lat_%') x" |
  awk -v g="$LAT_GAP_MS" '{ printf "  latency:    %d events one per commit, %d ms apart: commit to receiver p50 %s ms, p99 %s ms, max %s ms\n", $1, g, $2, $3, $4 }'
