#!/usr/bin/env bash
# The README's test command, and what CI runs (.ci/run): installs what is missing, builds the
# whole project with its tests and runs the whole CTest suite.
#
#   scripts/test.sh                            # CI: one clang tree (build-sanitize/) with
#       AddressSanitizer + UndefinedBehaviorSanitizer (float-cast-overflow included, any report
#       fatal, leaks checked; cmake/sanitizers.cmake): the whole suite, then every fuzz corpus
#       replayed and each target fuzzed for GPUMUX_FUZZ_SECONDS seconds (default 5;
#       scripts/fuzz.sh). Libraries compile at -O1, test code at -O0 (cmake/sanitizers.cmake
#       says why), so this tree costs about what a Release one does.
#   GPUMUX_TEST_BUILD=release scripts/test.sh  # the same suite in a g++ Release tree
#       (build-test/), without sanitizers or fuzzing: the build the numbers come from.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
mode="${GPUMUX_TEST_BUILD:-sanitize}"
# chromium and python3: the browser check of the HTML report (tests/report/); Open MPI: the
# MPI sweep check (tests/sweep/, `mpirun -np 3`, a few seconds). Only the tests need them, so
# the quickstart does not install them. MPI is required here, so that the MPI sweep check is
# never silently left out. pybind11, pandas: the Python package and its tests (tests/python/),
# built in both trees so that they are never left out either.
test_packages=(chromium python3 libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-pandas)
# Each step's wall time, so that a slow CI run says where the time went.
step_started=$SECONDS
step_done() {
  echo "[test.sh] $1: $((SECONDS - step_started)) s"
  step_started=$SECONDS
}

case "$mode" in
  release)
    gpumux_install_missing "${test_packages[@]}"
    step_done "packages"
    build="$root/build-test"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=ON \
      -DGPUMUX_WITH_MPI=ON -DGPUMUX_WITH_PYTHON=ON > /dev/null
    cmake --build "$build" -j"$(nproc)"
    step_done "build"
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
    step_done "tests"
    ;;
  sanitize)
    # clang and its runtimes (libFuzzer, ASan, UBSan); llvm-symbolizer for readable reports;
    # lld, which links the sanitized programs faster (cmake/sanitizers.cmake).
    gpumux_install_missing "${test_packages[@]}" clang libclang-rt-14-dev llvm-14 lld
    step_done "packages"
    build="$root/build-sanitize"
    cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DGPUMUX_BUILD_TESTS=ON \
      -DGPUMUX_BUILD_FUZZERS=ON -DGPUMUX_WITH_MPI=ON -DGPUMUX_WITH_PYTHON=ON > /dev/null
    cmake --build "$build" -j"$(nproc)"
    step_done "build"
    source "$root/scripts/sanitizer_env.sh"
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
    step_done "tests"
    bash "$root/scripts/fuzz.sh" "$build" "${GPUMUX_FUZZ_SECONDS:-5}"
    step_done "fuzzing"
    ;;
  *)
    echo "scripts/test.sh: GPUMUX_TEST_BUILD must be 'sanitize' (default) or 'release'," \
         "got '$mode'" >&2
    exit 2
    ;;
esac
