#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite once, in the sanitizer tree
# (scripts/sanitize.sh: clang, ASan + UBSan, -O1, assertions on), followed by the fuzz corpora
# replayed and each fuzz target fuzzed for GPUMUX_FUZZ_SECONDS (default 10) seconds.
# The suite runs once, under the sanitizers, because a second full build does not fit the CI
# budget: compiling dominates the cost (the suite itself takes about a minute of CPU in Release)
# and a sanitized unit costs about 1.5 times a Release one (README "Sanitizers and fuzzing").
# GPUMUX_RELEASE_SUITE=1 also builds every test in Release (build-test) and runs the suite there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
gpumux_install_missing

if [ "${GPUMUX_RELEASE_SUITE:-0}" = 1 ]; then
  build="$root/build-test"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=ON > /dev/null
  cmake --build "$build" -j"$(nproc)"
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
fi

bash "$root/scripts/sanitize.sh"
