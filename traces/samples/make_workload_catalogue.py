#!/usr/bin/env python3
"""Builds workload_catalogue_miso_gavel.json, a workload catalogue (docs/workload-catalogue.md).

Usage: make_workload_catalogue.py MISO_DIR GAVEL_JSON
  MISO_DIR    a folder with MISO's workloads.csv and mig_speeds_train.csv (the shared
              miso-a100-mig data's schemas)
  GAVEL_JSON  Gavel's simulation_throughputs.json
Writes workload_catalogue_miso_gavel.json next to this script. Deterministic (no draws).

MISO (A100-40GB, 32 workloads `<family>-bs<batch>`):
  iteration_s  the median 7g.40gb iteration time (MISO measured no MIG-off run: 7g.40gb is its
               whole GPU, and its speeds are relative to it)
  memory_mib   the footprint measured on the whole GPU, capped at the memory of the smallest
               profile the workload was measured on (TensorFlow grows its pool to what the GPU
               has; MISO ran several workloads on slices smaller than that footprint), as in
               make_miso_trace.py
  sm_util, mem_bw_util  the utilizations measured on the whole GPU, / 100
  mig_speeds   speed_vs_7g per profile below 7g.40gb, for the four families of the shared half
               (resnet, bert, gnn, deepspeech2); the other four families' speeds are kept back
               for independent validation and are not here
Gavel (26 job types at scale factor 1, P100 and V100 = V100M16; its K80 has no gpumux device):
  iteration_s  1 / the throughput alone (steps per second)
  colocation   per partner type: the throughput beside one job of that type on the same GPU /
               the throughput alone
"""
import ast
import csv
import json
import os
import sys

PROFILE_MIB = {"1g.5gb": 4864, "2g.10gb": 9851, "3g.20gb": 19968, "4g.20gb": 19968,
               "7g.40gb": 40192}
GAVEL_DEVICES = {"p100": "P100", "v100": "V100M16"}

here = os.path.dirname(os.path.abspath(__file__))
miso_dir, gavel_path = sys.argv[1], sys.argv[2]

workloads = {}
for w in csv.DictReader(open(os.path.join(miso_dir, "workloads.csv"))):
    name = "%s-bs%s" % (w["workload"], w["batch"])
    smallest = min(PROFILE_MIB[p] for p in w["profiles_measured"].split())
    workloads[name] = {"devices": {"A100-40GB": {
        "iteration_s": float(w["iter_s_7g"]),
        "memory_mib": min(int(w["memory_mib"]), smallest),
        "sm_util": round(float(w["sm_util_pct"]) / 100.0, 4),
        "mem_bw_util": round(float(w["mem_bw_util_pct"]) / 100.0, 4),
    }}}
for r in csv.DictReader(open(os.path.join(miso_dir, "mig_speeds_train.csv"))):
    if r["profile"] == "7g.40gb":
        continue  # the reference itself: 1 by construction
    facts = workloads["%s-bs%s" % (r["workload"], r["batch"])]["devices"]["A100-40GB"]
    facts.setdefault("mig_speeds", {})[r["profile"]] = float(r["speed_vs_7g"])

gavel = json.load(open(gavel_path))
for key, device in GAVEL_DEVICES.items():
    table = gavel[key]
    types = {}
    for k in table:
        job_type, scale = ast.literal_eval(k)
        if scale == 1:
            types[k] = job_type
    for k, job_type in types.items():
        alone = table[k]["null"]
        coloc = {}
        for partner, pair in table[k].items():
            if partner in types:
                coloc[types[partner]] = round(pair[0] / alone, 4)
        entry = workloads.setdefault(job_type, {"devices": {}})
        entry["devices"][device] = {"iteration_s": round(1.0 / alone, 6), "colocation": coloc}

catalogue = {
    "description": "Measured workload facts: MISO's A100-40GB MIG measurements (32 TensorFlow "
                   "training workloads; per-profile speeds for the shared half: resnet, bert, gnn, "
                   "deepspeech2) and Gavel's pairwise co-location throughputs (P100, V100). Built by "
                   "traces/samples/make_workload_catalogue.py.",
    "sources": [
        {"name": "MISO (Li et al., SoCC'22)", "repository": "boringlee24/socc22-miso @ 39b1ee6",
         "licence": "MIT", "copyright": "Copyright (c) 2022 Baolin Li"},
        {"name": "Gavel (Narayanan et al., OSDI'20)",
         "repository": "stanford-futuredata/gavel @ c4fa4009 : scheduler/simulation_throughputs.json",
         "licence": "MIT", "copyright": "Copyright (c) 2020 Stanford Future Data Systems"},
    ],
    "workloads": workloads,
}
out = os.path.join(here, "workload_catalogue_miso_gavel.json")
with open(out, "w") as f:
    json.dump(catalogue, f, indent=1, sort_keys=True)
    f.write("\n")
print("workload_catalogue_miso_gavel.json: %d workloads" % len(workloads))
