#!/usr/bin/env bash
# The development and test stack: a private PostgreSQL cluster and httpd
# instances with mod_travel (and mod_travel_sandbox), all under one folder.
#
#   stack.sh run DIR          foreground; Ctrl-C stops httpd and PostgreSQL
#   stack.sh start DIR        background; `stack.sh stop DIR` ends it
#   stack.sh stop DIR
#   stack.sh pg-start DIR | pg-stop DIR
#   stack.sh httpd-start DIR NAME | httpd-stop DIR NAME   (API instances)
#   stack.sh sandbox-start DIR   (the sandbox's instance; httpd-stop DIR sandbox)
#   stack.sh bouncer-start DIR   a pgbouncer in transaction pooling in front
#                             of the cluster (TRAVEL_BOUNCER_PORT, a loopback
#                             port; TRAVEL_BOUNCER_POOL servers, 8); its
#                             conninfo in DIR/bouncer.conninfo
#
# The sandbox suppliers run in their own httpd instance (httpd-sandbox), as
# real suppliers run elsewhere: sharing the API's workers, an offer search
# under load waited for a worker it was itself holding.
#
# Environment: TRAVEL_PORT (8080), TRAVEL_SANDBOX_PORT (8081), TRAVEL_PG_PORT
# (5432; a unix socket under DIR only), TRAVEL_RETRY_SCHEDULE (webhook retry
# delays in seconds, e.g. "1 1 1"), TRAVEL_WEBHOOK_RETENTION (30d: how long
# webhook deliveries and events are kept), TRAVEL_WORKERS (2), TRAVEL_JOB_LEASE (60s),
# TRAVEL_DB_HOST (socket folder to use instead of DIR/pgrun),
# TRAVEL_SANDBOX_LATENCY (each sandbox API call, "50ms 150ms"),
# TRAVEL_SANDBOX_HANG (how long a book with the Unknown trigger hangs, 30s;
# keep it above the supplier timeout), TRAVEL_SANDBOX_DUFFEL_RATE (SUPPLIER_A's
# requests a minute per sandbox child before its 429, 6000), TRAVEL_SUPPLIER_TIMEOUT (mod_travel's
# timeout of a supplier call, 20s), TRAVEL_PAYMENT_TIMEOUT (of a payment
# provider call, 10s), TRAVEL_RATE_LIMIT (requests per second per API key,
# 100; 0 = off; a window may follow the count, e.g. "5 60s"),
# TRAVEL_AUTH_FAIL_LIMIT (failed key attempts per minute per client
# address, 30; 0 = off; a window may follow), TRAVEL_DASHBOARD_PASSWORD (the
# dashboard login admin's password; random when unset), TRAVEL_SEARCH_CACHE
# (the hotel suppliers' search_cache=: 60s for the demo, off for the others),
# TRAVEL_SUPPLIER_BUDGET (max_calls_per_second= on every supplier line; unset:
# none).
# Scale-out (docs/operations.md): TRAVEL_DB_CONNINFO, the API instances'
# database connection string (any libpq form: multi-host with
# target_session_attrs, or a PgBouncer) instead of the stack's own cluster
# socket (migrations and travelctl still use the cluster);
# TRAVEL_NOTIFY_CONNINFO, the direct (unpooled) connection string the
# instances LISTEN on (unset: TRAVEL_DB_CONNINFO's database, through its
# pool); TRAVEL_DB_MODE, TravelDBMode (direct, or pooled behind PgBouncer's
# transaction pooling); TRAVEL_SANDBOX_DB_CONNINFO, the sandbox instance's
# (a multi-host one lets it follow a failover too).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:?usage: stack.sh run|start|stop|pg-start|pg-stop|httpd-start|httpd-stop|sandbox-start|bouncer-start DIR [NAME]}
dir=${2:?the stack folder}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 755 "$dir"

PORT=${TRAVEL_PORT:-8080}
SANDBOX_PORT=${TRAVEL_SANDBOX_PORT:-8081}
PGPORT=${TRAVEL_PG_PORT:-5432}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
is_root() { [ "$(id -u)" -eq 0 ]; }
# TRAVEL_APACHE2: the command that runs httpd (tests/run-stack-tests.sh sets
# it; make test-httpd-asan makes it preload AddressSanitizer, with
# TRAVEL_HTTPD_ASAN=FOLDER holding the modules built for it).
apache2_run() {
  ${TRAVEL_APACHE2:-/usr/sbin/apache2} "$@"
}
# As root, PostgreSQL runs as postgres and httpd's children as www-data: both
# must traverse every folder above the cluster and its socket. A checkout in
# a private folder (/root is 0700) does not allow that and initdb fails with
# "Permission denied"; rather than open the folder up, the cluster and its
# socket then live in /var/lib/mod_travel-stack/<hash of DIR>, linked from DIR.
pgstate=$dir
if is_root && ! { runuser -u postgres -- test -x "$dir" && runuser -u www-data -- test -x "$dir"; } 2>/dev/null; then
  pgstate=/var/lib/mod_travel-stack/$(printf '%s' "$dir" | sha256sum | cut -c1-16)
