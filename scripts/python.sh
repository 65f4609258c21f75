#!/usr/bin/env bash
# The Python package gpumux (docs/python.md): installs what is missing (pybind11-dev, and
# python3-pandas for DataFrames), builds the module in build-python/ (Release, the libraries as
# position-independent code) and says how to import it. Nothing is installed into the system
# Python, which Debian manages, and nothing is downloaded but Debian's packages.
#
#   scripts/python.sh              # build; then: export PYTHONPATH=<repo>/build-python/python
#   scripts/python.sh --venv DIR   # also a venv at DIR (--system-site-packages, so Debian's
#                                  # pandas and matplotlib stay visible) that imports gpumux
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
venv=""
while [ $# -gt 0 ]; do
  case "$1" in
    --venv) venv="${2:?--venv needs a folder}"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "scripts/python.sh: unknown option '$1' (valid: --venv DIR)" >&2; exit 2 ;;
  esac
done
packages=(pybind11-dev python3-dev python3-pandas)
[ -n "$venv" ] && packages+=(python3-venv)
gpumux_install_missing "${packages[@]}"
python=/usr/bin/python3
build="$root/build-python"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUMUX_BUILD_TESTS=OFF \
  -DGPUMUX_WITH_PYTHON=ON "-DGPUMUX_PYTHON=$python" > /dev/null
cmake --build "$build" -j"$(nproc)" --target _gpumux
PYTHONPATH="$build/python" "$python" -c "import gpumux; print('[python.sh] gpumux', gpumux.__version__, 'imports; pandas:', gpumux.has_pandas())"
if [ -n "$venv" ]; then
  "$python" -m venv --system-site-packages "$venv"
  site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  echo "$build/python" > "$site/gpumux.pth"
  echo "[python.sh] venv ready: $venv/bin/python -c 'import gpumux'"
else
  echo "[python.sh] to import it: export PYTHONPATH=$build/python (with $python)"
fi
