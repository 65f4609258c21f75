#!/usr/bin/env bash
# Installs what is missing, builds everything with tests (Release) and runs the whole suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
# chromium and python3: the browser check of the HTML report (tests/report/); Open MPI: the
# MPI sweep check (tests/sweep/, `mpirun -np 3`, a few seconds). Only the tests need them, so
# the quickstart does not install them.
gpumux_install_missing chromium python3 libopenmpi-dev openmpi-bin
build="$root/build-test"
# MPI required here, so that the MPI sweep check is never silently left out.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=ON \
  -DGPUMUX_WITH_MPI=ON > /dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