fi
pgdir=$pgstate/pg
pgrun=$pgstate/pgrun
PGHOST=${TRAVEL_DB_HOST:-$pgrun}
as_pg() { if is_root; then runuser -u postgres -- "$@"; else "$@"; fi; }
conninfo() { echo "host=$PGHOST port=$PGPORT dbname=travel user=travel"; }
log() { echo "stack: $*" >&2; }

pg_init() {
  mkdir -p "$pgdir" "$pgrun"
  if [ "$pgstate" != "$dir" ]; then
    chmod 755 "$pgstate" "${pgstate%/*}"
    for n in pg pgrun; do
      rmdir "$dir/$n" 2>/dev/null || true  # left by a run before this fix
      [ -e "$dir/$n" ] || ln -s "$pgstate/$n" "$dir/$n"
    done
  fi
  [ -f "$pgdir/PG_VERSION" ] && return 0
  log "creating a PostgreSQL cluster in $pgdir"
  if is_root; then chown postgres: "$pgdir" "$pgrun"; fi
  chmod 700 "$pgdir"; chmod 755 "$pgrun"
  as_pg "$pgbin/initdb" -D "$pgdir" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  cat >>"$pgdir/postgresql.conf" <<CONF
# mod_travel stack: unix socket only, nothing listens on TCP.
listen_addresses = ''
unix_socket_directories = '$pgrun'
port = $PGPORT
max_connections = 300
shared_buffers = 128MB
# A statement waiting for a lock longer than deadlock_timeout (1 s) is
# logged with the process holding it (server.log, kept with a failed run's
# stack): a request held up by another transaction says by whom.
log_lock_waits = on
${STACK_PG_FAST:+fsync = off
synchronous_commit = off
full_page_writes = off}
CONF
}

pg_start() {
  pg_init
  if ! as_pg "$pgbin/pg_ctl" -D "$pgdir" status >/dev/null 2>&1; then
    as_pg "$pgbin/pg_ctl" -D "$pgdir" -l "$pgdir/server.log" -w -t 60 start >/dev/null \
      || { tail -20 "$pgdir/server.log" >&2; exit 1; }
  fi
  local psql=("$pgbin/psql" -h "$pgrun" -p "$PGPORT" -U postgres -d postgres -qtA)
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
  if [ -f "$pgdir/postmaster.pid" ]; then
    as_pg "$pgbin/pg_ctl" -D "$pgdir" -m fast -w stop >/dev/null 2>&1 || true
  fi
}

