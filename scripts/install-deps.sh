#!/usr/bin/env bash
# Installs the Debian packages mod_travel builds, runs and tests with.
# As root it runs apt-get; otherwise it prints the one command to run.
set -euo pipefail
pkgs=(apache2 apache2-dev libaprutil1-dbd-pgsql libjansson-dev libcurl4-openssl-dev libdeflate-dev
      libssl-dev postgresql libpq-dev libcmocka-dev libyaml-dev tzdata
      pgbouncer                  # tests/e2e/test_pgbouncer.c (transaction pooling)
      memcached                  # tests/e2e/test_shared_limits.c (limits across nodes)
      clang libclang-rt-14-dev   # the libFuzzer targets (tests/fuzz)
      chromium                   # the dashboard's browser test (tests/e2e/dashboard-browser)
      curl jq)                   # the guides' curl blocks (docs/getting-started.md; tests/e2e/test_guides.c)
# `install-deps.sh bench` adds what the benchmarks use: wrk, and nginx for the
# baseline rows (the test setup's node serves their Node row).
[ "${1:-}" = bench ] && pkgs+=(wrk nginx)
# `install-deps.sh chaos` adds what the chaos soak's clients use.
[ "${1:-}" = chaos ] && pkgs+=(curl jq)
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "mod_travel needs these Debian packages; install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Installing must not start the system's apache2 or PostgreSQL services.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod +x "$policy"; created_policy=1
fi
trap '[ $created_policy -eq 1 ] && rm -f "$policy"' EXIT
if ! apt-get install -y -q "${missing[@]}" >/tmp/mod_travel-apt.log 2>&1; then
  apt-get update -q >>/tmp/mod_travel-apt.log 2>&1
  apt-get install -y -q "${missing[@]}" >>/tmp/mod_travel-apt.log 2>&1 || {
    tail -20 /tmp/mod_travel-apt.log >&2; exit 1; }
fi
