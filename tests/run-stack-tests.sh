#!/usr/bin/env bash
# Runs the db and e2e tests against a throwaway stack: its own PostgreSQL
# cluster and httpd instances on free ports, in a temporary folder, so it
# passes while `make run` is up. The stack:
#   sandbox  mod_travel_sandbox alone: the suppliers and payment provider
#            a and b call, in their own instance as real ones would be
#   a        mod_travel (the instance tests talk to)
#   rl       a mod_travel with tight rate limits (test_rate_limits); the
#            others' limits are generous, so no other test meets them
#   b        a second mod_travel on the same database (shared job queue)
#   nodb     a mod_travel whose database is unreachable (503 answers)
# A run fails on any test failure, on any unexpected [error], [crit],
# [alert] or [emerg] line in the error logs of sandbox, a, b and rl, and on
# a child process of any instance (those tests start too) that died of a
# signal no test caused (a crash, even while stopping).
#
# TRAVEL_TEST_PGBOUNCER=1 (make test-pgbouncer) runs the same suite with a
# PgBouncer in transaction pooling between every mod_travel instance (a, b,
# rl and the instances tests start from b's configuration) and PostgreSQL:
# TravelDBMode pooled, notifications on a direct TravelNotifyConnInfo. The
# db tests, the tests' own checks, travelctl and the sandbox stay direct.
# A test that needs PostgreSQL itself underneath the instances says so and
# skips what it cannot do (TRAVEL_TEST_PGBOUNCER in the test).
set -uo pipefail
B=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
dir=$(mktemp -d /tmp/mod_travel-test.XXXXXX)
chmod 755 "$dir"
# How the stack and the tests run httpd: under make test-httpd-asan
# (TRAVEL_HTTPD_ASAN), with the sanitizer's runtime preloaded (it must come
# first) and each report written under $dir/asan/.
export TRAVEL_APACHE2=/usr/sbin/apache2
if [ -n "${TRAVEL_HTTPD_ASAN:-}" ]; then
  mkdir -p "$dir/asan" && chmod 777 "$dir/asan"
  TRAVEL_APACHE2="env LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0:log_path=$dir/asan/httpd /usr/sbin/apache2"
fi

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
PORT_B=$(free_port)
PORT_RL=$(free_port)
PORT_NODB=$(free_port)
export TRAVEL_RETRY_SCHEDULE="1 1 1" TRAVEL_JOB_LEASE=3s TRAVEL_JOB_POLL=100ms STACK_PG_FAST=1
# Watches are checked every second (TravelWatchInterval) so a price change shows at once.
export TRAVEL_WATCH_INTERVAL=1
# The sandbox answers fast in tests (its latency is realistic in `make run`).
export TRAVEL_SANDBOX_LATENCY="1ms 5ms"
# Calls that get no answer (Unknown, delayed sandbox faults) give up after
# 6 s rather than 20 s: still over a thousand times the sandbox's latency,
# so a loaded machine does not time out a call that would have answered.
# The Unknown hang stays above it.
export TRAVEL_SUPPLIER_TIMEOUT=6s TRAVEL_PAYMENT_TIMEOUT=6s TRAVEL_SANDBOX_HANG=10s
# Every test runs from 127.0.0.1, many with one key and some with bad keys
# on purpose: the limits stay on (counted) but out of reach.
export TRAVEL_RATE_LIMIT="10000" TRAVEL_AUTH_FAIL_LIMIT="10000"
stack="$root/scripts/stack.sh"
failed=0

cleanup() {
  "$stack" stop "$dir" >/dev/null 2>&1
  # What tests keep for people to look at (the dashboard's screenshots)
  # outlives the run's folder.
  if [ -d "$dir/artifacts" ]; then
    rm -rf "$B/test-artifacts"
    cp -r "$dir/artifacts" "$B/test-artifacts"
    echo "Test artifacts (screenshots): $B/test-artifacts"
  fi
  if [ $failed -eq 0 ]; then
    rm -rf "$dir"
  else
    echo "The failed run's stack is kept in $dir (logs under httpd-*/)."
  fi
}
trap cleanup EXIT

"$stack" pg-start "$dir" || { failed=1; exit 1; }
conninfo=$(cat "$dir/db.conninfo")
if [ "${TRAVEL_TEST_PGBOUNCER:-0}" = 1 ]; then
  # A pool of 4 servers for 3 instances x 2 children x DBDMax 6 clients:
  # transaction pooling must share them, or requests queue in the pooler.
  TRAVEL_BOUNCER_PORT=$(free_port) TRAVEL_BOUNCER_POOL=4 "$stack" bouncer-start "$dir" \
    || { failed=1; exit 1; }
  export TRAVEL_DB_CONNINFO=$(cat "$dir/bouncer.conninfo") TRAVEL_NOTIFY_CONNINFO=$conninfo
  export TRAVEL_DB_MODE=pooled
  echo "every mod_travel instance through PgBouncer (transaction pooling): $TRAVEL_DB_CONNINFO"
