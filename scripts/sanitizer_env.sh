#!/usr/bin/env bash
# Sourced before running anything built by a sanitized tree (scripts/test.sh): every report is
# fatal and readable, leaks are checked, and the leaks of libraries outside the project (Open
# MPI's start-up allocations, kept until exit by design) are suppressed by name
# (scripts/lsan.supp), never the project's own.
gpumux_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpumux_symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
export ASAN_SYMBOLIZER_PATH="$gpumux_symbolizer"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$gpumux_root/scripts/lsan.supp:print_suppressions=0}"
