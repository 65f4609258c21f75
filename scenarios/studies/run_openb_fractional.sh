#!/usr/bin/env bash
# The study of docs/fractional-gpus.md "Fractional GPUs over time": four placement policies under `fractional`
# on the openb cluster, 10 seeds each, with `gpumux compare` (one invocation per load and
# policy; its table gives mean +- the 95% interval over the seeds), at these offered loads:
#   1.0  20,000 arrivals (over about 4,200 s), 5,000 s: the cluster fills but never saturates
#        (the scenario as is)
#   1.3  45,000 arrivals, 7,200 s: saturates after about an hour, then pods queue
#   2.0  69,000 arrivals, 7,200 s: saturates after about 2,000 s, the queue grows to the end
#        (not in the default set: with ~20,000 pods queued a run costs 6-75 s of CPU by seed)
# At loads 1.3 and 2.0 the arrivals are sized to last past the 7,200 s window, so pods arrive
# until the end of the measurement. The draws include the list's CPU-only pods (14.5%), which
# add no GPU load (the Poisson rate is about load x 4.75 per second) and hold cores on one node
# each (docs/performance.md "CPU-only jobs"); fifo-backfill's reservation counts GPUs and cores.
# Run from the repository root after a Release build; needs ../shared/data beside the source
# tree. Usage: run_openb_fractional.sh [OUT_DIR] [LOADS] (default out/study-openb-fractional,
# "1.0 1.3"); writes OUT_DIR/load-L/POLICY/ (compare's --out) and the printed table in
# OUT_DIR/load-L/POLICY.txt.
set -euo pipefail
out=${1:-out/study-openb-fractional}
loads=${2:-"1.0 1.3"}
for load in $loads; do
  case $load in
    1.0) window=(--set trace.inflation.jobs=20000 --set limits.max_time_s=5000) ;;
    1.3) window=(--set trace.inflation.jobs=45000 --set limits.max_time_s=7200) ;;
    2.0) window=(--set trace.inflation.jobs=69000 --set limits.max_time_s=7200) ;;
    *) echo "run_openb_fractional.sh: no window for load $load (1.0, 1.3 or 2.0)" >&2; exit 2 ;;
  esac
  for placement in fgd best-fit spread gpu-packing; do
    mkdir -p "$out/load-$load"
    ./build/gpumux compare scenarios/studies/openb_fractional.json --models fractional \
      --seeds 10 --threads 2 --set trace.inflation.load="$load" "${window[@]}" \
      --set scheduler.placement="$placement" --out "$out/load-$load/$placement" \
      | tee "$out/load-$load/$placement.txt"
  done
done
