#!/usr/bin/env bash
# The study of README "Fractional GPUs over time": four placement policies under `fractional`
# on the openb cluster, 10 seeds each, with `gpumux compare` (one invocation per policy; its
# table gives mean +- the 95% interval over the seeds). Run from the repository root after a
# Release build; needs ../shared/data beside the source tree. Usage: run_openb_fractional.sh
# [OUT_DIR] (default out/study-openb-fractional).
set -euo pipefail
out=${1:-out/study-openb-fractional}
for placement in fgd best-fit spread gpu-packing; do
  ./build/gpumux compare scenarios/studies/openb_fractional.json --models fractional --seeds 10 \
    --threads 2 --set scheduler.placement="$placement" --out "$out/$placement"
done
