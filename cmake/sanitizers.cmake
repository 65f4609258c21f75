# Sanitizer and fuzzer builds (docs/testing.md "Sanitizers and fuzzing").
#
# GPUMUX_SANITIZE: every target, tests included, with AddressSanitizer and UndefinedBehaviorSanitizer
# (float-cast-overflow named explicitly: GCC's "undefined" leaves it out). Any report aborts the
# process (-fno-sanitize-recover), so a test that triggers one fails.
# GPUMUX_BUILD_FUZZERS (clang only): the libFuzzer targets under fuzz/. It implies GPUMUX_SANITIZE
# and instruments every library for coverage, so one tree holds both the sanitized suite and the
# fuzzers.
option(GPUMUX_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
option(GPUMUX_BUILD_FUZZERS "Build the libFuzzer targets under fuzz/ (clang only)" OFF)

if(GPUMUX_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GPUMUX_BUILD_FUZZERS needs clang (libFuzzer), got "
                        "${CMAKE_CXX_COMPILER_ID}: configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(GPUMUX_SANITIZE ON CACHE BOOL "Build with AddressSanitizer + UndefinedBehaviorSanitizer" FORCE)
endif()

# The flags are for C++ only: CUDA sources (gpumux-probe's kernels, compiled by nvcc with its
# own host compiler, often g++ beside clang) take none of them, and the probe, which needs a
# GPU, runs in no test.
if(GPUMUX_SANITIZE)
  set(gpumux_sanitizers -fsanitize=address,undefined,float-cast-overflow)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${gpumux_sanitizers}>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=all;-fno-omit-frame-pointer>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${gpumux_sanitizers}>")
  # Tests that count allocations or measure speed skip themselves under this definition.
  add_compile_definitions(GPUMUX_SANITIZED=1)
endif()

# lld links the sanitized programs about five times faster than GNU ld (the largest test
# program: 0.5 s against 2.5 s), and a sanitized tree links some fifty programs. Used with clang
# where ld.lld is installed (scripts/test.sh installs it); C++ links only, as above.
if(GPUMUX_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  find_program(GPUMUX_LLD NAMES ld.lld)
  if(GPUMUX_LLD)
    add_link_options("$<$<LINK_LANGUAGE:CXX>:-fuse-ld=lld>")
  endif()
endif()

if(GPUMUX_BUILD_FUZZERS)
  # Coverage feedback from every library; the fuzz targets link the libFuzzer driver.
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>")
endif()

# Test and benchmark programs (gpumux_add_gtest, gpumux_add_benchmark) in a sanitized tree: their
# own code compiles at -O0 and without coverage instrumentation. Their work runs in the libraries
# (still -O1, instrumented); optimising GoogleTest's expansions cost about three times as much
# compile time (tests/e2e/report_test.cc: 34 s at -O1 with coverage, 12 s at -O0), which is what
# lets the sanitized suite be the one CI builds.
set(GPUMUX_TEST_COMPILE_OPTIONS "")
if(GPUMUX_SANITIZE)
  list(APPEND GPUMUX_TEST_COMPILE_OPTIONS -O0)
endif()
if(GPUMUX_BUILD_FUZZERS)
  list(APPEND GPUMUX_TEST_COMPILE_OPTIONS
       -fno-sanitize-coverage=inline-8bit-counters,indirect-calls,trace-cmp,pc-table)
endif()
