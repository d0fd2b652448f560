#!/usr/bin/env bash
# N API nodes on one PostgreSQL through PgBouncer, behind Apache's
# mod_proxy_balancer (make bench, step "N nodes"):
#
#   tests/bench/nodes.sh [SECONDS] [BOOKINGS] [EVENTS] [MAX_NODES]
#
# A throwaway stack: its PostgreSQL cluster, the sandbox, a pgbouncer in
# transaction pooling (default_pool_size 8) on a loopback port, and 1, 2,
# then 3 (MAX_NODES) API nodes: httpd instances with their own ports,
# TravelDBMode pooled through the pgbouncer, TravelNotifyConnInfo straight
# to the cluster, 2 children x DBDMax 6 each. A balancer httpd (event MPM,
# byrequests, keep-alive to the nodes) spreads the requests. For each node
# count: wrk (2 threads, 32 connections, SECONDS, default 8) on GET one
# booking and on the list of 20 through the balancer, then EVENTS webhook
# events (default 2000) committed at once and timed to their last delivery
# at the sandbox inbox (every node's workers send). Each row also gives
# PostgreSQL's CPU (all its processes, from /proc) per request and the
# machine's CPU use during the run, so the resource that sets the ceiling
# shows: on one machine the nodes, PgBouncer, PostgreSQL, the balancer and
# wrk share its cores.
set -euo pipefail
SECS=${1:-8}
BOOKINGS=${2:-20}
EVENTS=${3:-2000}
MAX_NODES=${4:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d /tmp/mod_travel-bench.XXXXXX)
chmod 755 "$dir"
stack="$root/scripts/stack.sh"
. "$root/tests/bench/lib.sh"
export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
export TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0 STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms"
export TRAVEL_JOB_POLL=100ms TRAVEL_WORKERS=${TRAVEL_WORKERS:-4}
BOUNCER_PORT=$(free_port)
LB_PORT=$(free_port)
ports=()
for i in $(seq 1 "$MAX_NODES"); do ports+=("$(free_port)"); done
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
moddir=$(apxs -q LIBEXECDIR)
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  [ -f "$dir/lb/httpd.pid" ] && kill "$(cat "$dir/lb/httpd.pid")" 2>/dev/null
  [ -f "$dir/pgbouncer/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer/pgbouncer.pid")" 2>/dev/null
  "$stack" stop "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT

"$stack" pg-start "$dir" >/dev/null
"$stack" sandbox-start "$dir" >/dev/null
direct=$(cat "$dir/db.conninfo")
pghost=$(sed -E 's/.*host=([^ ]+).*/\1/' <<<"$direct")
psql() { "$pgbin/psql" "$direct" -qtAX "$@"; }

mkdir -p "$dir/pgbouncer"
echo '"travel" ""' >"$dir/pgbouncer/users.txt"
cat >"$dir/pgbouncer/pgbouncer.ini" <<INI
[databases]
travel = host=$pghost port=$TRAVEL_PG_PORT dbname=travel user=travel
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $dir/pgbouncer/users.txt
pool_mode = transaction
default_pool_size = 8
max_client_conn = 500
logfile = $dir/pgbouncer/pgbouncer.log
pidfile = $dir/pgbouncer/pgbouncer.pid
INI
[ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir/pgbouncer"
as_pg pgbouncer -d -q "$dir/pgbouncer/pgbouncer.ini"

export TRAVEL_DB_CONNINFO="host=127.0.0.1 port=$BOUNCER_PORT dbname=travel user=travel"
export TRAVEL_NOTIFY_CONNINFO="$direct" TRAVEL_DB_MODE=pooled

# The balancer: its own httpd, members 1..N.
mkdir -p "$dir/lb/runtime"
[ "$(id -u)" -eq 0 ] && chown www-data: "$dir/lb/runtime"
balancer_conf() {
  local n=$1 i
  {
    cat <<CONF
ServerRoot "$dir/lb"
DefaultRuntimeDir "$dir/lb/runtime"
PidFile "$dir/lb/httpd.pid"
ErrorLog "$dir/lb/error.log"
LogLevel warn
ServerName 127.0.0.1
Listen 127.0.0.1:$LB_PORT
$( [ "$(id -u)" -eq 0 ] && printf 'User www-data\nGroup www-data' )
LoadModule mpm_event_module $moddir/mod_mpm_event.so
LoadModule authz_core_module $moddir/mod_authz_core.so
LoadModule slotmem_shm_module $moddir/mod_slotmem_shm.so
LoadModule proxy_module $moddir/mod_proxy.so
LoadModule proxy_http_module $moddir/mod_proxy_http.so
LoadModule proxy_balancer_module $moddir/mod_proxy_balancer.so
LoadModule lbmethod_byrequests_module $moddir/mod_lbmethod_byrequests.so
StartServers 2
ServerLimit 4
ThreadLimit 128
ThreadsPerChild 128
MaxRequestWorkers 256
DocumentRoot "$dir/lb"
<Proxy "balancer://api">
CONF
    for ((i = 0; i < n; i++)); do
      echo "    BalancerMember http://127.0.0.1:${ports[$i]} keepalive=On"
    done
    cat <<CONF
    ProxySet lbmethod=byrequests
</Proxy>
ProxyPass "/" "balancer://api/"
CONF
  } >"$dir/lb/httpd.conf"
}

# CPU ticks (user + system) of this cluster's processes (the postmaster and
# its children, the backends), and of the machine.
pg_ticks() { tree_ticks "$(head -n 1 "$dir/pg/postmaster.pid")"; }
cpu_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }

