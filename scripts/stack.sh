#!/usr/bin/env bash
# The development and test stack: a private PostgreSQL cluster and httpd
# instances with mod_travel (and mod_travel_sandbox), all under one folder.
#
#   stack.sh run DIR          foreground; Ctrl-C stops httpd and PostgreSQL
#   stack.sh start DIR        background; `stack.sh stop DIR` ends it
#   stack.sh stop DIR
#   stack.sh pg-start DIR | pg-stop DIR
#   stack.sh httpd-start DIR NAME | httpd-stop DIR NAME   (more instances)
#
# Environment: TRAVEL_PORT (8080), TRAVEL_SANDBOX_PORT (8081), TRAVEL_PG_PORT
# (5432; a unix socket under DIR only), TRAVEL_RETRY_SCHEDULE (webhook retry
# delays in seconds, e.g. "1 1 1"), TRAVEL_WORKERS (2), TRAVEL_JOB_LEASE (60s),
# TRAVEL_DB_HOST (socket folder to use instead of DIR/pgrun), STACK_NO_SANDBOX,
# TRAVEL_SANDBOX_LATENCY (each sandbox API call, "50ms 150ms"),
# TRAVEL_SANDBOX_HANG (how long a book with the Unknown trigger hangs, 30s;
# keep it above the supplier timeout), TRAVEL_SUPPLIER_TIMEOUT (mod_travel's
# timeout of a supplier call, 20s), TRAVEL_PAYMENT_TIMEOUT (of a payment
# provider call, 10s).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:?usage: stack.sh run|start|stop|pg-start|pg-stop|httpd-start|httpd-stop DIR [NAME]}
dir=${2:?the stack folder}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 755 "$dir"

PORT=${TRAVEL_PORT:-8080}
SANDBOX_PORT=${TRAVEL_SANDBOX_PORT:-8081}
PGPORT=${TRAVEL_PG_PORT:-5432}
PGHOST=${TRAVEL_DB_HOST:-$dir/pgrun}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
is_root() { [ "$(id -u)" -eq 0 ]; }
as_pg() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }
conninfo() { echo "host=$PGHOST port=$PGPORT dbname=travel user=travel"; }
log() { echo "stack: $*" >&2; }

pg_init() {
  [ -f "$dir/pg/PG_VERSION" ] && return 0
  log "creating a PostgreSQL cluster in $dir/pg"
  mkdir -p "$dir/pg" "$dir/pgrun"
  if is_root; then chown postgres: "$dir/pg" "$dir/pgrun"; fi
  chmod 700 "$dir/pg"; chmod 755 "$dir/pgrun"
  as_pg "$pgbin/initdb" -D "$dir/pg" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  cat >>"$dir/pg/postgresql.conf" <<CONF
# mod_travel stack: unix socket only, nothing listens on TCP.
listen_addresses = ''
unix_socket_directories = '$dir/pgrun'
port = $PGPORT
max_connections = 200
shared_buffers = 128MB
${STACK_PG_FAST:+fsync = off
synchronous_commit = off
full_page_writes = off}
CONF
}

