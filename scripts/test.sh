#!/usr/bin/env bash
# The README's test command, and what CI runs (.ci/run): installs what is missing, builds the
# whole project, every test and the fuzz targets in one clang tree (build-sanitize/) with
# AddressSanitizer and UndefinedBehaviorSanitizer (float-cast-overflow included, any report
# fatal; cmake/sanitizers.cmake), runs the whole CTest suite there, then replays every fuzz
# corpus and fuzzes each target for GPUMUX_FUZZ_SECONDS seconds (default 5; scripts/fuzz.sh).
#
#   scripts/test.sh                            # sanitized suite + fuzzing (CI)
#   GPUMUX_FUZZ_SECONDS=0 scripts/test.sh      # replay the corpora only
#   GPUMUX_TEST_BUILD=release scripts/test.sh  # plain g++ Release tree (build-test/),
#                                              # the suite only: quicker runs while developing
#
# Why the sanitized tree is the one CI builds: compiling the project twice (Release and
# sanitized) does not fit the CI budget, and the sanitized suite runs every test the Release one
# does, with memory and undefined-behaviour checks on top. Libraries compile at -O1; test code
# at -O0 (cmake/sanitizers.cmake says why).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
mode="${GPUMUX_TEST_BUILD:-sanitize}"
# chromium and python3: the browser check of the HTML report (tests/report/); Open MPI: the
# MPI sweep check (tests/sweep/, `mpirun -np 3`, a few seconds). Only the tests need them, so
# the quickstart does not install them. MPI is required here, so that the MPI sweep check is
# never silently left out.
test_packages=(chromium python3 libopenmpi-dev openmpi-bin)

case "$mode" in
  release)
    gpumux_install_missing "${test_packages[@]}"
    build="$root/build-test"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=ON \
      -DGPUMUX_WITH_MPI=ON > /dev/null
    cmake --build "$build" -j"$(nproc)"
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
    ;;
  sanitize)
    # clang and its runtimes (libFuzzer, ASan, UBSan); llvm-symbolizer for readable reports.
    gpumux_install_missing "${test_packages[@]}" clang libclang-rt-14-dev llvm-14
    build="$root/build-sanitize"
    cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DGPUMUX_BUILD_TESTS=ON \
      -DGPUMUX_BUILD_FUZZERS=ON -DGPUMUX_WITH_MPI=ON > /dev/null
    cmake --build "$build" -j"$(nproc)"
    source "$root/scripts/sanitizer_env.sh"
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
    bash "$root/scripts/fuzz.sh" "$build" "${GPUMUX_FUZZ_SECONDS:-5}"
    ;;
  *)
    echo "scripts/test.sh: GPUMUX_TEST_BUILD must be 'sanitize' (default) or 'release'," \
         "got '$mode'" >&2
    exit 2
    ;;
esac
