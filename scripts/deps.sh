#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages gpumux needs, only those missing. Sourced by the other
# scripts; safe to run on its own.
set -euo pipefail

GPUMUX_PACKAGES=(
  cmake g++ make
  libboost-graph-dev nlohmann-json3-dev libeigen3-dev libcli11-dev
  libgtest-dev libgmock-dev libyaml-cpp-dev zlib1g-dev
  libbenchmark-dev
)

gpumux_install_missing() {
  local missing=()
  for p in "${GPUMUX_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "[deps] all packages present"
    return 0
  fi
  echo "[deps] installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  gpumux_install_missing "$@"
fi
