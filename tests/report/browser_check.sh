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
echo "browser_check: PASS"
