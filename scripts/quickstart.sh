#!/usr/bin/env bash
# One command for a fresh machine: install what is missing, build in Release, run the
# quickstart scenario (the Tiresias 60-job sample on 16 V100 GPUs) and print its summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
gpumux_install_missing
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=OFF > /dev/null
cmake --build "$root/build" -j"$(nproc)" --target gpumux
cd "$root"
./build/gpumux run scenarios/examples/quickstart.json "$@"
