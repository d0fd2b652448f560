#!/usr/bin/env bash
# Exits 0 when the compiler ($1, default clang) can build and run a
# libFuzzer target under ASan + UBSan: clang itself and its runtime
# libraries (Debian: clang, libclang-rt-14-dev) are both there.
set -u
cc=${1:-clang}
command -v "$cc" >/dev/null 2>&1 || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/t.c" <<'C'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
C
"$cc" -fsanitize=fuzzer,address,undefined -o "$dir/t" "$dir/t.c" >/dev/null 2>&1 \
  && "$dir/t" -runs=1 >/dev/null 2>&1
