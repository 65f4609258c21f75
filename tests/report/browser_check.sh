#!/usr/bin/env bash
# Opens a gpumux report in headless Chromium (Debian `chromium`): the page must log nothing to
# the console, and its screenshot must show the charts' lines, the bars of the metrics across
# variants and the seed bands under the time series (png_check.py).
#
# Usage: browser_check.sh GPUMUX SOURCE_DIR WORK_DIR [SCREENSHOT_COPY.png]
# Exit 0 pass, 1 fail, 77 skipped (no chromium and not in CI: CI=true makes a missing chromium
# a failure, so CI cannot pass without the check).
set -euo pipefail
gpumux=$1 source_dir=$2 work=$3 copy=${4:-}

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "browser_check: FAIL: chromium is not installed, and CI=true requires the check" >&2
    exit 1
  fi
  echo "browser_check: SKIPPED: chromium not found (apt-get install chromium; scripts/test.sh installs it)"
  exit 77
fi
command -v python3 > /dev/null || { echo "browser_check: FAIL: python3 is needed" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
"$gpumux" compare "$source_dir/scenarios/examples/quickstart.json" \
  --models exclusive,timeslice,mps --seeds 2 --out "$work/compare" --report > /dev/null 2>&1
page="$work/compare/report.html"

# Screenshot in a private profile; console messages come on stderr as "...:CONSOLE..." lines.
shoot() {  # PAGE PNG LOG
  timeout 120 "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars \
    --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
    --window-size=1200,"${4:-2000}" --screenshot="$2" "file://$1" > /dev/null 2> "$3"
}

# The console check must be able to fail: a page that logs an error is caught.
printf '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body>x<script>console.error("deliberate")</script></body></html>\n' \
  > "$work/control.html"
shoot "$work/control.html" "$work/control.png" "$work/control.log"
if ! grep -q 'CONSOLE' "$work/control.log"; then
  echo "browser_check: FAIL: this chromium does not log console messages; cannot check" >&2
  exit 1
fi

# Tall enough for the table, the bar charts and the first rows of line charts.
shoot "$page" "$work/report.png" "$work/report.log" 6000
if grep 'CONSOLE' "$work/report.log"; then
  echo "browser_check: FAIL: the report logs to the browser console (above)" >&2
  exit 1
fi
echo "browser_check: no console messages from $page"
# The series colours of the first three variants (analysis/report/svg_chart.cc); the bars, in
# those colours at 75% on white (analysis/report/bar_chart.cc); the band of the seeds of the
# time-slicing variant, its colour at 20% on white (its seeds differ, exclusive's do not).
for element in '<polygon class="band"' 'class="error-bar"'; do
  if ! grep -q "$element" "$page"; then
    echo "browser_check: FAIL: no $element in $page" >&2
    exit 1
  fi
done
python3 "$source_dir/tests/report/png_check.py" "$work/report.png" '#0072B2' '#D55E00' '#009E73' \
  '#4095C5' '#DF8640' '#40B696' '#F7DFCC/6'
[ -n "$copy" ] && cp "$work/report.png" "$copy"

# The FGD figure: a pack study of two policies over 10 seeds, on the openb default pod list
# where the shared data is there, else on a small list written here; its page must log nothing
# and show both policies' lines.
openb="$source_dir/../shared/data/alibaba-gpu-v2023"
if [ -f "$openb/openb_pod_list_default.csv" ]; then
  nodes="$openb/openb_node_list_gpu_node.csv" pods="$openb/openb_pod_list_default.csv"
else
  nodes="$work/nodes.csv" pods="$work/pods.csv"
  printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,96000,393216,8,G2\nn1,96000,393216,8,G2\nn2,32000,131072,2,T4\n' > "$nodes"
  printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,8192,1,500\np1,6000,12288,1,250\np2,8000,16384,1,1000\np3,16000,32768,2,1000\n' > "$pods"
fi
"$gpumux" pack --nodes "$nodes" --pods "$pods" --policy FGD,BestFit --seeds 10 --threads 2 \
  --out "$work/pack" --report > /dev/null 2>&1
shoot "$work/pack/report.html" "$work/pack.png" "$work/pack.log" 1200
if grep 'CONSOLE' "$work/pack.log"; then
  echo "browser_check: FAIL: the pack report logs to the browser console (above)" >&2
  exit 1
fi
# Two charts: the second policy's lines (orange) are drawn over the first's (blue), which
# covers less: 450 pixels are more than its two legend swatches alone.
python3 "$source_dir/tests/report/png_check.py" "$work/pack.png" '#0072B2/48/450' '#D55E00'
echo "browser_check: PASS"
