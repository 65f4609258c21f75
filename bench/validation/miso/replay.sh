#!/usr/bin/env bash
# MISO's experiment with MISO's inputs (docs/validation.md, RESULTS.md here): replays
# scenarios/examples/miso_trace_100.json (100 jobs on 8 A100-40GB) under no partitioning, every
# static partition MISO's testbed could set (with and without promotion), the MISO-like dynamic
# policy (with and without migration, sizing, re-splits in place and MISO's rule) and MPS, and
# prints mean JCT against no partitioning and against the best static partition.
# MISO's partitions are the scenario's `layouts`: the 18 of MISO's partition_code.json (13 distinct
# sets of instances), among which its testbed (driver 470.82.01) chose. 4g.20gb + 3g.20gb is not
# among them (a 4g and a 3g coexist only from driver R510 on): its rows are marked "driver R510+"
# and are not candidates for the best static partition.
# Usage: bench/validation/miso/replay.sh [GPUMUX (default build/gpumux) [RUN_ARGS...]]
#   RUN_ARGS are passed to every run, e.g. --set trace.file=OTHER.csv (another arrival seed of
#   traces/samples/make_miso_trace.py) or --set trace.catalogue=OTHER.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
gpumux=${1:-$root/build/gpumux}
shift $(( $# > 0 ? 1 : 0 ))
extra=("$@")
scenario=$root/scenarios/examples/miso_trace_100.json
candidates=$(python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['sharing']['params']['layouts']))" "$scenario")
runs=()
add() { runs+=("$1|$2"); }
add "none (exclusive)" '{"model": "exclusive"}'
# Every static partition of MISO's but the whole GPU (that is "none").
while read -r layout; do
  add "static $layout" "{\"model\": \"mig\", \"params\": {\"layout\": $layout}}"
  add "static $layout + promotion" "{\"model\": \"mig\", \"params\": {\"layout\": $layout, \"regrow\": {}}}"
done < <(python3 -c "import json,sys; [print(json.dumps(l)) for l in json.loads(sys.argv[1]) if l != ['7g.40gb']]" "$candidates")
r510='["4g.20gb", "3g.20gb"]'
add "driver R510+: static $r510" "{\"model\": \"mig\", \"params\": {\"layout\": $r510}}"
add "driver R510+: static $r510 + promotion" "{\"model\": \"mig\", \"params\": {\"layout\": $r510, \"regrow\": {}}}"
add "dynamic, drain" "{\"model\": \"mig\", \"params\": {\"layouts\": $candidates}}"
add "dynamic, migration" "{\"model\": \"mig\", \"params\": {\"layouts\": $candidates, \"repartition\": {\"migration\": {}}}}"
add "dynamic, migration + sizing" "{\"model\": \"mig\", \"params\": {\"layouts\": $candidates, \"repartition\": {\"migration\": {}}, \"sizing\": {}}}"
add "dynamic, migration + regrow" "{\"model\": \"mig\", \"params\": {\"layouts\": $candidates, \"repartition\": {\"migration\": {}}, \"regrow\": {}}}"
add "dynamic, migration + regrow, no hysteresis, 10 s re-split" "{\"model\": \"mig\", \"params\": {\"layouts\": $candidates, \"repartition\": {\"hysteresis_s\": 0, \"migration\": {}}, \"regrow\": {}}}"
add "dynamic, migration + regrow, no hysteresis, 30 s per move" "{\"model\": \"mig\", \"params\": {\"layouts\": $candidates, \"repartition\": {\"reconfiguration_s\": 0, \"hysteresis_s\": 0, \"migration\": {}}, \"regrow\": {}}}"
# The scenario's own policy: the same with MISO's rule for every re-split (regrow.objective
# mean_slowdown); then it with free moves, and with 4g.20gb + 3g.20gb as a candidate too.
scenario_sharing=$(python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['sharing']))" "$scenario")
variant() {  # the scenario's sharing with one change, as JSON
  python3 -c "
import json, sys
s = json.loads(sys.argv[1])
p = s['params']
if sys.argv[2] == 'free':
    p['repartition']['migration'] = {'checkpoint_s': 0, 'restart_s': 0}
    p['regrow'].update({'checkpoint_s': 0, 'restart_s': 0})
else:
    p['layouts'] = p['layouts'] + [json.loads(sys.argv[3])]
print(json.dumps(s))" "$@"
}
add "dynamic, MISO's rule (the scenario: no hysteresis, 30 s per move)" "$scenario_sharing"
add "dynamic, MISO's rule, free moves (bound)" "$(variant "$scenario_sharing" free)"
add "driver R510+: the scenario's policy, 4g.20gb + 3g.20gb a candidate too" "$(variant "$scenario_sharing" candidate "$r510")"
add "mps" '{"model": "mps"}'
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for r in "${runs[@]}"; do
  label=${r%%|*}
  sharing=${r#*|}
  "$gpumux" run "$scenario" --no-outputs --format json --set "sharing=$sharing" "${extra[@]}" 2>/dev/null |
    python3 -c "
import json, sys
m = json.load(sys.stdin)['metrics']
print(json.dumps({'label': sys.argv[1], 'jct': m['jct_s']['mean'], 'queue': m['queueing_delay_s']['mean'],
                  'finished': m['jobs']['finished'], 'rejected': m['jobs']['rejected'],
                  'slowdown': m['sharing_slowdown']['mean'],
                  'reconfigurations': m.get('reconfigurations', {}).get('count', 0)}))" "$label" >> "$results"
done
python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
none = rows[0]["jct"]
static = [r for r in rows if r["label"].startswith("static") and r["rejected"] == 0]
r510 = [r for r in rows if r["label"].startswith("driver R510+: static") and r["rejected"] == 0]
# MISO's static baseline moves a job into a larger instance its GPU frees, so the promoted
# layouts count: the best static layout is the best of either kind.
best = min(static, key=lambda r: r["jct"])
plain = min((r for r in static if not r["label"].endswith("promotion")), key=lambda r: r["jct"])
print("| policy | mean JCT (s) | vs none | vs best static | mean queueing (s) | sharing slowdown | reconfigurations | finished / rejected |")
print("|---|--:|--:|--:|--:|--:|--:|--:|")
for r in rows:
    vs_none = "%+.1f%%" % (100 * (r["jct"] / none - 1)) if r is not rows[0] else ""
    vs_best = "%+.1f%%" % (100 * (r["jct"] / best["jct"] - 1)) if r["rejected"] == 0 else "(rejects jobs)"
    print("| %s | %.0f | %s | %s | %.0f | %.2f | %d | %d / %d |" % (
        r["label"], r["jct"], vs_none, vs_best, r["queue"], r["slowdown"], r["reconfigurations"],
        r["finished"], r["rejected"]))
print("\nbest static layout (no job rejected): " + best["label"])
print("best static layout without promotion: %s (%.0f s)" % (plain["label"], plain["jct"]))
if r510:
    b = min(r510, key=lambda r: r["jct"])
    print("best static layout on driver R510+ (not MISO's testbed): %s (%.0f s)" % (b["label"], b["jct"]))
    for r in rows:
        if r["label"].startswith("driver R510+: the scenario"):
            print("  the scenario's policy on driver R510+ against it: %+.1f%%" % (100 * (r["jct"] / b["jct"] - 1)))
PY
