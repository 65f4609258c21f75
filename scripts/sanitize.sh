#!/usr/bin/env bash
# The sanitizer job: one clang tree (build-sanitize) with AddressSanitizer + UndefinedBehavior-
# Sanitizer (float-cast-overflow included, any report fatal) at -O1, holding the whole test suite
# and the fuzz targets (cmake/sanitizers.cmake). Runs the whole suite there, then replays the
# fuzz corpora and fuzzes each target for GPUMUX_FUZZ_SECONDS (default 10) seconds
# (scripts/fuzz.sh).
#
#   scripts/sanitize.sh            # install what is missing, build, test, fuzz
#   GPUMUX_FUZZ_SECONDS=0 scripts/sanitize.sh   # replay the corpora only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
# clang and its runtimes (libFuzzer, ASan, UBSan); llvm-symbolizer for readable reports;
# chromium and python3 for the browser check of the report (tests/report/).
gpumux_install_missing clang libclang-rt-14-dev llvm-14 chromium python3
build="${GPUMUX_SANITIZE_BUILD:-$root/build-sanitize}"
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DGPUMUX_BUILD_TESTS=ON \
  -DGPUMUX_BUILD_FUZZERS=ON > /dev/null
cmake --build "$build" -j"$(nproc)"

symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
export ASAN_SYMBOLIZER_PATH="$symbolizer"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
bash "$root/scripts/fuzz.sh" "$build" "${GPUMUX_FUZZ_SECONDS:-10}"
