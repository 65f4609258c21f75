#!/usr/bin/env bash
# Installs what is missing, then (CI runs this through .ci/run):
# 1. the product as shipped: a Release build of `gpumux` alone (build-test), the quickstart
#    scenario and the regression suite (`gpumux check scenarios/regression/*.json`) on it;
# 2. the whole test suite once, in the sanitizer tree (scripts/sanitize.sh: clang, ASan + UBSan,
#    -O1), followed by the fuzz corpora replayed and each fuzz target fuzzed for
#    GPUMUX_FUZZ_SECONDS (default 10) seconds.
# The suite runs once, under the sanitizers, because a second full build does not fit the CI
# budget (README "Sanitizers and fuzzing"). GPUMUX_RELEASE_SUITE=1 also builds every test in
# Release and runs the suite there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
gpumux_install_missing

build="$root/build-test"
release_tests=OFF
[ "${GPUMUX_RELEASE_SUITE:-0}" = 1 ] && release_tests=ON
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=$release_tests \
  > /dev/null
if [ "$release_tests" = ON ]; then
  cmake --build "$build" -j"$(nproc)"
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
else
  cmake --build "$build" -j"$(nproc)" --target gpumux
  (cd "$root" && "$build/gpumux" run scenarios/examples/quickstart.json --quiet \
     --out "$build/quickstart" && "$build/gpumux" check scenarios/regression/*.json \
     --out "$build/regression")
fi

bash "$root/scripts/sanitize.sh"
