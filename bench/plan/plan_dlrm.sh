#!/usr/bin/env bash
# Times the bundled DLRM planning example (scenarios/examples/plan_dlrm.json) the way
# docs/planning.md reports it: exclusive, timeslice, mps and mig under queue_p95_s<=60, with the
# default placement and MIG layout search, SEEDS seeds and the sensitivity to the two defaulted
# fields, on THREADS threads. Prints the plan's runs (the search's and the sensitivity's) and the
# wall and user CPU seconds of the whole command (GNU time).
# Usage: bench/plan/plan_dlrm.sh [BUILD_DIR]   environment: SEEDS (default 3), THREADS (default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
seeds=${SEEDS:-3}
threads=${THREADS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/time -f "%e %U" -o "$work/time.txt" "$build/gpumux" plan \
  "$root/scenarios/examples/plan_dlrm.json" --models exclusive,timeslice,mps,mig \
  --objective 'queue_p95_s<=60' --max-nodes 512 --seeds "$seeds" --threads "$threads" \
  --format json > "$work/plan.json" 2> /dev/null || true
read -r wall user < "$work/time.txt"
python3 - "$work/plan.json" "$wall" "$user" "$seeds" "$threads" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
runs, extra = plan["runs"], plan["sensitivity"]["runs"]
answers = ", ".join("%s %s" % (m["model"], m["nodes"] if m["met"] else "not met")
                    for m in plan["models"])
print("plan_dlrm seeds=%s threads=%s: %d runs (%d search + %d sensitivity), wall %s s, user %s s; nodes: %s"
      % (sys.argv[4], sys.argv[5], runs + extra, runs, extra, sys.argv[2], sys.argv[3], answers))
PY
