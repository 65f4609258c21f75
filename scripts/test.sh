#!/usr/bin/env bash
# Installs what is missing, builds everything with tests (Release) and runs the whole suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
# chromium and python3: the browser check of the HTML report (tests/report/); only the tests
# need them, so the quickstart does not install them.
gpumux_install_missing chromium python3
build="$root/build-test"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=ON > /dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
