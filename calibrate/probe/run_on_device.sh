#!/usr/bin/env bash
# Builds gpumux-probe and runs it once on this machine's GPU.
#
#   calibrate/probe/run_on_device.sh [extra gpumux-probe options...]
#
# Environment: OUT (output folder, default out/calibration), BUDGET_S (default 300),
# DEVICE (CUDA device index, default 0), PROBE (an already built gpumux-probe to use),
# CUDA_HOME (toolkit, default /usr/local/cuda), BUILD_DIR (default build/probe).
#
# Order of build attempts: $PROBE if given (the binary the project's own build makes on any
# machine with nvcc runs here: it links the CUDA runtime statically); else CMake (the project's
# own build with GPUMUX_BUILD_PROBE=ON, which needs the project's dependencies). Prints an
# nvidia-smi summary first. Whatever happens,
# no MPS daemon started by the probe is left running: the probe quits its own, and if it
# died, this script sends `quit` to the daemon it recorded.
set -uo pipefail

cd "$(dirname "$0")/../.."
OUT="${OUT:-out/calibration}"
BUDGET_S="${BUDGET_S:-300}"
DEVICE="${DEVICE:-0}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
BUILD_DIR="${BUILD_DIR:-build/probe}"
mkdir -p "$OUT"

quit_leftover_mps() {
  local crumb="$OUT/mps_pipe_dir.txt"
  if [[ -f "$crumb" ]]; then
    local pipe
    pipe="$(cat "$crumb")"
    echo "run_on_device: quitting the MPS daemon the probe left at $pipe"
    echo quit | CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_LOG_DIRECTORY="$(dirname "$pipe")/log" \
      timeout 20 nvidia-cuda-mps-control || true
    rm -f "$crumb"
  fi
}
trap quit_leftover_mps EXIT

echo "== GPU =="
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used,compute_mode,mig.mode.current,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv || true
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv || true
else
  echo "nvidia-smi not found"
fi
pgrep -a nvidia-cuda-mps || echo "no MPS daemon running before the probe"

build_with_cmake() {
  command -v cmake >/dev/null || return 1
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=OFF \
    -DGPUMUX_BUILD_PROBE=ON -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" >"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD_DIR" -j"$(nproc)" --target gpumux-probe >>"$OUT/build.log" 2>&1 &&
    PROBE="$BUILD_DIR/gpumux-probe"
}

echo "== build =="
if [[ -n "${PROBE:-}" && -x "${PROBE}" ]]; then
  echo "using $PROBE"
elif build_with_cmake; then
  echo "built with CMake: $PROBE"
else
  echo "could not build gpumux-probe (build it where the dependencies are and pass PROBE=);"
  echo "last lines of $OUT/build.log:"
  tail -20 "$OUT/build.log"
  exit 1
fi

echo "== probe (budget ${BUDGET_S} s) =="
# The probe keeps to its budget; the timeout only guards against a hung driver call. TERM
# lets it kill its children, quit its MPS daemon and write what it has.
timeout --signal=TERM --kill-after=30 "$((BUDGET_S + 120))" \
  "$PROBE" --out "$OUT" --budget-s "$BUDGET_S" --device "$DEVICE" "$@"
rc=$?
echo "gpumux-probe exit code $rc"
quit_leftover_mps
pgrep -a nvidia-cuda-mps && echo "(MPS processes above were not started by this probe run, or are still exiting)" ||
  echo "no MPS daemon left running"
exit "$rc"