fi
# No test may make the system resolver look a name up (a made-up name would
# leave the machine as a DNS query). From here on every process (the test
# binaries, httpd and its children, curl, psql) resolves through the test
# resolver (tests/resolver/hosts_only.c, preloaded; never in mod_travel):
# numbers, localhost and the names of TRAVEL_TEST_HOSTS resolve, any other
# name is refused and written to TRAVEL_TEST_DNS_LOG, which fails the run
# unless a test listed it in expected-dns.
export LD_PRELOAD="$B/tests/libhosts_only.so${LD_PRELOAD:+ $LD_PRELOAD}"
export TRAVEL_TEST_HOSTS="private.hooks.test=10.1.2.3"
export TRAVEL_TEST_DNS_LOG="$dir/dns-refused.log"
: >"$TRAVEL_TEST_DNS_LOG"
chmod 666 "$TRAVEL_TEST_DNS_LOG" # httpd's children (www-data) append to it too
touch "$dir/expected-dns"
export TRAVEL_TEST_DB="$conninfo" TRAVEL_TEST_DIR="$dir" TRAVEL_TEST_TRAVELCTL="$root/bin/travelctl"
# Every /v1 exchange of the e2e tests, checked against docs/openapi.yaml.
export TRAVEL_TEST_EXCHANGES="$dir/exchanges.jsonl"
: >"$TRAVEL_TEST_EXCHANGES"

run_suite() {
  local kind=$1 t name out
  shopt -s nullglob
  for t in "$B/tests/$kind"/test_*; do
    name=${t##*/}
    # TESTS="test_a test_b" runs only those (a developer's quick loop).
    if [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]]; then continue; fi
    out="$dir/$kind-$name.log"
    if "$t" >"$out" 2>&1; then
      passed=$(grep -Eo 'PASSED +\] +[0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
      total_passed=$((total_passed + passed))
      printf '  %-4s %-28s ok (%s tests)\n' "$kind" "$name" "$passed"
    else
      failed=1
      printf '  %-4s %-28s FAILED\n' "$kind" "$name"
      sed 's/^/      /' "$out"
    fi
  done
}

total_passed=0
echo "db and e2e tests (stack in $dir)"
run_suite db

"$stack" sandbox-start "$dir" || { failed=1; exit 1; }
"$stack" httpd-start "$dir" a || { failed=1; exit 1; }
TRAVEL_PORT=$PORT_B "$stack" httpd-start "$dir" b || { failed=1; exit 1; }
TRAVEL_PORT=$PORT_RL TRAVEL_WORKERS=0 TRAVEL_RATE_LIMIT="5 60s" TRAVEL_AUTH_FAIL_LIMIT="5 60s" \
  "$stack" httpd-start "$dir" rl || { failed=1; exit 1; }
TRAVEL_PORT=$PORT_NODB TRAVEL_WORKERS=0 TRAVEL_DB_HOST="$dir/no-database-here" \
  TRAVEL_DB_CONNINFO= TRAVEL_NOTIFY_CONNINFO= "$stack" httpd-start "$dir" nodb || { failed=1; exit 1; }
export TRAVEL_TEST_URL="http://127.0.0.1:$TRAVEL_PORT"
export TRAVEL_TEST_URL_B="http://127.0.0.1:$PORT_B"
export TRAVEL_TEST_URL_RL="http://127.0.0.1:$PORT_RL"
export TRAVEL_TEST_URL_NODB="http://127.0.0.1:$PORT_NODB"
export TRAVEL_TEST_SANDBOX_URL="http://127.0.0.1:$TRAVEL_SANDBOX_PORT"
touch "$dir/expected-errors"
run_suite e2e

echo "  openapi: the e2e tests' /v1 exchanges against docs/openapi.yaml"
"$root/tests/openapi/check.sh" "$dir/exchanges.jsonl" >"$dir/openapi.log" 2>&1 || failed=1
sed 's/^/      /' "$dir/openapi.log"

# Stop first so lines logged while stopping are checked too.
"$stack" stop "$dir" >/dev/null 2>&1
for inst in sandbox a b rl; do
  log="$dir/httpd-$inst/error.log"
  bad=$(grep -E '\[[a-z_0-9]*:(error|crit|alert|emerg)\]' "$log" | grep -Ev -f <(grep -v '^$' "$dir/expected-errors"; echo '^$') || true)
  if [ -n "$bad" ]; then
    failed=1
    echo "  unexpected error-log lines in httpd $inst:"
    echo "$bad" | sed 's/^/      /'
  fi
  # Our own failure lines must carry a request id and a TRV tag.
  untagged=$(grep -E '\[travel(_sandbox)?:(error|crit|alert|emerg)\]' "$log" | grep -Ev 'TRV[0-9]+: .*\[request_id ' || true)
  if [ -n "$untagged" ]; then
    failed=1
    echo "  mod_travel error lines without a TRV tag or request id in httpd $inst:"
    echo "$untagged" | sed 's/^/      /'
  fi
done
for log in "$dir"/httpd-*/error.log; do
  crashed=$(grep -E 'AH0005[12]: .*exit signal|corrupted|double free' "$log" | grep -Ev -f <(grep -v '^$' "$dir/expected-errors"; echo '^$') || true)
  if [ -n "$crashed" ]; then
    failed=1
    echo "  a child process crashed in $(basename "$(dirname "$log")"):"
    echo "$crashed" | sed 's/^/      /'
  fi
done
# Under make test-httpd-asan: every AddressSanitizer report of httpd's children.
for report in "$dir"/asan/httpd.*; do
  [ -f "$report" ] || continue
  failed=1
  echo "  AddressSanitizer in httpd ($report):"
  sed -n '1,40p' "$report" | sed 's/^/      /'
done
escaped=$(awk '{print $1}' "$TRAVEL_TEST_DNS_LOG" | sort -u | grep -vxF -f <(grep -v '^$' "$dir/expected-dns"; echo '') || true)
if [ -n "$escaped" ]; then
  failed=1
  echo "  names looked up outside the test resolver's table (use 127.0.0.1 or add them to TRAVEL_TEST_HOSTS):"
  echo "$escaped" | sed 's/^/      /'
fi
echo "db + e2e: $total_passed tests passed"
[ $failed -eq 0 ] && echo "all stack tests passed" || echo "STACK TESTS FAILED"
exit $failed
