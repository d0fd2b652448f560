#!/usr/bin/env bash
# make bench: every figure of the read path and the webhook sender, each
# measured on its own throwaway stack. About 40 minutes on 2 cores.
#   1. the product beside its ceiling: GET one booking and the list of 20 in
#      the same wrk rounds as a bare httpd + mod_dbd select by id and a Node
#      http + pg server (the baseline harness in ../shared/bench, when it is
#      there; ROUNDS, default 3)
#   1a. the read path's CPU per request of the API httpd and PostgreSQL: GET
#      one flight booking, one hotel booking and the list of 20, ROUNDS
#      rounds of 20,000 requests each (reads.sh); READS_BASE=DIR (another
#      built checkout, e.g. a git worktree of an older commit) measures it
#      too, alternating with this one, and prints this one's ratio to it
#   2. the list at 10,000 and 1,000,000 bookings of one user (list-1m.sh)
#   3. webhook deliveries per second and commit-to-receiver latency
#      (webhooks.sh)
#   3a. the circuit breaker: 20 healthy receivers' commit-to-receipt p99
#      with and without one that hangs until the 10 s timeout (breaker.sh),
#      BREAKER_ROUNDS pairs (4), their median and the pooled p99 of each
#      side; then its control, the
#      same pairs with no hanging receiver in either run: how far two runs
#      of the same work differ on this machine
#   3b. retention soak: the webhook tables' rows and size while events keep
#      coming for 18 times a shortened period (retention.sh)
#   4. httpd child memory over 1,000,000 mixed requests (rss.sh)
#   5. mod_travel against a Node gateway doing the same queries (api.sh)
#   6. one check cycle of 100,000 price watches on 2,000 hotel-stays:
#      supplier calls and wall time (watches.sh)
#   7. hotel search (a page of 20 of 30 hotels), offers of 10 hotels and
#      flight offers, with CPU per request per process group, beside a Node
#      gateway doing the same against the same sandbox (search.sh)
#   7a. searches and price watches against a supplier answering 429 past
#      10 calls/s, through the supplier call budget: 5xx answered and watch
#      checks lost, both must be 0 (budget.sh)
#   8. 1, 2 and 3 API nodes behind mod_proxy_balancer on one PostgreSQL
#      through PgBouncer: GET, the list and webhook deliveries per node
#      count, with PostgreSQL's CPU per request (nodes.sh)
# A step that fails is reported and the next one runs; the exit status is
# the number of failed steps.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# BASELINE_DIR: the harness elsewhere (a worktree's checkout is not beside it).
baseline="${BASELINE_DIR:-$root/../shared/bench}/product.sh"
failed=0
step() {
  local name=$1; shift
  echo
  echo "==== $name ($(date -u +%H:%M:%S))"
  "$@" || { echo "==== $name FAILED"; failed=$((failed + 1)); }
}
if [ -x "$baseline" ] || [ -f "$baseline" ]; then
  step "GET one booking and the list against the httpd + mod_dbd ceiling and Node" \
    env TRAVEL_CHECKOUT="$root" ROUNDS="${ROUNDS:-3}" bash "$baseline" "${BOOKINGS:-200}"
else
  echo "==== ceiling rows skipped: no baseline harness at $baseline (set BASELINE_DIR)"
fi
step "read path: CPU per request of GET one flight and hotel booking and the list of 20" \
  env ROUNDS="${ROUNDS:-3}" "$here/reads.sh" ${READS_BASE:+"$READS_BASE"} "$root"
step "list at 10,000 and 1,000,000 bookings" "$here/list-1m.sh" "${LIST_ROWS:-1000000}"
step "webhook deliveries" "$here/webhooks.sh" "${WEBHOOK_EVENTS:-5000}"
step "webhook circuit breaker: a hanging receiver beside 20 healthy ones" \
  env BENCH_ROUNDS="${BREAKER_ROUNDS:-4}" "$here/breaker.sh" "${BREAKER_EVENTS:-5000}" 20
step "webhook circuit breaker's control: the same pairs, no hanging receiver in either run" \
  env BENCH_ROUNDS="${BREAKER_ROUNDS:-4}" BENCH_CONTROL=1 "$here/breaker.sh" "${BREAKER_EVENTS:-5000}" 20
step "webhook retention soak" "$here/retention.sh" "${SOAK_SECONDS:-180}" "${SOAK_RATE:-100}"
step "httpd child RSS" "$here/rss.sh" "${RSS_REQUESTS:-1000000}"
step "API against a Node gateway" "$here/api.sh"
step "price watches: one check cycle" "$here/watches.sh" "${WATCHES:-100000}" "${WATCH_STAYS:-2000}"
step "search: hotel search, hotel offers, flight offers" "$here/search.sh"
step "supplier call budget: searches and watches against 429 past 10 calls/s" \
  "$here/budget.sh" "${BUDGET_SECONDS:-20}" "${BUDGET_RATE:-10}"
step "N nodes through PgBouncer" "$here/nodes.sh"
echo
echo "make bench: $failed step(s) failed"
exit "$failed"
