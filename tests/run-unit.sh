#!/usr/bin/env bash
# Runs every unit test binary, plain and under AddressSanitizer + UBSan:
# one line per binary, then the total of tests passed. Exits non-zero when
# any binary failed (a failed test, a sanitizer report, a crash) or when
# there is nothing to run.
set -u

B=${1:-build}
# verify_asan_link_order=0: the test resolver below is preloaded first.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

# No unit test may ask the system resolver for a name: every binary
# resolves through the test resolver (tests/resolver/hosts_only.c), which
# refuses and records any name but localhost; a recorded name fails the run.
if [ -f "$B/tests/libhosts_only.so" ]; then
    export LD_PRELOAD="$(cd "$B" && pwd)/tests/libhosts_only.so${LD_PRELOAD:+ $LD_PRELOAD}"
fi
export TRAVEL_TEST_DNS_LOG="$log_dir/dns-refused.log"
: >"$TRAVEL_TEST_DNS_LOG"

binaries=0 failed=0 passed_tests=0
for dir in "$B/tests/unit" "$B/tests/unit-asan"; do
    [ -d "$dir" ] || continue
    for bin in "$dir"/test_*; do
        [ -f "$bin" ] && [ -x "$bin" ] || continue
        binaries=$((binaries + 1))
        name="$(basename "$dir")/$(basename "$bin")"
        log="$log_dir/$binaries.log"
        "$bin" >"$log" 2>&1
        rc=$?
        # cmocka: "[  PASSED  ] 12 test(s)."
        n=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\..*/\1/p' "$log" \
            | awk '{s += $1} END {print s + 0}')
        passed_tests=$((passed_tests + n))
        if [ "$rc" -eq 0 ]; then
            printf '  PASS  %-40s %3d test(s)\n' "$name" "$n"
        else
            failed=$((failed + 1))
            printf '  FAIL  %-40s exit %d\n' "$name" "$rc"
            sed 's/^/        | /' "$log"
        fi
    done
done

if [ -s "$TRAVEL_TEST_DNS_LOG" ]; then
    failed=$((failed + 1))
    echo "  FAIL  names looked up outside the test resolver's table:"
    sort -u "$TRAVEL_TEST_DNS_LOG" | sed 's/^/        | /'
fi

if [ "$binaries" -eq 0 ]; then
    echo "unit: no test binaries under $B/tests/unit or $B/tests/unit-asan" >&2
    exit 1
fi
echo "unit: $binaries binaries, $((binaries - failed)) passed, $failed failed; $passed_tests tests passed"
[ "$failed" -eq 0 ]
