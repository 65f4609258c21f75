#!/usr/bin/env python3
"""Figures for traces/memory_profiles/README.md (standard library only).

Compares the shipped library (traces/samples/genai_memory_profiles.json) with the raw GenAI 2026
series it was derived from: per-profile error, time-average bias, time spent above steady + 0.1,
restart dips; and draws example profiles over their raw series as an SVG.

  python3 traces/memory_profiles/figures.py [--data ../shared/data/alibaba-genai-v2026]
      [--svg traces/memory_profiles/examples.svg]

Mirrors derive.cc's time axis (gaps longer than 5 median intervals closed to one interval) and
pod order (sorted container_ip, pods with >= 30 samples and a positive maximum).
"""
import argparse
import bisect
import collections
import csv
import json
import statistics as st

GAP_FACTOR = 5.0
MIN_SAMPLES = 30


def load(path, duty=False):
    series = collections.defaultdict(dict)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            t = float(row["timestamp_anon"])
            series[row["container_ip"]].setdefault(t, float(row["value"]))
    return {pod: sorted(d.items()) for pod, d in series.items()}


def closed_axis(ts):
    d = [b - a for a, b in zip(ts, ts[1:])]
    med = st.median(d)
    x = [0.0]
    for dd in d:
        x.append(x[-1] + (med if dd > GAP_FACTOR * med else dd))
    return x, med


def quantiles(v):
    v = sorted(v)

    def q(p):
        pos = p * (len(v) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(v) - 1)
        return v[lo] + (pos - lo) * (v[hi] - v[lo])

    return "min %.3f, p25 %.3f, median %.3f, p75 %.3f, max %.3f" % (
        v[0], q(0.25), q(0.5), q(0.75), v[-1])


def svg(examples, path):
    w, h, pad, gap = 760, 120, 40, 30
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (w, len(examples) * (h + gap) + pad)]
    out.append('<rect width="100%" height="100%" fill="white"/>')
    for k, (title, x, f, steps, dur) in enumerate(examples):
        top = pad // 2 + k * (h + gap)
        pw = w - 2 * pad

        def px(t):
            return pad + pw * t / dur

        def py(v):
            return top + h - h * v

        out.append('<text x="%d" y="%d">%s</text>' % (pad, top - 4, title))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>' %
                   (pad, top, pw, h))
        for v in (0.5, 1.0):
            out.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' %
                       (pad - 4, py(v) + 4, v))
        raw = " ".join("%.1f,%.1f" % (px(t), py(v)) for t, v in zip(x, f))
        out.append('<polyline points="%s" fill="none" stroke="#bbb" stroke-width="1"/>' % raw)
        pts = []
        for i, (at, v) in enumerate(steps):
            end = steps[i + 1][0] if i + 1 < len(steps) else dur
            pts += ["%.1f,%.1f" % (px(at), py(v)), "%.1f,%.1f" % (px(end), py(v))]
        out.append('<polyline points="%s" fill="none" stroke="#c03" stroke-width="1.5"/>' %
                   " ".join(pts))
        out.append('<text x="%d" y="%d" text-anchor="end">%.1f h</text>' %
                   (w - pad, top + h + 13, dur / 3600))
    out.append('<text x="%d" y="%d">grey: raw samples / pod max; red: derived profile '
               '(progress time, gaps closed)</text>' % (pad, len(examples) * (h + gap) + pad - 8))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/alibaba-genai-v2026")
    ap.add_argument("--library", default="traces/samples/genai_memory_profiles.json")
    ap.add_argument("--svg", default="")
    ap.add_argument("--examples", default="genai-pod-001,genai-pod-017,genai-pod-039")
    args = ap.parse_args()

    lib = json.load(open(args.library))["profiles"]
    mem = load(args.data + "/pod_gpu_memory_used_bytes_anon.csv")
    pods = [p for p in sorted(mem) if len(mem[p]) >= MIN_SAMPLES and max(v for _, v in mem[p]) > 0]
    assert len(pods) == len(lib), (len(pods), len(lib))

    mae, bias, above_raw, above_prof, dips = [], [], [], [], 0
    examples = {}
    for pod, prof in zip(pods, lib):
        ts = [t for t, _ in mem[pod]]
        mx = max(v for _, v in mem[pod])
        f = [v / mx for _, v in mem[pod]]
        x, med = closed_axis(ts)
        at = [s[0] for s in prof["steps"]]
        fr = [s[1] for s in prof["steps"]]
        g = [fr[bisect.bisect_right(at, t) - 1] for t in x]
        mae.append(st.mean(abs(a - b) for a, b in zip(f, g)))
        bias.append(st.mean(g) - st.mean(f))
        level = prof["stats"]["steady_fraction"] + 0.1
        above_raw.append(sum(v > level for v in f) / len(f))
        above_prof.append(sum(v > level for v in g) / len(g))
        # a restart: memory back under 5% of the max after the pod first exceeded half of it
        first_up = next((i for i, v in enumerate(f) if v >= 0.5), len(f))
        dips += any(v < 0.05 for v in f[first_up:])
        examples[prof["name"]] = (prof["name"] + " (%d samples, %d steps, max %.1f GiB)" % (
            len(f), len(fr), prof["stats"]["max_gib"]), x, f, prof["steps"], x[-1] + med)

    print("profiles", len(lib))
    print("mean |profile - raw| per profile:", quantiles(mae))
    print("time-average bias (profile - raw):", quantiles(bias))
    print("share of samples above steady+0.1, raw:", quantiles(above_raw))
    print("share of samples above steady+0.1, profile:", quantiles(above_prof))
    print("pods with a restart dip (< 0.05 after reaching 0.5):", dips)
    if args.svg:
        svg([examples[n] for n in args.examples.split(",")], args.svg)
        print("wrote", args.svg)


if __name__ == "__main__":
    main()
