#!/usr/bin/env bash
# Replays 1,000,000 synthetic jobs on the 6,212-GPU openb cluster and reports wall time and
# peak memory (GNU time). Usage: bench/replay/run_replay_1m.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=$(mktemp -d)
/usr/bin/time -v "$build/gpumux" run "$root/bench/replay/replay_1m.json" --out "$out" --progress \
  2> "$out/time.txt"
grep -E "Elapsed|Maximum resident" "$out/time.txt"
grep -E "events in" "$out/time.txt" || true
rm -rf "$out"
