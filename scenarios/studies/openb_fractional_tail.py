#!/usr/bin/env python3
"""The saturated loads of the study of README "Fractional GPUs over time", read from the run
folders scenarios/studies/run_openb_fractional.sh leaves (OUT_DIR/load-L/POLICY/fractional/
seed-S/). Per load and policy, over the seeds: the mean +- the half-width of its 95% interval
(Student t), and the paired difference from fgd on the same seed (same arrivals) with its own
interval, of

  share_alloc        summary shares.allocation_ratio (time-weighted over the whole run)
  share_alloc_tail   share_allocation_ratio over the timeseries rows at or after --from (s)
  frag_gpus_tail     fragmentation_gpus over the same rows
  started            jobs started by the end (finished + still running)
  queued_end         jobs still queued at the end
  wait_finished_s    summary queueing_delay_s.mean (finished jobs only, as compare shows it)
  wait_all_s         mean wait of every arrived job, one still queued counted up to the end

Usage: openb_fractional_tail.py [OUT_DIR] [--loads 1.3] [--from 5400] [--end 7200]
"""
import argparse
import csv
import json
import math
import pathlib
import sys

POLICIES = ["fgd", "best-fit", "spread", "gpu-packing"]
# Two-sided 95% Student t by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
       17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042}
# Metric and its decimals.
METRICS = [("share_alloc", 4), ("share_alloc_tail", 4), ("frag_gpus_tail", 1), ("started", 0),
           ("queued_end", 0), ("wait_finished_s", 1), ("wait_all_s", 1)]


def t95(df):
    return T95[max(k for k in T95 if k <= df)]


def mean_half_width(values):
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, float("nan")
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, t95(n - 1) * math.sqrt(var / n)


def run_values(seed_dir, start_tail, end):
    summary = json.loads((seed_dir / "summary.json").read_text())["metrics"]
    out = {
        "share_alloc": summary["shares"]["allocation_ratio"],
        "started": summary["jobs"]["finished"] + summary["jobs"]["unfinished_running"],
        "queued_end": summary["jobs"]["unfinished_queued"],
        "wait_finished_s": summary["queueing_delay_s"]["mean"],
    }
    with open(seed_dir / "timeseries.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if float(r["time_s"]) >= start_tail]
    if not rows:
        sys.exit(f"openb_fractional_tail.py: {seed_dir}/timeseries.csv has no row at or after "
                 f"{start_tail} s")
    out["share_alloc_tail"] = sum(float(r["share_allocation_ratio"]) for r in rows) / len(rows)
    out["frag_gpus_tail"] = sum(float(r["fragmentation_gpus"]) for r in rows) / len(rows)
    waits = []
    with open(seed_dir / "jobs.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["state"] == "queued":
                waits.append(end - float(r["submit_s"]))
            elif r["start_s"]:
                waits.append(float(r["start_s"]) - float(r["submit_s"]))
    out["wait_all_s"] = sum(waits) / len(waits)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", nargs="?", default="out/study-openb-fractional")
    ap.add_argument("--loads", nargs="+", default=["1.3"])
    ap.add_argument("--from", dest="start_tail", type=float, default=5400.0)
    ap.add_argument("--end", type=float, default=7200.0)
    args = ap.parse_args()
    for load in args.loads:
        per_policy = {}
        for policy in POLICIES:
            runs = pathlib.Path(args.out_dir) / f"load-{load}" / policy / "fractional"
            seeds = sorted(runs.glob("seed-*"), key=lambda p: int(p.name.split("-")[1]))
            if not seeds:
                sys.exit(f"openb_fractional_tail.py: no runs in {runs}")
            per_policy[policy] = {s.name: run_values(s, args.start_tail, args.end) for s in seeds}
        print(f"load {load}: mean +- 95% half-width over seeds; [policy - fgd, paired by seed]")
        print("| metric | " + " | ".join(POLICIES) + " |")
        print("|---" * (len(POLICIES) + 1) + "|")
        for metric, dec in METRICS:
            cells = []
            base = per_policy["fgd"]
            for policy in POLICIES:
                runs = per_policy[policy]
                m, h = mean_half_width([v[metric] for v in runs.values()])
                cell = f"{m:.{dec}f} ± {h:.{dec}f}"
                if policy != "fgd":
                    common = [s for s in runs if s in base]
                    dm, dh = mean_half_width([runs[s][metric] - base[s][metric] for s in common])
                    cell += f" [{dm:+.{dec}f} ± {dh:.{dec}f}]"
                cells.append(cell)
            print(f"| {metric} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
