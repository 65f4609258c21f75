#!/usr/bin/env python3
"""Builds the LLM-serving validation inputs (docs/validation.md "LLM serving") from the shared
measurements: the request traces of LLMServingSim's two measured vLLM runs (native format:
arrival_s = queued_ts - the first queued_ts, input_toks, output_toks) and one scenario per
measured row of single_gpu_serving_measured.csv. Writes into this folder; run it from the
project root:  python3 bench/validation/llm/make_inputs.py ../shared/data/llm-serving
The outputs are committed; rerunning gives the same bytes."""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "scenarios")

ENDPOINT_TRACE = "endpoint.csv"  # one inference job living long enough for every request


def write(path, text):
    with open(path, "w", newline="") as f:
        f.write(text)


def runs_traces(data):
    for hw in ("RTXPRO6000", "RTX4090"):
        src = os.path.join(data, "llmservingsim/bench/examples", hw, "Llama-3.1-8B/vllm/requests.jsonl")
        rows = [json.loads(line) for line in open(src) if line.strip()]
        t0 = min(r["queued_ts"] for r in rows)
        rows.sort(key=lambda r: (r["queued_ts"], r["request_id"]))
        lines = ["arrival_s,prompt_tokens,output_tokens"]
        for r in rows:
            lines.append("%.6f,%d,%d" % (r["queued_ts"] - t0, r["input_toks"], r["output_toks"]))
        write(os.path.join(SCENARIOS, "llmservingsim_%s_requests.csv" % hw.lower()), "\n".join(lines) + "\n")


def scenario(name, description, device, llm):
    return {
        "name": name,
        "description": description,
        "seed": 1,
        "cluster": {"node_groups": [{"name": "gpu", "nodes": 1, "gpus_per_node": 1, "device": device}]},
        "trace": {"file": ENDPOINT_TRACE},
        "services": {"by_id": {"endpoint": {"llm": llm}}},
    }


def closed(clients, requests, prompt, output, warmup=0):
    return {"clients": clients, "warmup_requests": warmup, "requests": requests,
            "prompt_tokens": prompt, "output_tokens": output}


