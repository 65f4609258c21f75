#!/usr/bin/env python3
"""Runs every LLM-serving validation scenario (scenarios/, made by make_inputs.py) and compares
the simulation with the measurement, metric by metric, as a Markdown table (docs/validation.md
"LLM serving"). From the project root:
    python3 bench/validation/llm/validate.py build/gpumux ../shared/data/llm-serving
Targets (issue: LLM engine on one GPU): on LLMServingSim's measured runs TPOT and end-to-end
p50 within 5 %, p90 within 10 %, TTFT p50 and p90 within 10 %; on the other rows output
tokens/s, TPOT/ITL p50 and end-to-end mean/p50 within 15 %, TTFT p50 within 25 %. Every other
published metric is listed with its error and no target."""
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def percentile(values, q):
    """numpy's default (linear interpolation between closest ranks)."""
    v = sorted(values)
    pos = (len(v) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def measured_run(data, hw):
    path = os.path.join(data, "llmservingsim/bench/examples", hw, "Llama-3.1-8B/vllm/requests.jsonl")
    rows = [json.loads(line) for line in open(path) if line.strip()]
    ttft = [(r["first_token_ts"] - r["queued_ts"]) * 1000 for r in rows]
    tpot = [(r["last_token_ts"] - r["first_token_ts"]) / max(1, r["output_toks"] - 1) * 1000 for r in rows]
    e2e = [(r["last_token_ts"] - r["queued_ts"]) * 1000 for r in rows]
    span = max(r["last_token_ts"] for r in rows) - min(r["queued_ts"] for r in rows)
    out = {}
    for name, vals in (("ttft", ttft), ("tpot", tpot), ("e2e", e2e)):
        out[name + "_mean_ms"] = sum(vals) / len(vals)
        for q in (50, 90, 99):
            out["%s_p%d_ms" % (name, q)] = percentile(vals, q)
    out["output_tok_per_s"] = sum(r["output_toks"] for r in rows) / span
    return out


def simulated(gpumux, scenario):
    done = subprocess.run([gpumux, "run", scenario, "--no-outputs", "--format", "json"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("%s failed: %s" % (scenario, done.stderr.strip()))
    summary = json.loads(done.stdout)
    rq = summary["metrics"]["requests"]
    engine = summary["scenario"]["services"]["by_id"]["endpoint"]["llm"]["engine"]
    out = {"kv_cache_blocks": engine["kv_cache_blocks"], "req_per_s": rq["requests_per_s"], "output_tok_per_s": rq["output_tokens_per_s"],
           "total_tok_per_s": rq["total_tokens_per_s"], "preemptions": rq["preemptions"]}
    for ours, theirs in (("ttft_ms", "ttft"), ("tpot_ms", "tpot"), ("itl_ms", "itl"), ("latency_ms", "e2e")):
        for stat in ("mean", "p50", "p90", "p99"):
            if stat in rq[ours]:
                out["%s_%s_ms" % (theirs, stat)] = rq[ours][stat]
    return out


LLMSERVINGSIM_TARGETS = {"tpot_p50_ms": 5, "e2e_p50_ms": 5, "tpot_p90_ms": 10, "e2e_p90_ms": 10,
                         "ttft_p50_ms": 10, "ttft_p90_ms": 10}
ROW_TARGETS = {"output_tok_per_s": 15, "tpot_p50_ms": 15, "itl_p50_ms": 15, "e2e_mean_ms": 15,
               "e2e_p50_ms": 15, "ttft_p50_ms": 25}
METRICS = ["req_per_s", "output_tok_per_s", "total_tok_per_s", "ttft_mean_ms", "ttft_p50_ms",
           "ttft_p90_ms", "ttft_p99_ms", "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p99_ms",
           "itl_mean_ms", "itl_p50_ms", "itl_p99_ms", "e2e_mean_ms", "e2e_p50_ms", "e2e_p90_ms", "e2e_p99_ms"]


def rows_of_csv(data):
    path = os.path.join(data, "single-gpu/single_gpu_serving_measured.csv")
    return list(csv.DictReader(open(path)))


def scenario_of(row):
    s, load = row["source_id"], row["load_value"]
    if s == "gpustack-qwen3-14b-a100":
        w = row["workload"]
        if w.startswith("ShareGPT"):
            return "gpustack_qwen3_14b_a100_sharegpt"
        parts = w.split()
        return "gpustack_qwen3_14b_a100_random_%s_%s" % (parts[1], parts[4])
    if s == "gpustack-qwen3-8b-h100":
        return "gpustack_qwen3_8b_h100_c%s" % load
    if s == "vllm-ci-buildkite-9515":
        return "vllm_ci_h200_latency_batch8" if row["load_kind"] == "fixed_batch" else None
    if s == "dynamo-many-model-baseline":
        return "dynamo_qwen3_4b_a100_40gb_c%s" % load
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: validate.py GPUMUX SHARED_LLM_SERVING_DIR")
    gpumux, data = sys.argv[1], sys.argv[2]
    hits = misses = 0
    print("| row | metric | measured | simulated | error | target | |")
    print("|---|---|---:|---:|---:|---:|---|")

    def line(row, metric, m, s, target):
        nonlocal hits, misses
        err = (s - m) / m * 100 if m else float("nan")
        verdict = ""
        if target is not None:
            ok = abs(err) <= target
            hits += ok
            misses += not ok
            verdict = "hit" if ok else "**miss**"
        print("| %s | %s | %.4g | %.4g | %+.1f %% | %s | %s |" % (
            row, metric, m, s, err, "%d %%" % target if target is not None else "-", verdict))

    for hw, key in (("RTXPRO6000", "llmservingsim_rtxpro6000"), ("RTX4090", "llmservingsim_rtx4090"),
                    ("RTX4090", "llmservingsim_rtx4090_measured_kv")):
        m = measured_run(data, hw)
        s = simulated(gpumux, os.path.join(HERE, "scenarios", key + ".json"))
        if key == "llmservingsim_rtx4090":
            # vLLM's own cache size for this run (meta.json kv_cache.num_gpu_blocks).
            meta = json.load(open(os.path.join(data, "llmservingsim/bench/examples/RTX4090/Llama-3.1-8B/vllm/meta.json")))
            line(key, "kv_cache_blocks", meta["kv_cache"]["num_gpu_blocks"], s["kv_cache_blocks"], None)
        for metric in METRICS:
            if metric in m and metric in s and s[metric] is not None:
                line(key, metric, m[metric], s[metric], LLMSERVINGSIM_TARGETS.get(metric))
    skipped = []
    for row in rows_of_csv(data):
        if row["source_id"] == "llmservingsim":
            continue  # compared request by request above
        key = scenario_of(row)
        if key is None:
            skipped.append("%s (%s, %s): the 200 ShareGPT prompts' lengths are not published, and "
                           "requests/s depends on them" % (row["source_id"], row["load_kind"], row["workload"]))
            continue
        s = simulated(gpumux, os.path.join(HERE, "scenarios", key + ".json"))
        for metric in METRICS:
            text = row.get(metric, "")
            if text == "" or metric not in s or s[metric] is None:
                continue
            line(key, metric, float(text), s[metric], ROW_TARGETS.get(metric))
    print()
    for text in skipped:
        print("not replayed: " + text)
    print("targets hit: %d, missed: %d" % (hits, misses))


if __name__ == "__main__":
    main()
