#!/usr/bin/env bash
# Replays every fuzz target's seed corpus (fuzz/corpus/<target>/), then fuzzes each target for a
# bounded time. Any crash, sanitizer report, exception other than InputError, timeout (10 s per
# input) or memory blow-up (2 GB) fails the script, naming the input that did it.
#
#   scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
#
# BUILD_DIR is a tree configured with -DGPUMUX_BUILD_FUZZERS=ON (scripts/test.sh makes one: build-sanitize/).
# SECONDS_PER_TARGET defaults to 10; 0 only replays the corpora. Targets run two at a time (or
# $GPUMUX_FUZZ_JOBS). New inputs the fuzzer finds go to BUILD_DIR/fuzz-work/<target>/, never into
# the repository; crashing inputs to BUILD_DIR/fuzz-work/artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]}" && pwd)
seconds=${2:-10}
shift $(( $# > 1 ? 2 : 1 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd "$root/fuzz/corpus" && ls)
fi
work="$build/fuzz-work"
mkdir -p "$work/artifacts" "$work/logs"

fuzz_one() {
  local target=$1 exe="$build/fuzz/fuzz_$1" corpus="$root/fuzz/corpus/$1"
  [ -x "$exe" ] || { echo "[fuzz] $target: no binary $exe" >&2; return 1; }
  mkdir -p "$work/$target"
  local common=(-timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1
                "-artifact_prefix=$work/artifacts/$target-")
  local log="$work/logs/$target.log"
  # Replay: every seed once.
  if ! "$exe" "${common[@]}" -runs=0 "$corpus" > "$log" 2>&1; then
    echo "[fuzz] $target: FAILED replaying the corpus" >&2; tail -40 "$log" >&2; return 1
  fi
  if [ "$seconds" -gt 0 ]; then
    if ! "$exe" "${common[@]}" -max_total_time="$seconds" "$work/$target" "$corpus" >> "$log" 2>&1
    then
      echo "[fuzz] $target: FAILED while fuzzing" >&2; tail -60 "$log" >&2; return 1
    fi
  fi
  local runs
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  echo "[fuzz] $target: ok ($(ls "$corpus" | wc -l) seeds replayed, ${runs:-0} runs in ${seconds} s)"
}
export -f fuzz_one
export build root work seconds

printf '%s\n' "${targets[@]}" | xargs -P "${GPUMUX_FUZZ_JOBS:-2}" -I{} bash -c 'fuzz_one {}'