def all_scenarios():
    out = {}
    # LLMServingSim's measured runs: engine settings from meta.json; omitted ones are vLLM 0.19's
    # defaults (memory utilization 0.9, block 16, chunked prefill, CUDA graphs on).
    out["llmservingsim_rtxpro6000"] = scenario(
        "llmservingsim-rtxpro6000", "Llama-3.1-8B on RTX PRO 6000, vLLM 0.19, 300 ShareGPT requests at ~10/s replayed at their queued_ts",
        "RTX-PRO-6000",
        {"model": "Llama-3.1-8B", "engine": {"max_num_seqs": 128, "max_num_batched_tokens": 2048},
         "load": {"trace": "llmservingsim_rtxpro6000_requests.csv"}})
    out["llmservingsim_rtx4090"] = scenario(
        "llmservingsim-rtx4090", "Llama-3.1-8B on RTX 4090, vLLM 0.19, the same 300 requests (overloaded: the KV cache limits the batch)",
        "RTX4090",
        {"model": "Llama-3.1-8B",
         "engine": {"max_num_seqs": 256, "max_num_batched_tokens": 2048, "max_model_len": 32768},
         "load": {"trace": "llmservingsim_rtx4090_requests.csv"}})
    out["llmservingsim_rtx4090_measured_kv"] = scenario(
        "llmservingsim-rtx4090-measured-kv", "as llmservingsim_rtx4090 with the KV cache vLLM measured (2,588 blocks): separates the cache-size error from the timing error",
        "RTX4090",
        {"model": "Llama-3.1-8B",
         "engine": {"max_num_seqs": 256, "max_num_batched_tokens": 2048, "max_model_len": 32768,
                    "num_gpu_blocks_override": 2588},
         "load": {"trace": "llmservingsim_rtx4090_requests.csv"}})
    # GPUStack, Qwen3-14B on one A100 SXM (memory unstated: 80 GB assumed), vLLM 0.11 defaults
    # (A100: 2048 batched tokens, 256 sequences), request rate inf = every request at t = 0.
    for key, n, p, o in (("sharegpt", 1000, 217, 202), ("random_32000_100", 100, 32000, 100),
                         ("random_4000_200", 500, 4000, 200), ("random_2000_100", 500, 2000, 100),
                         ("random_128_4", 1000, 128, 4)):
        out["gpustack_qwen3_14b_a100_" + key] = scenario(
            "gpustack-qwen3-14b-a100-" + key.replace("_", "-"),
            "Qwen3-14B on A100-80GB (assumed), vLLM 0.11 defaults, %d requests of %d in / %d out all sent at once" % (n, p, o),
            "A100-80GB", {"model": "Qwen3-14B", "load": closed(n, n, p, o)})
    # GPUStack, Qwen3-8B on one H100 SXM, vLLM 0.11 defaults, 100 ShareGPT prompts at max
    # concurrency c (ShareGPT replayed at the row's mean lengths: 23,260 / 100 in, 22,061 / 100 out).
    for c in (1, 2, 4, 8):
        out["gpustack_qwen3_8b_h100_c%d" % c] = scenario(
            "gpustack-qwen3-8b-h100-c%d" % c,
            "Qwen3-8B on H100-80GB, vLLM 0.11 defaults, 100 ShareGPT prompts at their mean lengths (233 in / 221 out), max concurrency %d" % c,
            "H100-80GB", {"model": "Qwen3-8B", "load": closed(c, 100, 233, 221)})
    # vLLM CI on H200, Llama-3.1-8B TP 1: the latency test (one batch of 8, 32 in / 128 out; the
    # offline LLM class: 16384 batched tokens, 1024 sequences on a >= 70 GiB device).
    out["vllm_ci_h200_latency_batch8"] = scenario(
        "vllm-ci-h200-latency-batch8", "Llama-3.1-8B on H200, one batch of 8 requests of 32 in / 128 out (vLLM's latency benchmark)",
        "H200-141GB",
        {"model": "Llama-3.1-8B", "engine": {"max_num_batched_tokens": 16384, "max_num_seqs": 1024},
         "load": closed(8, 8, 32, 128)})
    # Dynamo's many-model baseline: Qwen3-4B alone on an A100-SXM4-40GB, fixed 2048 in / 256 out,
    # concurrency c per model, min(16, 2c) warm-up requests, then the row's requests.
    for c, n in ((1, 40), (2, 40), (4, 40), (8, 80), (16, 160), (32, 320)):
        out["dynamo_qwen3_4b_a100_40gb_c%d" % c] = scenario(
            "dynamo-qwen3-4b-a100-40gb-c%d" % c,
            "Qwen3-4B on A100-40GB, --gpu-memory-utilization 0.85 --max-model-len 4096 --max-num-seqs 32, 2048 in / 256 out at concurrency %d" % c,
            "A100-40GB",
            {"model": "Qwen3-4B",
             "engine": {"gpu_memory_utilization": 0.85, "max_model_len": 4096, "max_num_seqs": 32},
             "load": closed(c, n, 2048, 256, warmup=min(16, 2 * c))})
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_inputs.py SHARED_LLM_SERVING_DIR")
    data = sys.argv[1]
    os.makedirs(SCENARIOS, exist_ok=True)
    runs_traces(data)
    write(os.path.join(SCENARIOS, ENDPOINT_TRACE),
          "id,submit_s,gpus,runtime_s,sm_util,memory_mib,kind\nendpoint,0,1,7200,1.0,1,inference\n")
    for key, s in all_scenarios().items():
        write(os.path.join(SCENARIOS, key + ".json"), json.dumps(s, indent=2) + "\n")


if __name__ == "__main__":
    main()
