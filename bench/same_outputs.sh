#!/usr/bin/env bash
# Checks that two gpumux builds write byte-identical outputs (summary.json, jobs.csv,
# timeseries.csv, and the run's printed summary on stdout, its output folder's path set aside)
# on the example and regression scenarios, on cuts of the 1M replay under each sharing model,
# placement and queue policy, and on the pooled PAI 2020 configuration under each queue policy;
# one plan folder with its deploy configs; and the same calibration fits and checks on the
# measured data in ../shared/data: a speed change must not change a result.
# One key is not compared: summary.json's provenance.build (the binary's version and `git
# describe`), which two builds always write differently. It is removed from both summaries before
# comparing (with python3, by text, so every other byte is compared as written); a summary
# written before the key existed compares equal to one with it.
# Usage: bench/same_outputs.sh BASELINE_GPUMUX CANDIDATE_GPUMUX [REPLAY_JOBS (default 3000)]
set -euo pipefail
command -v python3 > /dev/null || { echo "same_outputs.sh needs python3 (to set provenance.build aside)" >&2; exit 2; }
# Removes the `"build": {...}` object (it holds no nested object) and its line from each file.
strip_build() {
  python3 - "$@" << 'PY'
import re, sys
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        text = f.read()
    text = re.sub(rb'\n[ ]*"build": \{[^{}]*\},?', b'', text)
    with open(path, 'wb') as f:
        f.write(text)
PY
}
root=$(cd "$(dirname "$0")/.." && pwd)
base=$1
cand=$2
jobs=${3:-3000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/bench/replay/openb_a100_nodes.sh" > "$work/openb_a100.csv"
replay=$root/bench/replay/replay_1m.json
cases=()
for f in "$root"/scenarios/examples/*.json "$root"/scenarios/regression/*.json; do
  cases+=("$(basename "$f" .json)|$f|")
done
add() { cases+=("$1|$replay|--set trace.generator.jobs=$jobs $2"); }
for model in exclusive timeslice mps; do
  for placement in best-fit first-fit spread; do
    add "replay-$model-$placement" "--set sharing.model=$model --set scheduler.placement=$placement"
  done
  for queue in greedy fifo-backfill; do
    add "replay-$model-$queue" "--set sharing.model=$model --set scheduler.queue=$queue"
  done
done
add replay-timeslice-replicas "--set sharing.model=timeslice --set sharing.params.admission=replicas"
add replay-mps-replicas "--set sharing.model=mps --set sharing.params.admission=replicas"
add replay-mps-average "--set sharing.model=mps --set sharing.params.admission=average"
add replay-mig "--set cluster.nodes_csv=$work/openb_a100.csv --set trace.generator.gpus=1 \
  --set sharing.model=mig --set sharing.params.layout=[\"3g.40gb\",\"2g.20gb\",\"1g.10gb\",\"1g.10gb\"]"
# The pooled PAI 2020 configuration on a generated pai-sim trace under each queue policy, its
# pool cut to 200 GPUs so that jobs queue.
"$root/bench/pai/pai_sim_trace.sh" "$jobs" > "$work/pai.csv"
pai=$root/scenarios/peers/pai2020_sim.json
pai_args="--set trace.file=$work/pai.csv --set cluster.pool.gpus=200"
for queue in greedy fifo fifo-backfill; do
  cases+=("pai-$queue|$pai|$pai_args --set scheduler.queue=$queue --set scheduler.backfill_depth=1000000")
done
cases+=("pai-greedy-shortest|$pai|$pai_args --set scheduler.order=shortest")
same=0
differ=0
for c in "${cases[@]}"; do
  IFS='|' read -r name scenario args <<< "$c"
  for side in base cand; do
    bin=$base
    [ "$side" = cand ] && bin=$cand
    # shellcheck disable=SC2086  # args holds several --set options
    "$bin" run "$scenario" --out "$work/$side/$name" $args > "$work/$side-$name.out" 2> "$work/$side-$name.err" ||
      echo "exit $? ($(head -c 200 "$work/$side-$name.err"))" > "$work/$side-$name.status"
    # The printed summary names the output folder, which differs by side.
    sed -i "s|$work/$side/$name|OUT|g" "$work/$side-$name.out"
  done
  for side in base cand; do
    if [ -f "$work/$side/$name/summary.json" ]; then strip_build "$work/$side/$name/summary.json"; fi
  done
  b=$work/base-$name.status
  c=$work/cand-$name.status
  if cmp -s "$work/base-$name.out" "$work/cand-$name.out" &&
     { { [ ! -e "$b" ] && [ ! -e "$c" ] && diff -r "$work/base/$name" "$work/cand/$name" > /dev/null; } ||
       { [ -e "$b" ] && [ -e "$c" ] && cmp -s "$b" "$c"; }; }; then
    same=$((same + 1))
    echo "same    $name ($(ls "$work/base/$name" 2>/dev/null | tr '\n' ' '))"
  else
    differ=$((differ + 1))
    # Which files differ, so that an intended change (say, to summary.json only) is told apart.
    files=$( { diff -rq "$work/base/$name" "$work/cand/$name" 2>&1 || true; } | sed -n 's|^Files .*/\([^/]*\) and .* differ$|\1|p' | tr '\n' ' ')
    cmp -s "$work/base-$name.out" "$work/cand-$name.out" || files="${files}stdout "
    # For summary.json (one key per line), which keys: an intended change to a count shows as such.
    keys=""
    if [ -f "$work/base/$name/summary.json" ] && [ -f "$work/cand/$name/summary.json" ]; then
      keys=$( { diff "$work/base/$name/summary.json" "$work/cand/$name/summary.json" || true; } |
        sed -n 's/^< *"\([^"]*\)":.*/\1/p' | sort -u | tr '\n' ' ')
    fi
    echo "DIFFER  $name (${files:-exit status or folder contents})${keys:+ summary keys: $keys}"
  fi
done
# One plan folder (plan.json, plan.txt, deploy/: the device plugin and mig-parted files of every
# model that met the objectives) with MIG, hybrid and shared answers; its exit status is compared
# too (3 when some model meets the objectives at no size).
plan_scenario=$root/scenarios/examples/mig_half_node.json
for side in base cand; do
  bin=$base
  [ "$side" = cand ] && bin=$cand
  status=0
  "$bin" plan "$plan_scenario" --models exclusive,timeslice,mps,mig,mig+timeslice,mig+mps \
    --objective 'queueing_delay_s.p95<=600' --out "$work/$side/plan" > "$work/$side-plan.stdout" \
    2> /dev/null || status=$?
  echo "exit $status" >> "$work/$side-plan.stdout"
  if [ -f "$work/$side/plan/plan.json" ]; then strip_build "$work/$side/plan/plan.json"; fi
done
if diff -r "$work/base/plan" "$work/cand/plan" > /dev/null &&
   cmp -s "$work/base-plan.stdout" "$work/cand-plan.stdout"; then
  same=$((same + 1))
  echo "same    plan-mig-half-node ($(cd "$work/base/plan" && find . -type f | sort | tr '\n' ' '))"
else
  differ=$((differ + 1))
  echo "DIFFER  plan-mig-half-node ($( { diff -rq "$work/base/plan" "$work/cand/plan" 2>&1 || true; } | head -3 | tr '\n' ' '))"
fi
# The calibration commands on the measured data beside the tree (../shared/data, when it is
# there), in their older forms, which every build knows (a newer build runs the same code under
# `gpumux calibrate SOURCE fit|check`). Compared: stdout, the file a fit writes, the exit status,
# and stderr less the line where a newer build names the new form. A fit writes to the same path
# on both sides (the file and the report name it), then moves beside its side's report; the
# checks read the baseline's fits, at fixed paths.
data=$(cd "$root/.." && pwd)/shared/data
keep=$work/keep
mkdir -p "$keep"
calib=()
if [ -f "$data/h200/overlap_train.csv" ] && [ -d "$data/miso-a100-mig" ] && [ -d "$data/colocation" ]; then
  overlap=$data/h200/overlap_train.csv
  mig="$data/miso-a100-mig/mig_speeds_train.csv --workloads $data/miso-a100-mig/workloads.csv"
  lucid="--single $data/colocation/lucid_single_data.csv --pairs $data/colocation/lucid_pairs_train.csv"
  gavel=$data/colocation/gavel_simulation_throughputs.json
  calib+=("calibrate-fit|calibrate fit $overlap -o @OUT@"
          "calibrate-fit-mps|calibrate fit $overlap -o @OUT@ --mode mps"
          "calibrate-check|calibrate check $overlap"
          "calibrate-check-fitted|calibrate check $overlap --calibration $keep/calibrate-fit.json"
          "calibrate-check-csv|calibrate check $overlap --calibration $keep/calibrate-fit.json --mode timeslice --format csv"
          "calibrate-fit-mig|calibrate fit --mode mig $mig -o @OUT@"
          "calibrate-check-mig|calibrate check --mode mig $mig"
          "calibrate-check-mig-fitted|calibrate check --mode mig $mig --calibration $keep/calibrate-fit-mig.json --format csv"
          "colocation-fit|colocation fit $lucid -o @OUT@"
          "colocation-fit-mps|colocation fit $lucid -o @OUT@ --model mps --folds 3"
          "colocation-fit-gavel-factors|colocation fit $lucid -o @OUT@ --gavel $gavel --config-factors --cv-groups configs"
          "colocation-predict|colocation predict $lucid"
          "colocation-predict-fitted|colocation predict $lucid --params $keep/colocation-fit.json --format json"
          "colocation-predict-factors|colocation predict $lucid --params $keep/colocation-fit-gavel-factors.json"
          "colocation-predict-proportional|colocation predict $lucid --model proportional")
else
  echo "note: $data not found: the calibration commands are not compared"
fi
for c in "${calib[@]}"; do
  IFS='|' read -r name args <<< "$c"
  written=$work/calibration.json
  for side in base cand; do
    bin=$base
    [ "$side" = cand ] && bin=$cand
    dir=$work/$side/$name
    mkdir -p "$dir"
    status=0
    # shellcheck disable=SC2086  # args holds the command and its options
    "$bin" ${args//@OUT@/$written} > "$dir/stdout" 2> "$dir/stderr.all" || status=$?
    echo "$status" > "$dir/status"
    grep -v '^note: `gpumux .*` is the older form of `gpumux .*`, which runs the same$' \
      "$dir/stderr.all" > "$dir/stderr" || true
    rm "$dir/stderr.all"
    if [ -f "$written" ]; then mv "$written" "$dir/written.json"; fi
  done
  if [ -f "$work/base/$name/written.json" ]; then cp "$work/base/$name/written.json" "$keep/$name.json"; fi
  if diff -r "$work/base/$name" "$work/cand/$name" > /dev/null; then
    same=$((same + 1))
    echo "same    $name ($(ls "$work/base/$name" | tr '\n' ' '))"
  else
    differ=$((differ + 1))
    files=$( { diff -rq "$work/base/$name" "$work/cand/$name" 2>&1 || true; } | sed -n 's|^Files .*/\([^/]*\) and .* differ$|\1|p' | tr '\n' ' ')
    echo "DIFFER  $name (${files:-folder contents})"
  fi
done
echo "$same identical, $differ different"
[ "$differ" -eq 0 ]