# PgBouncer (the Debian package) in transaction pooling before the cluster,
# for TravelDBMode pooled (docs/operations.md, "Behind PgBouncer"). It
# refuses to run as root, so it runs as postgres there.
bouncer_start() {
  local b="$dir/pgbouncer" port=${TRAVEL_BOUNCER_PORT:?TRAVEL_BOUNCER_PORT: a free loopback port}
  mkdir -p "$b"
  echo '"travel" ""' >"$b/users.txt"
  cat >"$b/pgbouncer.ini" <<INI
[databases]
travel = host=$PGHOST port=$PGPORT dbname=travel user=travel
; any other database of the cluster (a test's own) under its own name
* = host=$PGHOST port=$PGPORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $b/users.txt
admin_users = travel
pool_mode = transaction
default_pool_size = ${TRAVEL_BOUNCER_POOL:-8}
max_client_conn = 1000
; after PostgreSQL restarts (test_webhook_faults, a failover) try its login
; again within a second, not pgbouncer's default 15 s of refusing clients
server_login_retry = 1
logfile = $b/pgbouncer.log
pidfile = $b/pgbouncer.pid
INI
  if is_root; then chown -R postgres: "$b"; fi
  as_pg pgbouncer -d -q "$b/pgbouncer.ini" || { tail -5 "$b/pgbouncer.log" >&2; exit 1; }
  echo "host=127.0.0.1 port=$port dbname=travel user=travel" >"$dir/bouncer.conninfo"
}

bouncer_stop() {
  local pidf="$dir/pgbouncer/pgbouncer.pid" pid i
  [ -s "$pidf" ] || return 0
  pid=$(cat "$pidf")
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}

secret_key() {
  if [ ! -s "$dir/secret.key" ]; then
    (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/secret.key")
  fi
}

# Renders conf/TEMPLATE into DIR/httpd-NAME/httpd.conf with the values of
# the associative array named by VARS, and checks it.
render_conf() {
  local name=$1 template=$2 inst="$dir/httpd-$1" line k
  local -n vals=$3
  while IFS= read -r line || [ -n "$line" ]; do
    for k in "${!vals[@]}"; do line=${line//@$k@/${vals[$k]}}; done
    printf '%s\n' "$line"
  done <"$root/conf/$template" >"$inst/httpd.conf"
  apache2_run -f "$inst/httpd.conf" -t >"$inst/configtest.log" 2>&1 \
    || { cat "$inst/configtest.log" >&2; exit 1; }
}

instance_dir() {
  local inst="$dir/httpd-$1"
  mkdir -p "$inst/runtime" "$inst/htdocs"
  if is_root; then chown www-data: "$inst/runtime"; fi
}

run_user() {
  if is_root; then printf 'User www-data\nGroup www-data'; fi
}

# The hotel suppliers' search_cache= option for instance NAME: the demo
# ("main") serves a repeated search from the cache for 60 s; test instances
# ask the suppliers every time, unless TRAVEL_SEARCH_CACHE says otherwise
# ("" or 0 turns it off).
search_cache() {
  local fresh=${TRAVEL_SEARCH_CACHE-}
  if [ -z "${TRAVEL_SEARCH_CACHE+set}" ] && [ "$1" = main ]; then fresh=60s; fi
  if [ -n "$fresh" ] && [ "$fresh" != 0 ]; then echo " search_cache=$fresh"; fi
}

# An API instance NAME (mod_travel; own port, own logs, shared database).
httpd_conf() {
  local name=$1 inst="$dir/httpd-$1"
  instance_dir "$name"
  secret_key
  local -A v=(
    [INSTANCE]="$inst" [USER]="$(run_user)" [PORT]="$PORT" [SANDBOX_PORT]="$SANDBOX_PORT"
    [MODDIR]="$(apxs -q LIBEXECDIR)" [BUILD]="${TRAVEL_HTTPD_ASAN:-$root/build}"
    [DBPARAMS]="${TRAVEL_DB_CONNINFO:-$(conninfo)}" [DBMODE]="${TRAVEL_DB_MODE:-direct}"
    [NOTIFY]="${TRAVEL_NOTIFY_CONNINFO:+TravelNotifyConnInfo \"$TRAVEL_NOTIFY_CONNINFO\"}"
    [WORKERS]="${TRAVEL_WORKERS:-2}" [RETRY]="${TRAVEL_RETRY_SCHEDULE:-1m 5m 30m 2h 12h 24h}"
    [LEASE]="${TRAVEL_JOB_LEASE:-60s}" [POLL]="${TRAVEL_JOB_POLL:-500ms}"
    [WATCH_INTERVAL]="${TRAVEL_WATCH_INTERVAL:-900}"
    [RETENTION]="${TRAVEL_WEBHOOK_RETENTION:-30d}"
    [SUPPLIER_TIMEOUT]="${TRAVEL_SUPPLIER_TIMEOUT:-20s}"
    [SEARCH_CACHE]="$(search_cache "$name")"
    [SUPPLIER_BUDGET]="${TRAVEL_SUPPLIER_BUDGET:+ max_calls_per_second=$TRAVEL_SUPPLIER_BUDGET}"
    [PAYMENT_TIMEOUT]="${TRAVEL_PAYMENT_TIMEOUT:-10s}"
    [SECRET]="$dir/secret.key" [RATE_LIMIT]="${TRAVEL_RATE_LIMIT:-100}"
    [AUTH_FAIL_LIMIT]="${TRAVEL_AUTH_FAIL_LIMIT:-30}" [HTPASSWD]="$(htpasswd_file)")
  render_conf "$name" stack.conf.in v
}

# The sandbox instance (mod_travel_sandbox alone, on TRAVEL_SANDBOX_PORT).
sandbox_conf() {
  local inst="$dir/httpd-sandbox"
  instance_dir sandbox
  local -A v=(
    [INSTANCE]="$inst" [USER]="$(run_user)" [SANDBOX_PORT]="$SANDBOX_PORT"
    [MODDIR]="$(apxs -q LIBEXECDIR)" [BUILD]="${TRAVEL_HTTPD_ASAN:-$root/build}"
    [DBPARAMS]="${TRAVEL_SANDBOX_DB_CONNINFO:-$(conninfo)}"
    [DATA]="$root/data/openflights" [LATENCY]="${TRAVEL_SANDBOX_LATENCY:-50ms 150ms}"
    [HANG]="${TRAVEL_SANDBOX_HANG:-30s}" [DUFFEL_RATE]="${TRAVEL_SANDBOX_DUFFEL_RATE:-6000}")
  render_conf sandbox sandbox.conf.in v
}

wait_http() {
  local url=$1 i
  for i in $(seq 1 100); do
    if curl -s -o /dev/null "$url"; then return 0; fi
    sleep 0.1
  done
  log "httpd did not answer on $url"; return 1
}

# Starts (or gracefully restarts with the current build) instance NAME,
# rendered already, and waits until URL answers.
start_instance() {
  local name=$1 url=$2 inst="$dir/httpd-$1"
  if [ -f "$inst/httpd.pid" ] && kill -0 "$(cat "$inst/httpd.pid")" 2>/dev/null; then
    log "httpd $name is already running: restarting it gracefully with the current build"
    apache2_run -f "$inst/httpd.conf" -k graceful
    wait_http "$url"
    return 0
  fi
  apache2_run -f "$inst/httpd.conf" -k start
  wait_http "$url"
}

httpd_start() {
  httpd_conf "$1"
  start_instance "$1" "http://127.0.0.1:$PORT/v1"
}

sandbox_start() {
  sandbox_conf
  start_instance sandbox "http://127.0.0.1:$SANDBOX_PORT/health"
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

# The dashboard's Basic authentication logins (htpasswd), readable by
# httpd's children.
htpasswd_file() {
  local f="$dir/dashboard.htpasswd"
  if [ ! -e "$f" ]; then
    (umask 077; : >"$f")
    if is_root; then chgrp www-data "$f"; chmod 640 "$f"; fi
  fi
  echo "$f"
}

# The demo dashboard login: admin, password TRAVEL_DASHBOARD_PASSWORD or a
# random one kept in DIR/dashboard.password (so the banner can repeat it),
# mapped to the demo organization.
demo_dashboard() {
  local pw=${TRAVEL_DASHBOARD_PASSWORD:-}
  if [ -z "$pw" ]; then
    if [ ! -s "$dir/dashboard.password" ]; then
      (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=\n' >"$dir/dashboard.password")
    fi
    pw=$(cat "$dir/dashboard.password")
  fi
  # -i: the password on standard input, not in the process list.
  printf '%s' "$pw" | htpasswd -i -B "$(htpasswd_file)" admin 2>/dev/null
  "$root/bin/travelctl" --db "$(conninfo)" dashboard grant --org "$(cat "$dir/demo.org")" \
    --login admin >/dev/null
  echo "$pw"
}

banner() {
  local key=$1 dashpw=$2
  cat <<MSG

mod_travel is up on http://127.0.0.1:$PORT (sandbox suppliers on 127.0.0.1:$SANDBOX_PORT).
Demo organization $(cat "$dir/demo.org"), API key:

  $key

Try:

  curl -s -H 'x-api-key: $key' http://127.0.0.1:$PORT/v1/flight/bookings

Dashboard: http://127.0.0.1:$PORT/dashboard/  login admin, password $dashpw

Logs: $dir/httpd-main/error.log, $dir/httpd-main/access.log
(sandbox: $dir/httpd-sandbox/error.log, $dir/httpd-sandbox/access.log)
MSG
}

case "$cmd" in
  run)
    pg_start
    key=$(demo_key)
    dashpw=$(demo_dashboard)
    trap 'httpd_stop sandbox; pg_stop' EXIT
    sandbox_start
    httpd_conf main
    banner "$key" "$dashpw"
    echo "Ctrl-C stops httpd (the API and the sandbox) and PostgreSQL."
    apache2_run -f "$dir/httpd-main/httpd.conf" -DFOREGROUND || true
    ;;
  start)
    pg_start
    key=$(demo_key)
    dashpw=$(demo_dashboard)
    sandbox_start
    httpd_start main
    banner "$key" "$dashpw"
    echo "\`make stop\` stops it."
    ;;
  stop)
    for inst in "$dir"/httpd-*; do [ -d "$inst" ] && httpd_stop "${inst##*/httpd-}"; done
    bouncer_stop
    # A standby a test or the failover soak made beside the cluster.
    if [ -f "$dir/standby/postmaster.pid" ]; then
      as_pg "$pgbin/pg_ctl" -D "$dir/standby" -m fast -w stop >/dev/null 2>&1 || true
    fi
    pg_stop
    ;;
  pg-start) pg_start ;;
  pg-stop) pg_stop ;;
  httpd-start) httpd_start "${3:?instance name}" ;;
  sandbox-start) sandbox_start ;;
  bouncer-start) bouncer_start ;;
  httpd-stop) httpd_stop "${3:?instance name}" ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
