#!/usr/bin/env bash
# make conformance [PROTOCOL=...] [SUPPLIER_URL=...]: the conformance kit
# (tests/conformance/conformance.c; docs/suppliers.md, "Conformance kit").
# With SUPPLIER_URL: one protocol (PROTOCOL, required) against that server,
# credentials from SUPPLIER_KEY[_FILE], SUPPLIER_SECRET[_FILE],
# SUPPLIER_SECOND_URL (and PAYMENT_* for a supplier that charges the
# traveller). Without it: a throwaway sandbox (its own PostgreSQL cluster
# and httpd on free ports, started as the test stack starts them, stopped
# at the end) and PROTOCOL, or every protocol, against it.
set -uo pipefail
B=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
kit="$B/tests/conformance/conformance"
stack="$root/scripts/stack.sh"
failed=0

if [ -n "${SUPPLIER_URL:-}" ]; then
  if [ -z "${PROTOCOL:-}" ]; then
    echo "conformance: SUPPLIER_URL needs PROTOCOL ($("$kit" --list | tr '\n' ' '))" >&2
    exit 2
  fi
  exec "$kit"
fi

free_port() {
  local p
  while :; do
    p=$(( 20000 + RANDOM % 12000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
}
dir=$(mktemp -d /tmp/mod_travel-conformance.XXXXXX)
chmod 755 "$dir"
export TRAVEL_PG_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) STACK_PG_FAST=1
export TRAVEL_SANDBOX_LATENCY="1ms 5ms"
cleanup() {
  "$stack" stop "$dir" >/dev/null 2>&1
  if [ $failed -eq 0 ]; then rm -rf "$dir"; else echo "The sandbox's logs are kept in $dir/httpd-sandbox."; fi
}
trap cleanup EXIT
"$stack" pg-start "$dir" >/dev/null || { failed=1; exit 1; }
"$stack" sandbox-start "$dir" >/dev/null || { failed=1; exit 1; }
export SANDBOX_URL="http://127.0.0.1:$TRAVEL_SANDBOX_PORT"
for p in ${PROTOCOL:-$("$kit" --list)}; do
  PROTOCOL=$p "$kit" || failed=1
done
[ $failed -eq 0 ] && echo "conformance: every protocol passed against the sandbox" \
  || echo "CONFORMANCE FAILED"
exit $failed
