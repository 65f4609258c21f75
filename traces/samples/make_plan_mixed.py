#!/usr/bin/env python3
"""Builds the bundled DLRM 2025 service sample and the plan_mixed trace.

Usage: make_plan_mixed.py DLRM_CSV   (the Alibaba cluster-trace-gpu-v2025
disaggregated_DLRM_trace.csv); writes dlrm2025_services_23.csv and plan_mixed.csv next to
this script. Selection (deterministic): GPU instances with creation, scheduled and deletion
times and a lifetime (deletion - scheduled) of 10 min to 3 h; the one-hour window of creation
times holding the most distinct applications (ties: the most instances, then the earliest);
every such instance created in it. submit_s = creation_time - the window's start,
runtime_s = lifetime, tenant = app_name, as the dlrm2025 loader maps them.
"""
import csv
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
rows = list(csv.DictReader(open(sys.argv[1])))
gpu = [r for r in rows if float(r["gpu_request"] or 0) > 0 and r["creation_time"]
       and r["scheduled_time"] and r["deletion_time"]]
gpu = [r for r in gpu
       if 600 <= float(r["deletion_time"]) - float(r["scheduled_time"]) <= 3 * 3600]
gpu.sort(key=lambda r: (float(r["creation_time"]), r["instance_sn"]))
best = None
for i, r in enumerate(gpu):
    t0 = float(r["creation_time"])
    w = [x for x in gpu[i:] if float(x["creation_time"]) < t0 + 3600]
    key = (len({x["app_name"] for x in w}), len(w))
    if best is None or key > best[0]:
        best = (key, t0, w)
_, t0, window = best

services = []
for r in window:
    services.append({
        "id": r["instance_sn"],
        "submit_s": int(float(r["creation_time"]) - t0),
        "gpus": int(float(r["gpu_request"])),
        "runtime_s": int(float(r["deletion_time"]) - float(r["scheduled_time"])),
        "kind": "inference",
        "tenant": r["app_name"],
    })
with open(os.path.join(here, "dlrm2025_services_23.csv"), "w", newline="") as f:
    f.write("# Alibaba clusterdata cluster-trace-gpu-v2025 (CC BY 4.0), "
            f"disaggregated_DLRM_trace.csv: {len(services)} GPU instances created in "
            f"[{t0:.0f}, {t0 + 3600:.0f}) s; see traces/samples/README.md\n")
    w = csv.DictWriter(f, fieldnames=list(services[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(services)

# plan_mixed: the Tiresias 60-job training trace plus these services. Service rows carry the
# memory and duty cycle assumed in the README (the DLRM trace gives neither); training rows
# leave them to the scenario's trace.defaults.
jobs = []
for r in csv.DictReader(open(os.path.join(here, "tiresias_60_job.csv"))):
    jobs.append({"id": "train-" + r["job_id"], "submit_s": int(float(r["submit_time"])),
                 "gpus": int(r["num_gpu"]), "runtime_s": int(float(r["duration"])),
                 "kind": "training", "tenant": "tiresias", "memory_mib": "", "sm_util": ""})
for s in services:
    jobs.append(dict(s, memory_mib=20480, sm_util=0.2))
jobs.sort(key=lambda j: (j["submit_s"], j["id"]))
with open(os.path.join(here, "plan_mixed.csv"), "w", newline="") as f:
    f.write("# Tiresias 60-job trace (training) + Alibaba DLRM 2025 services (CC BY 4.0); "
            "see traces/samples/README.md\n")
    w = csv.DictWriter(f, fieldnames=list(jobs[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(jobs)
