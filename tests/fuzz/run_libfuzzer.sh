#!/usr/bin/env bash
# Builds the libFuzzer target (tests/fuzz/clang) with clang and runs it from the committed
# corpus for SECONDS; fails on any crash, leak, sanitizer report or timeout of one input.
#
#   run_libfuzzer.sh CLANGXX BUILD_DIR SECONDS [LIBFUZZER OPTIONS...]
#
# Exit 77 (ctest: skipped) when CLANGXX is empty or cannot link a -fsanitize=fuzzer
# program. New inputs found go to BUILD_DIR/corpus-new, never into the source tree.
set -u
clangxx=$1 build=$2 seconds=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$clangxx" ] || ! command -v "$clangxx" >/dev/null; then
  echo "SKIP: no clang++ (apt-get install clang libclang-rt-14-dev)"
  exit 77
fi
mkdir -p "$build"
probe=$build/probe.cc
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe"
if ! "$clangxx" -fsanitize=fuzzer,address,undefined "$probe" -o "$build/probe" 2>"$build/probe.err"; then
  cat "$build/probe.err"
  echo "SKIP: $clangxx cannot link -fsanitize=fuzzer (apt-get install libclang-rt-14-dev)"
  exit 77
fi
start=$(date +%s)
cmake -S "$here/clang" -B "$build" -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE= \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1 || { tail -50 "$build/build.log"; exit 1; }
echo "clang fuzz build: $(($(date +%s) - start)) s"
mkdir -p "$build/corpus-new"
cd "$build" || exit 1
# -detect_leaks=1 is libFuzzer's default with ASan; a leak fails the run like a crash.
"$build/fuzz_service" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -detect_leaks=1 "$@" "$build/corpus-new" "$here/corpus" \
  >"$build/fuzz.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
  grep -v '^fuzz seed cluster' "$build/fuzz.log" | tail -80
  echo "FAIL: fuzz_service exited $rc (log: $build/fuzz.log; crash-*/leak-* inputs in $build)"
  exit "$rc"
fi
grep -E 'INITED|DONE|^Done|^stat::' "$build/fuzz.log"
echo "fuzz_service: no crash, leak or sanitizer report (log: $build/fuzz.log)"
