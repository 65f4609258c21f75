#!/usr/bin/env bash
# Scale runs under sharing models, where placement must ask models about occupied GPUs:
# - 100,000 jobs of the 1M replay scenario under timeslice and mps (6,212-GPU openb cluster);
# - the MISO comparison's balanced MIG layout scaled 100x (1,600 A100-40GB, 300,000 jobs).
# Prints wall time and peak memory per run (GNU time). Usage: run_shared_scale.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
run() {
  local label=$1
  shift
  /usr/bin/time -f "$label: %e s wall, %M KB peak RSS" "$build/gpumux" run "$@" --no-outputs --quiet \
    2>&1 >/dev/null | grep -E "wall|error" || true
}
for model in timeslice mps; do
  run "$model, 100k jobs, 6,212 GPUs" "$root/bench/replay/replay_1m.json" \
    --set sharing.model=$model --set trace.generator.jobs=100000
done
run "mig balanced, 300k jobs, 1,600 GPUs" "$root/scenarios/examples/mig_miso_compare.json" \
  --set /cluster/node_groups/0/nodes=200 --set trace.generator.jobs=300000 \
  --set trace.generator.arrival.rate_per_hour=4500 \
  --set 'sharing.params.layouts=[["3g.20gb","2g.10gb","1g.5gb","1g.5gb"]]'
