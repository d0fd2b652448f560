#!/usr/bin/env bash
# Retention soak: do the webhook tables stay flat while events keep coming
# for longer than the retention period?
#
#   tests/bench/retention.sh [SECONDS] [RATE]          (make bench)
#
# Starts a throwaway stack with TravelWebhookRetention RETENTION (10s),
# subscribes one endpoint at the sandbox inbox and, for SECONDS (180),
# commits about RATE (100) events a second, one per transaction. Every 10 s
# it prints the rows of events, webhook_deliveries and webhook_attempts and
# their total size on disk; at the end the commit-to-receiver latency of
# the events (the removal runs beside the senders: it must not hold them
# up). Flat means the row counts stop growing once the period has passed.
set -euo pipefail
SECONDS_TOTAL=${1:-180}
RATE=${2:-100}
RETENTION=${RETENTION:-10s}
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
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0
export TRAVEL_JOB_POLL=${TRAVEL_JOB_POLL:-100ms} STACK_PG_FAST=1
export TRAVEL_WORKERS=${TRAVEL_WORKERS:-4} TRAVEL_WEBHOOK_RETENTION=$RETENTION
producer=
trap '[ -n "$producer" ] && kill "$producer" 2>/dev/null; "$stack" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
"$stack" httpd-start "$dir" a >/dev/null
db=$(cat "$dir/db.conninfo")
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
psql() { "$pgbin/psql" -h "$dir/pgrun" -p "$TRAVEL_PG_PORT" -U travel -d travel -qtAX "$@"; }

org=$("$root/bin/travelctl" --db "$db" org create soak | tail -n 1)
key=$("$root/bin/travelctl" --db "$db" key create --org "$org" --user soak 2>/dev/null | tail -n 1)
curl -sf -o /dev/null -H "x-api-key: $key" -H 'content-type: application/json' \
  -d "{\"url\": \"http://127.0.0.1:$TRAVEL_SANDBOX_PORT/inbox/soak\", \"event_types\": [\"flight.booking.confirmed\"]}" \
  "http://127.0.0.1:$TRAVEL_PORT/v1/flight/webhook-subscriptions"

total=$((SECONDS_TOTAL * RATE))
psql -c "DO \$\$ BEGIN FOR i IN 1..$total LOOP
    INSERT INTO events (id, org_id, family, type, data) VALUES ('evt_soak_' || i, '$org', 'flight',
      'flight.booking.confirmed', jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || i,
      'status', 'CONFIRMED', 'total_amount', jsonb_build_object('amount', 1234.5, 'currency', 'EUR'))));
    COMMIT;
    PERFORM pg_sleep(1.0 / $RATE);
  END LOOP; END \$\$" &
producer=$!

echo "retention soak: TravelWebhookRetention $RETENTION, about $RATE events/s for $SECONDS_TOTAL s, 1 instance x 2 children x $TRAVEL_WORKERS sender threads"
printf '  %6s %8s %10s %10s %10s %10s\n' "t (s)" "written" "events" "deliveries" "attempts" "size (kB)"
t0=$(date +%s)
while kill -0 "$producer" 2>/dev/null; do
  sleep 10
  psql -F ' ' -c "SELECT (SELECT count(*) FROM sandbox.inbox_requests WHERE inbox = 'soak'),
      (SELECT count(*) FROM events), (SELECT count(*) FROM webhook_deliveries),
      (SELECT count(*) FROM webhook_attempts),
      (pg_total_relation_size('events') + pg_total_relation_size('webhook_deliveries')
       + pg_total_relation_size('webhook_attempts')) / 1024" |
    awk -v t=$(( $(date +%s) - t0 )) '{ printf "  %6d %8d %10d %10d %10d %10d\n", t, $1, $2, $3, $4, $5 }'
done
wait "$producer" || true
producer=
sleep 2
# Commit to receipt: most events are gone by now (that is the point), so
# the commit time is read from the delivered body (the event's created_at).
psql -F ' ' -c "SELECT count(*), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
    round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1), round(max(ms)::numeric, 1)
  FROM (SELECT extract(epoch FROM min(r.received_at)
          - (convert_from((array_agg(r.body))[1], 'UTF8')::jsonb->>'created_at')::timestamptz) * 1000 AS ms
          FROM sandbox.inbox_requests r WHERE r.inbox = 'soak' GROUP BY r.headers->>'webhook-id') x" |
  awk '{ printf "  delivered %d events: commit to receiver p50 %s ms, p99 %s ms, max %s ms\n", $1, $2, $3, $4 }'
