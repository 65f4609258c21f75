#!/usr/bin/env bash
# Checks that two gpumux builds write byte-identical outputs (summary.json, jobs.csv,
# timeseries.csv, and the run's printed summary on stdout, its output folder's path set aside)
# on the example and regression scenarios, on cuts of the 1M replay under each sharing model,
# placement and queue policy, and on the pooled PAI 2020 configuration under each queue policy:
# a speed change must not change a result.
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
echo "$same identical, $differ different"
[ "$differ" -eq 0 ]
