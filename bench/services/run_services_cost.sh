#!/usr/bin/env bash
# What requests cost: the same run with request-level services, with analytic services, and
# with the inference jobs as plain jobs (no services section; under `exclusive` every job runs
# at rate 1, so the schedule is the same and only the request work differs). Prints wall time
# and peak memory per run (GNU time) and the requests simulated.
# Usage: run_services_cost.sh [BUILD_DIR] [extra --set arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
scenario=$root/bench/services/services_cost.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
  local label=$1
  shift
  /usr/bin/time -f "$label: %e s wall, %M KB peak RSS" "$build/gpumux" run "$scenario" \
    --out "$out/$label" --quiet "$@" 2>&1 >/dev/null | grep -E "wall|error" || true
  if [ -f "$out/$label/summary.json" ]; then
    python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['metrics']; \
r=m.get('requests'); print('  requests:', r['count'] if r else 0, \
' jobs finished:', m['jobs']['finished'])" "$out/$label/summary.json"
  fi
}
run no-services --set 'services={}' "$@"
run request "$@"
run analytic --set services.mode=analytic "$@"
