#!/usr/bin/env bash
# Times whole runs of the 1M replay (bench/replay/replay_1m.json: synthetic jobs on the 6,212-GPU
# Alibaba openb cluster, best-fit, fifo) with GNU time: wall and user CPU seconds, peak RSS, and
# the engine's event count. Two series:
# - models: JOBS jobs under exclusive, timeslice, mps and mig (mig: the openb cluster's shape with
#   A100-80GB GPUs in the balanced layout 3g.40gb+2g.20gb+1g.10gb x2, and single-GPU jobs, since
#   MIG instances take no gangs: bench/replay/openb_a100_nodes.sh);
# - linearity: exclusive at each of SIZES jobs, with the cost per job relative to the first.
# Prints one line per run and the ratio of each model's user CPU time to exclusive's (same
# command, same machine: on a shared machine only such ratios are stable).
# Usage: bench/run_end_to_end.sh [BUILD_DIR]
#   environment: JOBS (default 1000000), MODELS (default "exclusive timeslice mps mig"; empty: no
#   model series), SIZES (default "100000 1000000 4000000"; empty: no linearity series)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
jobs=${JOBS:-1000000}
models=${MODELS-exclusive timeslice mps mig}
sizes=${SIZES-100000 1000000 4000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/bench/replay/openb_a100_nodes.sh" > "$work/openb_a100.csv"
scenario=$root/bench/replay/replay_1m.json

# run LABEL JOBS [--set ...]: prints "LABEL jobs wall_s user_s rss_mib events".
run() {
  local label=$1 n=$2
  shift 2
  /usr/bin/time -v "$build/gpumux" run "$scenario" --no-outputs --progress \
    --set trace.generator.jobs="$n" "$@" > /dev/null 2> "$work/time.txt" || {
    echo "$label: gpumux failed:" >&2
    tail -5 "$work/time.txt" >&2
    return 1
  }
  awk -v label="$label" -v n="$n" '
    /Elapsed \(wall clock\)/ { t = $NF; k = split(t, p, ":"); wall = 0;
                               for (i = 1; i <= k; ++i) wall = wall * 60 + p[i] }
    /User time \(seconds\)/ { user = $NF }
    /Maximum resident set size/ { rss = $NF / 1024 }
    /events in/ { for (i = 1; i <= NF; ++i) if ($i == "events") events = $(i - 1) }
    END { printf "%-12s %9d %8.2f %8.2f %8.1f %10s\n", label, n, wall, user, rss, events }
  ' "$work/time.txt"
}

printf "%-12s %9s %8s %8s %8s %10s\n" run jobs wall_s user_s rss_mib events
: > "$work/models.txt"
for model in $models; do
  case $model in
    mig)
      run mig "$jobs" --set cluster.nodes_csv="$work/openb_a100.csv" \
        --set trace.generator.gpus=1 --set sharing.model=mig \
        --set 'sharing.params.layout=["3g.40gb","2g.20gb","1g.10gb","1g.10gb"]' ;;
    *) run "$model" "$jobs" --set sharing.model="$model" ;;
  esac | tee -a "$work/models.txt"
done
awk '$1 == "exclusive" { base = $4 } { user[$1] = $4; order[NR] = $1 }
     END { if (base > 0) for (i = 1; i <= NR; ++i)
             printf "user CPU %s / exclusive: %.2f\n", order[i], user[order[i]] / base }' \
  "$work/models.txt"

if [ -n "$sizes" ]; then
  : > "$work/sizes.txt"
  for n in $sizes; do run "exclusive" "$n" --set sharing.model=exclusive | tee -a "$work/sizes.txt"; done
  awk 'NR == 1 { per = $4 / $2; first = $2 }
       { printf "jobs %d: user CPU per job %.2f x that at %d jobs\n", $2, ($4 / $2) / per, first }' \
    "$work/sizes.txt"
fi
