#!/usr/bin/env bash
# Replays the bundled traces for real on this machine's GPU with `gpumux-probe replay`, for
# `gpumux calibrate replay check` (run that anywhere afterwards; it needs no GPU):
#
#   1. traces/mixed_20.csv under time-slicing   (~85 s: 20 jobs, 2-5 co-resident)
#   2. traces/mixed_20.csv under MPS            (~80 s)
#   3. traces/oom_mps.csv under MPS             (~12 s: 90,000 MiB held, then 60,000 MiB asked)
#   4. traces/fault_mps.csv under MPS with --fault f@3   (~10 s: who is torn down, and when)
#
# About 4 minutes in all, plus the build. Usage:
#   calibrate/replay/run_replay_on_device.sh [steps...]     (steps: 1 2 3 4; default all)
# Environment: OUT (default out/replay), PROBE (an already built gpumux-probe; the binary the
# project's own build makes on any machine with nvcc runs here: it links the CUDA runtime
# statically), DEVICE (default 0), BUDGET_S (per replay, default 200), CUDA_HOME, BUILD_DIR.
# Whatever happens, no MPS daemon started by a replay is left running.
set -uo pipefail

cd "$(dirname "$0")/../.."
OUT="${OUT:-out/replay}"
DEVICE="${DEVICE:-0}"
BUDGET_S="${BUDGET_S:-200}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
BUILD_DIR="${BUILD_DIR:-build/probe}"
TRACES=calibrate/replay/traces
mkdir -p "$OUT"

quit_leftover_mps() {
  local crumb
  for crumb in "$OUT"/*/mps_pipe_dir.txt; do
    [[ -f "$crumb" ]] || continue
    local pipe
    pipe="$(cat "$crumb")"
    if [[ -e "$pipe/control" ]]; then
      echo "run_replay_on_device: quitting the MPS daemon a replay left at $pipe"
      echo quit | CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_LOG_DIRECTORY="$(dirname "$pipe")/log" \
        timeout 20 nvidia-cuda-mps-control || true
    fi
    rm -f "$crumb"
  done
}
trap quit_leftover_mps EXIT

echo "== GPU =="
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used,compute_mode,mig.mode.current,clocks.sm,clocks.max.sm \
    --format=csv | tee "$OUT/nvidia-smi.csv" || true
else
  echo "nvidia-smi not found"
fi

if [[ -z "${PROBE:-}" || ! -x "${PROBE}" ]]; then
  echo "== build =="
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=OFF \
    -DGPUMUX_BUILD_PROBE=ON -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" >"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD_DIR" -j"$(nproc)" --target gpumux-probe >>"$OUT/build.log" 2>&1 ||
    { echo "could not build gpumux-probe:"; tail -20 "$OUT/build.log"; exit 1; }
  PROBE="$BUILD_DIR/gpumux-probe"
fi
echo "using $PROBE"

replay() {  # name, trace, mode, extra options...
  local name="$1" trace="$2" mode="$3"
  shift 3
  echo "== $name: $trace under $mode =="
  # The replay keeps to its budget; the timeout only guards against a hung driver call.
  timeout --signal=TERM --kill-after=30 "$((BUDGET_S + 60))" \
    "$PROBE" replay "$trace" --mode "$mode" --out "$OUT/$name" --device "$DEVICE" \
    --budget-s "$BUDGET_S" "$@"
  echo "$name: exit code $?"
  quit_leftover_mps
}

steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(1 2 3 4)
for s in "${steps[@]}"; do
  case "$s" in
    1) replay mixed_20-timeslice "$TRACES/mixed_20.csv" timeslice ;;
    2) replay mixed_20-mps "$TRACES/mixed_20.csv" mps ;;
    3) replay oom-mps "$TRACES/oom_mps.csv" mps ;;
    4) replay fault-mps "$TRACES/fault_mps.csv" mps --fault f@3 ;;
    *) echo "unknown step '$s' (1 2 3 4)"; exit 2 ;;
  esac
done
pgrep -a nvidia-cuda-mps && echo "(MPS processes above were not started by these replays)" ||
  echo "no MPS daemon left running"
echo "then: gpumux calibrate replay check $OUT/<name>/replay.csv --trace <trace> [--calibration CAL.json]"
