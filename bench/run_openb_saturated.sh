#!/usr/bin/env bash
# Times saturated share-aware queues (issue 32): the FGD study's setting over time
# (scenarios/studies/openb_fractional.json: the openb cluster, fractional model) with JOBS
# arrivals over 7,200 s at offered load 2.0 and at 1.0, under the greedy and fifo-backfill
# queues, with fgd and best-fit placement. Prints user CPU seconds per run and each load 2.0
# run's ratio to the same run at load 1.0 (same command, same machine: on a shared machine only
# such ratios and side-by-side runs are stable).
# Targets (docs/performance.md "Saturated share-aware queues"): <= 3 s each at load 2.0, and
# within 2x of load 1.0.
# Usage: bench/run_openb_saturated.sh [GPUMUX (default build/gpumux)]
#   environment: JOBS (default 69000), LIMIT_S (default 7200), TIMEOUT_S (wall-clock seconds per
#   run, default 600: a run killed at it prints "> TIMEOUT_S wall", which on a loaded machine is
#   far less CPU)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpumux=${1:-$root/build/gpumux}
jobs=${JOBS:-69000}
limit=${LIMIT_S:-7200}
timeout_s=${TIMEOUT_S:-600}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scenario=$root/scenarios/studies/openb_fractional.json

# user LOAD QUEUE PLACEMENT: prints user CPU seconds, or "> TIMEOUT_S wall".
user() {
  if timeout -s KILL "$timeout_s" /usr/bin/time -f %U -o "$work/time.txt" "$gpumux" run \
    "$scenario" --out "$work/out" --quiet --set trace.inflation.load="$1" \
    --set trace.inflation.jobs="$jobs" --set limits.max_time_s="$limit" \
    --set scheduler.queue="$2" --set scheduler.placement="$3" > /dev/null 2> "$work/err.txt"; then
    tail -n 1 "$work/time.txt"
    rm -rf "$work/out"
  else
    echo ">${timeout_s}wall"
  fi
}

printf '%-14s %-9s %10s %10s %8s\n' queue placement "load 1.0" "load 2.0" ratio
for queue in greedy fifo-backfill; do
  for placement in fgd best-fit; do
    one=$(user 1.0 "$queue" "$placement")
    two=$(user 2.0 "$queue" "$placement")
    ratio=$(python3 -c "import sys; a, b = sys.argv[1:]; print(f'{float(b) / max(float(a), 0.01):.2f}' if '>' not in a + b else 'n/a')" "$one" "$two")
    printf '%-14s %-9s %10s %10s %8s\n' "$queue" "$placement" "$one" "$two" "$ratio"
  done
done
