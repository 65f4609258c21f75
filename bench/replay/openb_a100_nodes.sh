#!/usr/bin/env bash
# Prints a nodes CSV (name,gpus,device) with the shape of the Alibaba openb GPU cluster (its 1,213
# GPU nodes and 6,212 GPUs) but every GPU an A100-80GB: the openb devices have no MIG, so the
# `mig` scale runs use this stand-in. Reads ../shared/data beside the source tree.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
list=$root/../shared/data/alibaba-gpu-v2023/openb_node_list_gpu_node.csv
[ -f "$list" ] || { echo "openb node list not found: $list" >&2; exit 2; }
echo "name,gpus,device"
awk -F, 'NR > 1 && $4 > 0 { print $1 "," $4 ",A100-80GB" }' "$list"
