#!/usr/bin/env python3
"""Builds miso_trace_100.csv, MISO's 100-job trace in gpumux's native format.

Usage: make_miso_trace.py MISO_DIR [--seed N] [-o FILE]
  MISO_DIR  a folder with MISO's trace_100.csv and workloads.csv, in the schemas of the shared
            miso-a100-mig data
  --seed N  MISO's experiment seed (its run.py --seed, default 1)
  -o FILE   where to write (default: miso_trace_100.csv next to this script)
Needs NumPy (Debian: python3-numpy) to draw the arrivals exactly as MISO's code does.

Arrivals. The shared trace's `arrival_s` column is MISO's `trace_100.json`, which MISO's
experiment code reads as each job's **runtime** (exp_full.py: `self.job_runtime[i] =
int(job_dict[str(i)])`), not its arrival: the values run 120 s -> 6,082 s in job order and agree
with iterations x the median 7g.40gb iteration time (the work, below) within a few percent; this
script checks that and stops if they do not. MISO's testbed draws arrivals instead
(exp_full.py `Experiment.__init__`, run.py defaults --arrival 60, --seed 1, no --flat_arrival):
  random.seed(seed); numpy.random.seed(seed + 1)
  order = random.sample(jobs 0..99, 100)
  t = 0; for each job in order: t += numpy.random.poisson(30 if fewer than 34 jobs have
  arrived else 60); that job arrives at t
i.e. the first third arrive twice as often. This script replays those draws with the same
generators, so the arrivals are MISO's own for its seed.

Per job:
  id         miso-<job>
  submit_s   MISO's drawn arrival (above)
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
import argparse
import csv
import os
import random

import numpy

PROFILE_MIB = {"1g.5gb": 4864, "2g.10gb": 9851, "3g.20gb": 19968, "4g.20gb": 19968,
               "7g.40gb": 40192}

here = os.path.dirname(os.path.abspath(__file__))
cli = argparse.ArgumentParser(description="Builds MISO's 100-job trace in gpumux's native format.")
cli.add_argument("miso_dir")
cli.add_argument("--seed", type=int, default=1)
cli.add_argument("-o", "--output", default=os.path.join(here, "miso_trace_100.csv"))
args = cli.parse_args()
src = args.miso_dir
workloads = {}
for w in csv.DictReader(open(os.path.join(src, "workloads.csv"))):
    smallest = min(PROFILE_MIB[p] for p in w["profiles_measured"].split())
    workloads[(w["workload"], w["batch"])] = {
        "memory_mib": min(int(w["memory_mib"]), smallest),
        "sm_util": float(w["sm_util_pct"]) / 100.0,
        "mem_bw_util": float(w["mem_bw_util_pct"]) / 100.0,
        "iter_s": float(w["iter_s_7g"]),
    }
jobs = list(csv.DictReader(open(os.path.join(src, "trace_100.csv"))))

# The column MISO reads as the runtime must agree with the work computed from the iterations.
for j in jobs:
    work = int(j["iterations"]) * workloads[(j["workload"], j["batch"])]["iter_s"]
    if abs(work / float(j["arrival_s"]) - 1) > 0.15:
        raise SystemExit(f"job {j['job']}: trace_100 value {j['arrival_s']} s is not the work "
                         f"{work:.1f} s: is this MISO's trace_100.json?")

# MISO's arrival draws (exp_full.py), in its generators and order.
random.seed(args.seed)
numpy.random.seed(args.seed + 1)
order = random.sample([int(j["job"]) for j in jobs], len(jobs))
arrival, clock = {}, 0
for job in order:
    clock += int(numpy.random.poisson(60 / 2 if len(arrival) <= len(jobs) // 3 else 60))
    arrival[job] = clock

rows = []
for j in jobs:
    w = workloads[(j["workload"], j["batch"])]
    rows.append({
        "id": "miso-" + j["job"],
        "submit_s": arrival[int(j["job"])],
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
with open(args.output, "w", newline="") as f:
    out = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    out.writeheader()
    out.writerows(rows)
print(f"{args.output}: {len(rows)} jobs, seed {args.seed}, last arrival {clock} s")
