#!/usr/bin/env python3
"""Builds miso_trace_100.csv, MISO's 100-job trace in gpumux's native format.

Usage: make_miso_trace.py MISO_DIR   (a folder with MISO's trace_100.csv and workloads.csv, in
the schemas of the shared miso-a100-mig data); writes miso_trace_100.csv next to this script.

Per job (deterministic, no draws):
  id         miso-<job>
  submit_s   arrival_s
  gpus       1
  runtime_s  iterations x iter_s_7g: the work at full-GPU speed (7g.40gb is the whole A100-40GB)
  sm_util    sm_util_pct / 100, the duty cycle measured on the whole GPU
  mem_bw_util  mem_bw_util_pct / 100
  memory_mib the footprint measured on the whole GPU, capped at the memory of the smallest
             profile the workload was measured on: TensorFlow grows its pool to what the GPU
             has, and MISO ran several workloads on slices smaller than that footprint
  kind       training
  tenant     the workload family, so that runs can be split by it
  workload   <family>-bs<batch>, the workload's name in workload_catalogue_miso_gavel.json
             (make_workload_catalogue.py), which holds the same facts and, for four families,
             the measured speed per MIG profile
Profile memory (A100-40GB, MiB): 1g.5gb 4864, 2g.10gb 9851, 3g.20gb and 4g.20gb 19968,
7g.40gb 40192.
"""
import csv
import os
import sys

PROFILE_MIB = {"1g.5gb": 4864, "2g.10gb": 9851, "3g.20gb": 19968, "4g.20gb": 19968,
               "7g.40gb": 40192}

here = os.path.dirname(os.path.abspath(__file__))
src = sys.argv[1]
workloads = {}
for w in csv.DictReader(open(os.path.join(src, "workloads.csv"))):
    smallest = min(PROFILE_MIB[p] for p in w["profiles_measured"].split())
    workloads[(w["workload"], w["batch"])] = {
        "memory_mib": min(int(w["memory_mib"]), smallest),
        "sm_util": float(w["sm_util_pct"]) / 100.0,
        "mem_bw_util": float(w["mem_bw_util_pct"]) / 100.0,
        "iter_s": float(w["iter_s_7g"]),
    }
rows = []
for j in csv.DictReader(open(os.path.join(src, "trace_100.csv"))):
    w = workloads[(j["workload"], j["batch"])]
    rows.append({
        "id": "miso-" + j["job"],
        "submit_s": round(float(j["arrival_s"]), 3),
        "gpus": 1,
        "runtime_s": round(int(j["iterations"]) * w["iter_s"], 3),
        "sm_util": round(w["sm_util"], 4),
        "mem_bw_util": round(w["mem_bw_util"], 4),
        "memory_mib": w["memory_mib"],
        "kind": "training",
        "tenant": j["workload"],
        "workload": "%s-bs%s" % (j["workload"], j["batch"]),
    })
rows.sort(key=lambda r: (r["submit_s"], r["id"]))
with open(os.path.join(here, "miso_trace_100.csv"), "w", newline="") as f:
    out = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    out.writeheader()
    out.writerows(rows)
print(f"miso_trace_100.csv: {len(rows)} jobs")