# run NAME URL: one wrk round; prints req/s, p99, PostgreSQL ms CPU per
# request and machine CPU busy %.
run() {
  local out p0 p1 busy0 all0 busy1 all1 rps reqs
  p0=$(pg_ticks); read -r busy0 all0 <<<"$(cpu_ticks)"
  out=$(wrk -t2 -c32 -d"${SECS}s" --latency -H "x-api-key: $KEY" "$2")
  p1=$(pg_ticks); read -r busy1 all1 <<<"$(cpu_ticks)"
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  reqs=$(awk '/requests in/ {print $1}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then echo "  ($1: $(grep Non-2xx <<<"$out"))"; fi
  awk -v n="$1" -v r="$rps" -v p99="$(awk '$1 == "99%" {print $2}' <<<"$out")" \
      -v pg=$((p1 - p0)) -v q="$reqs" -v hz="$HZ" -v b=$((busy1 - busy0)) -v a=$((all1 - all0)) \
    'BEGIN { printf "  %-22s %8.0f req/s  p99 %8s  PostgreSQL %.3f ms CPU/request  machine CPU %3.0f%%\n",
             n, r, p99, pg * 1000 / hz / q, 100 * b / a }'
}

deliveries() {
  local before t0 t1 n i
  before=$(psql -c "SELECT count(*) FROM webhook_deliveries WHERE subscription_id = '$sub' AND status = 'DELIVERED'")
  t0=$(date +%s.%N)
  psql -c "INSERT INTO events (id, org_id, family, type, data)
    SELECT 'evt_n$1-' || i, '$org', 'flight', 'flight.booking.confirmed',
      jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || i, 'status', 'CONFIRMED'))
    FROM generate_series(1, $EVENTS) i;
    INSERT INTO jobs (kind, payload, max_attempts)
    SELECT 'event.publish', jsonb_build_object('event_id', 'evt_n$1-' || i), 20
    FROM generate_series(1, $EVENTS) i
    WHERE NOT EXISTS (SELECT 1 FROM events WHERE id = 'evt_n$1-' || i AND published_at IS NOT NULL)" >/dev/null
  for i in $(seq 1 1200); do
    n=$(psql -c "SELECT count(*) FROM webhook_deliveries WHERE subscription_id = '$sub' AND status = 'DELIVERED'")
    [ "$n" -ge $((before + EVENTS)) ] && break
    sleep 0.25
  done
  t1=$(psql -c "SELECT extract(epoch FROM max(delivered_at)) FROM webhook_deliveries WHERE subscription_id = '$sub'")
  awk -v e="$EVENTS" -v t0="$t0" -v t1="$t1" -v got=$((n - before)) \
    'BEGIN { printf "  %-22s %8.0f deliveries/s (%d events, %d delivered, %.1f s)\n", "webhooks", got / (t1 - t0), e, got, t1 - t0 }'
}

echo "N nodes: pgbouncer transaction pool 8, nodes of 2 children x DBDMax 6, $TRAVEL_WORKERS sender threads per child, $(nproc) cores shared by all"
for ((n = 1; n <= MAX_NODES; n++)); do
  TRAVEL_PORT=${ports[$((n - 1))]} "$stack" httpd-start "$dir" "node$n" >/dev/null
  if [ $n -eq 1 ]; then
    ctl() { "$root/bin/travelctl" --db "$direct" "$@" 2>/dev/null | tail -n 1; }
    org=$(ctl org create bench)
    KEY=$(ctl key create --org "$org" --user bench)
    last=$(book_flights "http://127.0.0.1:${ports[0]}/v1" "$KEY" "$BOOKINGS")
    sub=$(curl -sf -H "x-api-key: $KEY" -H 'content-type: application/json' \
      -d "{\"url\": \"http://127.0.0.1:$TRAVEL_SANDBOX_PORT/inbox/bench\", \"event_types\": [\"flight.booking.confirmed\"]}" \
      "http://127.0.0.1:${ports[0]}/v1/flight/webhook-subscriptions" | sed -E 's/.*"id":"(whs_[^"]+)".*/\1/')
  fi
  balancer_conf "$n"
  if [ -f "$dir/lb/httpd.pid" ]; then
    /usr/sbin/apache2 -f "$dir/lb/httpd.conf" -k graceful
  else
    /usr/sbin/apache2 -f "$dir/lb/httpd.conf" -k start
  fi
  sleep 1
  LB="http://127.0.0.1:$LB_PORT/v1"
  wrk -t2 -c32 -d2s -H "x-api-key: $KEY" "$LB/flight/bookings/$last" >/dev/null  # warm-up
  echo "$n node(s):"
  run "GET one booking" "$LB/flight/bookings/$last"
  run "list of 20" "$LB/flight/bookings?limit=20"
  deliveries "$n"
done