pg_start() {
  pg_init
  if ! as_pg "$pgbin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
    as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w -t 60 start >/dev/null \
      || { tail -20 "$dir/pg/server.log" >&2; exit 1; }
  fi
  local psql=("$pgbin/psql" -h "$dir/pgrun" -p "$PGPORT" -U postgres -d postgres -qtA)
  if [ -z "$("${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname = 'travel'")" ]; then
    "${psql[@]}" -c "CREATE ROLE travel LOGIN"
  fi
  if [ -z "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'travel'")" ]; then
    "${psql[@]}" -c "CREATE DATABASE travel OWNER travel"
  fi
  conninfo >"$dir/db.conninfo"
  "$root/bin/travelctl" --db "$(conninfo)" migrate >"$dir/migrate.log" \
    || { cat "$dir/migrate.log" >&2; exit 1; }
  # The sandbox's own schema: only this stack gets it, never production.
  "$root/bin/sandboxctl" --db "$(conninfo)" migrate >>"$dir/migrate.log" \
    || { cat "$dir/migrate.log" >&2; exit 1; }
}

pg_stop() {
  if [ -f "$dir/pg/postmaster.pid" ]; then
    as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null 2>&1 || true
  fi
}

secret_key() {
  if [ ! -s "$dir/secret.key" ]; then
    (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/secret.key")
  fi
}

# Renders and checks the configuration of instance NAME (own port, own
# logs, shared database). The first instance also serves the sandbox.
httpd_conf() {
  local name=$1 inst="$dir/httpd-$1" user="" sb_listen="" sb_load="" sb_vhost=""
  mkdir -p "$inst/runtime"
  secret_key
  if is_root; then
    user="User www-data
Group www-data"
    chown www-data: "$inst/runtime"
  fi
  if [ -z "${STACK_NO_SANDBOX:-}" ]; then
    sb_listen="Listen 127.0.0.1:$SANDBOX_PORT"
    sb_load="LoadModule travel_sandbox_module $root/build/mod_travel_sandbox.so"
    sb_vhost="<VirtualHost 127.0.0.1:$SANDBOX_PORT>
    TravelSandboxData \"$root/data/openflights\"
    TravelSandboxApiKey supplier_a sandbox-key-a
    TravelSandboxApiKey supplier_b sandbox-key-b
    TravelSandboxApiKey payments sandbox-key-pay
    TravelSandboxApiKey hotel_a sandbox-key-hotel-a
    TravelSandboxApiKey hotel_b sandbox-key-hotel-b sandbox-secret-hotel-b
    TravelSandboxApiKey hotel_c sandbox-key-hotel-c sandbox-secret-hotel-c
    TravelSandboxLatency ${TRAVEL_SANDBOX_LATENCY:-50ms 150ms}
    TravelSandboxHang ${TRAVEL_SANDBOX_HANG:-30s}
    <Location />
        SetHandler travel-sandbox
    </Location>
</VirtualHost>"
  fi
  local -A v=(
    [INSTANCE]="$inst" [USER]="$user" [PORT]="$PORT" [SANDBOX_PORT]="$SANDBOX_PORT"
    [MODDIR]="$(apxs -q LIBEXECDIR)" [BUILD]="$root/build" [SANDBOX_LISTEN]="$sb_listen"
    [SANDBOX_LOAD]="$sb_load" [SANDBOX_VHOST]="$sb_vhost" [DBPARAMS]="$(conninfo)"
    [WORKERS]="${TRAVEL_WORKERS:-2}" [RETRY]="${TRAVEL_RETRY_SCHEDULE:-1m 5m 30m 2h 12h 24h}"
    [LEASE]="${TRAVEL_JOB_LEASE:-60s}" [POLL]="${TRAVEL_JOB_POLL:-500ms}"
    [SUPPLIER_TIMEOUT]="${TRAVEL_SUPPLIER_TIMEOUT:-20s}"
    [PAYMENT_TIMEOUT]="${TRAVEL_PAYMENT_TIMEOUT:-10s}"
    [SECRET]="$dir/secret.key")
  local line k
  while IFS= read -r line || [ -n "$line" ]; do
    for k in "${!v[@]}"; do line=${line//@$k@/${v[$k]}}; done
    printf '%s\n' "$line"
  done <"$root/conf/stack.conf.in" >"$inst/httpd.conf"
  /usr/sbin/apache2 -f "$inst/httpd.conf" -t >"$inst/configtest.log" 2>&1 \
    || { cat "$inst/configtest.log" >&2; exit 1; }
}

wait_http() {
  local url=$1 i
  for i in $(seq 1 100); do
    if curl -s -o /dev/null "$url"; then return 0; fi
    sleep 0.1
  done
  log "httpd did not answer on $url"; return 1
}

httpd_start() {
  local name=$1 inst="$dir/httpd-$1"
  httpd_conf "$name"
  if [ -f "$inst/httpd.pid" ] && kill -0 "$(cat "$inst/httpd.pid")" 2>/dev/null; then
    log "httpd $name is already running: restarting it gracefully with the current build"
    /usr/sbin/apache2 -f "$inst/httpd.conf" -k graceful
    wait_http "http://127.0.0.1:$PORT/v1"
    return 0
  fi
  /usr/sbin/apache2 -f "$inst/httpd.conf" -k start
  wait_http "http://127.0.0.1:$PORT/v1"
}

httpd_stop() {
  local inst="$dir/httpd-$1" pid i
  [ -f "$inst/httpd.pid" ] || return 0
  pid=$(cat "$inst/httpd.pid")
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -f "$inst/httpd.pid"
}

demo_key() {
  if [ ! -s "$dir/demo.key" ]; then
    local org
    org=$("$root/bin/travelctl" --db "$(conninfo)" org create "Demo" | tail -n 1)
    (umask 077; "$root/bin/travelctl" --db "$(conninfo)" key create --org "$org" --user demo \
       2>/dev/null | tail -n 1 >"$dir/demo.key")
    echo "$org" >"$dir/demo.org"
  fi
  cat "$dir/demo.key"
}

banner() {
  local key=$1
  cat <<MSG

mod_travel is up on http://127.0.0.1:$PORT (sandbox suppliers on 127.0.0.1:$SANDBOX_PORT).
Demo organization $(cat "$dir/demo.org"), API key:

  $key

Try:

  curl -s -H 'x-api-key: $key' http://127.0.0.1:$PORT/v1/flight/bookings

Logs: $dir/httpd-main/error.log, $dir/httpd-main/access.log
MSG
}

case "$cmd" in
  run)
    pg_start
    key=$(demo_key)
    httpd_conf main
    trap 'pg_stop' EXIT
    banner "$key"
    echo "Ctrl-C stops httpd and PostgreSQL."
    /usr/sbin/apache2 -f "$dir/httpd-main/httpd.conf" -DFOREGROUND || true
    ;;
  start)
    pg_start
    key=$(demo_key)
    httpd_start main
    banner "$key"
    echo "\`make stop\` stops it."
    ;;
  stop)
    for inst in "$dir"/httpd-*; do [ -d "$inst" ] && httpd_stop "${inst##*/httpd-}"; done
    pg_stop
    ;;
  pg-start) pg_start ;;
  pg-stop) pg_stop ;;
  httpd-start) httpd_start "${3:?instance name}" ;;
  httpd-stop) httpd_stop "${3:?instance name}" ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
