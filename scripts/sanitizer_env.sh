#!/usr/bin/env bash
# Sourced before running anything built by a sanitized tree (scripts/test.sh): every report is
# fatal and readable, and leaks are checked (tests/sweep turns leak checking off for its Open MPI
# test only, saying why).
gpumux_symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
export ASAN_SYMBOLIZER_PATH="$gpumux_symbolizer"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
