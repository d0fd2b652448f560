#!/usr/bin/env bash
# Runs the libFuzzer targets built under BUILD/fuzz (make fuzz-binaries).
#   run.sh BUILD smoke [NAME...]   each target FUZZ_SMOKE_RUNS executions
#                                  (default 20000) from a fixed seed, so the
#                                  `make test` step finds the same inputs on
#                                  every run (at most 120 s each)
#   run.sh BUILD full  [NAME...]   each target FUZZ_SECONDS (default 300), or
#                                  FUZZ_RUNS executions when that is set (and
#                                  at most FUZZ_SECONDS when both are)
# A target starts from its seed corpus tests/fuzz/corpus/NAME (read only;
# every seed, crash reproducers included, runs first) and its dictionary
# tests/fuzz/NAME.dict and flags tests/fuzz/NAME.options when there are; inputs it finds go to
# BUILD/fuzz/work/NAME, a crashing input to BUILD/fuzz/crashes/NAME/.
# Prints one line per target (executions, rate, crashes) and exits
# non-zero when any target crashed, leaked, timed out or did not run.
set -u
B=${1:-build}
mode=${2:-smoke}
shift 2 2>/dev/null || shift $#
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "$B" && pwd)
fz="$B/fuzz"
cd "$root" # the sandbox target reads data/openflights

case "$mode" in
  # A fixed seed and count: `make test` must not fail by chance; finding
  # new inputs is `make fuzz`'s job.
  smoke) args=(-seed=1 -runs="${FUZZ_SMOKE_RUNS:-20000}" -max_total_time=120) ;;
  full)
    # FUZZ_RUNS alone: that many executions; with FUZZ_SECONDS too, at
    # most that long.
    args=()
    [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
    if [ -z "${FUZZ_RUNS:-}" ] || [ -n "${FUZZ_SECONDS:-}" ]; then
      args+=(-max_total_time="${FUZZ_SECONDS:-300}")
    fi ;;
  *) echo "usage: $0 BUILD smoke|full [NAME...]" >&2; exit 2 ;;
esac

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for src in "$root"/tests/fuzz/fuzz_*.c; do
    n=${src##*/fuzz_}; names+=("${n%.c}")
  done
fi

# Leaks are findings too; UB stops the run (the targets are built with
# -fno-sanitize-recover) and prints where.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0 total=0
for n in "${names[@]}"; do
  bin="$fz/fuzz_$n"
  seeds="$root/tests/fuzz/corpus/$n"
  work="$fz/work/$n"
  # The smoke starts from the seeds alone each time (what `make fuzz` found
  # before is not read), so every run sees the same inputs.
  if [ "$mode" = smoke ]; then
    work="$fz/smoke-work/$n"; rm -rf "$work"
  fi
  crashes="$fz/crashes/$n"
  log="$fz/logs/$n.log"
  mkdir -p "$work" "$crashes" "$fz/logs"
  if [ ! -x "$bin" ]; then
    printf '  FAIL  fuzz_%-14s not built (%s)\n' "$n" "$bin"
    failed=$((failed + 1)); continue
  fi
  opts=(-timeout=10 -rss_limit_mb=1024 -max_len=4096 -print_final_stats=1
        -artifact_prefix="$crashes/")
  [ -f "$root/tests/fuzz/$n.dict" ] && opts+=(-dict="$root/tests/fuzz/$n.dict")
  # tests/fuzz/NAME.options: more libFuzzer flags, one per line (a later
  # -max_len wins).
  if [ -f "$root/tests/fuzz/$n.options" ]; then
    while read -r o; do [ -n "$o" ] && [ "${o#\#}" = "$o" ] && opts+=("$o"); done \
      <"$root/tests/fuzz/$n.options"
  fi
  dirs=("$work")
  [ -d "$seeds" ] && dirs+=("$seeds")
  before=$(ls "$crashes" | wc -l)
  "$bin" "${opts[@]}" "${args[@]}" "${dirs[@]}" >"$log" 2>&1
  rc=$?
  after=$(ls "$crashes" | wc -l)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  found=$((after - before))
  total=$((total + ${runs:-0}))
  if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ] && [ -n "$runs" ]; then
    printf '  PASS  fuzz_%-14s %12s executions in %ss (%s/s), 0 crashes\n' \
      "$n" "$runs" "${secs:-?}" "${rate:-?}"
  else
    failed=$((failed + 1))
    [ "$found" -eq 0 ] && [ "$rc" -ne 0 ] && found=1
    printf '  FAIL  fuzz_%-14s %12s executions, %d crash(es), exit %d; input in %s\n' \
      "$n" "${runs:-?}" "$found" "$rc" "$crashes/"
    grep -E 'ERROR: |runtime error|property failed|SUMMARY' "$log" | head -5 | sed 's/^/        | /'
    echo "        | reproduce: $bin $crashes/<file>   (full log: $log)"
  fi
done
echo "fuzz: ${#names[@]} targets, $((${#names[@]} - failed)) passed, $failed failed; $total executions"
[ "$failed" -eq 0 ]
