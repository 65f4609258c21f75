#!/usr/bin/env python3
"""Feature sets and forms for the co-location speed of Lucid's pairs, held out the way
`gpumux colocation fit` holds them out (RESULTS.md section 3b).

Usage (from the repository root; Python 3 standard library only, about 30 CPU minutes):
    python3 bench/validation/timeslice/colocation_forms.py [DATA_DIR] [--nested]
DATA_DIR defaults to ../shared/data/colocation. Prints, for every candidate, the 5-fold
cross-validated MAE (seed 42) with folds by pair and by config, dealt exactly as
calibrate/colocation/colocation_model.cc deals them (std::mt19937_64 and the same portable
Fisher-Yates); then the diagnostics of section 3b. --nested adds the nested cross-validation
that chooses the form inside each outer fold (slow: about an hour).

Each candidate is a rate in (0, 1] of the two members' solo facts only:
  u   nvidia-smi utilization / 100          m   memory-controller utilization / 100
  e   = clamp(s * u^p, 0.01, 1)               B   GPU-busy ms per iteration = u * 1000 * bs / speed
and is fitted per fold by Levenberg-Marquardt on squared error (l2) or, by iteratively
reweighted least squares, on absolute error (l1: the goal's own measure).
"""
import csv
import math
import os
import random
import sys

M64 = 0xFFFFFFFFFFFFFFFF


class MT64:
    """std::mt19937_64, bit for bit."""

    def __init__(self, seed):
        self.mt = [seed & M64]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & M64)
        self.i = 312

    def __call__(self):
        if self.i >= 312:
            mt = self.mt
            for k in range(312):
                x = (mt[k] & 0xFFFFFFFF80000000) | (mt[(k + 1) % 312] & 0x7FFFFFFF)
                mt[k] = mt[(k + 156) % 312] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        return (y ^ (y >> 43)) & M64


def shuffle(v, rng):  # colocation_model.cc shuffle_portably
    for i in range(len(v), 1, -1):
        j = rng() % i
        v[i - 1], v[j] = v[j], v[i - 1]


def load(data_dir):
    singles = {}
    for r in csv.DictReader(open(os.path.join(data_dir, "lucid_single_data.csv"))):
        k = (r["model"], r["dataset"], int(float(r["batchsize"])), int(float(r["amp"])))
        singles[k] = dict(key=k, model=r["model"], bs=k[2], speed=float(r["speed"]),
                          u=float(r["gpu_util"]) / 100, m=float(r["gmem_util"]) / 100)
    pairs = []
    for r in csv.DictReader(open(os.path.join(data_dir, "lucid_pairs_train.csv"))):
        k1 = (r["model1"], r["dataset1"], int(float(r["batchsize1"])), int(float(r["amp1"])))
        k2 = (r["model2"], r["dataset2"], int(float(r["batchsize2"])), int(float(r["amp2"])))
        pairs.append(dict(a=singles[k1], b=singles[k2], s1=float(r["speed1"]), s2=float(r["speed2"])))
    return singles, pairs


def folds(pairs, kind, k=5, seed=42):
    """[(train indices, test indices)] as gpumux deals them (FoldGroups kPairs / kConfigs)."""
    rng = MT64(seed)
    if kind == "pairs":
        idx = list(range(len(pairs)))
        shuffle(idx, rng)
        return [([x for i, x in enumerate(idx) if i % k != f], [x for i, x in enumerate(idx) if i % k == f])
                for f in range(k)]
    configs, seen = [], set()
    for p in pairs:
        for c in (p["a"]["key"], p["b"]["key"]):
            if c not in seen:
                seen.add(c)
                configs.append(c)
    configs.sort()
    shuffle(configs, rng)
    fold_of = {c: i % k for i, c in enumerate(configs)}
    out = []
    for f in range(k):
        hit = [fold_of[p["a"]["key"]] == f or fold_of[p["b"]["key"]] == f for p in pairs]
        out.append(([i for i, h in enumerate(hit) if not h], [i for i, h in enumerate(hit) if h]))
    return out


# ---- candidate forms: (name, predict(theta, a, b) -> (rate_a, rate_b), bounds, starts) ----

def busy_ms(c):
    return max(1e-3, 1000.0 * c["bs"] / c["speed"] * c["u"])


def eff(t, c):
    return min(1.0, max(0.01, t[0] * c["u"] ** t[1]))


def shorter(b0, c):  # sensitivity of a member with busy bursts B: B / (B + B0)
    return busy_ms(c) / (busy_ms(c) + b0)


def f1(t, a, b):
    x = t[2] * eff(t, a) * eff(t, b)
    return 1 / (1 + x), 1 / (1 + x)


def f2(t, a, b):
    x = t[2] * eff(t, a) * eff(t, b) + t[3] * a["m"] * b["m"]
    return 1 / (1 + x), 1 / (1 + x)


def f3(t, a, b):
    x = t[2] * eff(t, a) * eff(t, b)
    return 1 / (1 + x * shorter(t[3], a)), 1 / (1 + x * shorter(t[3], b))


def f4(t, a, b):
    x = t[2] * eff(t, a) * eff(t, b) + t[3] * a["m"] * b["m"]
    return 1 / (1 + x * shorter(t[4], a)), 1 / (1 + x * shorter(t[4], b))


def aggr(t, c):
    return c["u"] ** t[3] * busy_ms(c) ** (-t[4])


def f5(t, a, b):
    return 1 / (1 + t[2] * eff(t, a) * aggr(t, b)), 1 / (1 + t[2] * eff(t, b) * aggr(t, a))


def f6(t, a, b):
    bw = t[5] * a["m"] * b["m"]
    return (1 / (1 + (t[2] * eff(t, a) * aggr(t, b) + bw) * shorter(t[6], a)),
            1 / (1 + (t[2] * eff(t, b) * aggr(t, a) + bw) * shorter(t[6], b)))


B3 = [(0.05, 2), (0.25, 4), (0, 100)]
FORMS = [
    ("F1 1/(1 + a e_i e_j)", f1, B3, [[1, 1, 1], [0.5, 1.5, 2]]),
    ("F2 F1 + bandwidth b m_i m_j", f2, B3 + [(0, 100)], [[1, 1, 1, 0], [0.5, 1.5, 1, 1]]),
    ("F3 F1, sensitivity B_i/(B_i+B0)", f3, B3 + [(0, 1e4)], [[1, 1, 1, 5], [0.5, 1.5, 2, 20]]),
    ("F4 F2, sensitivity B_i/(B_i+B0)", f4, B3 + [(0, 100), (0, 1e4)],
     [[1, 1, 1, 0, 5], [0.5, 1.5, 1, 1, 20]]),
    ("F5 1/(1 + a e_i u_j^q B_j^-d)", f5, B3 + [(0.25, 4), (0, 2)],
     [[1, 1, 1, 1, 0], [0.5, 1.5, 2, 1.5, 0.2]]),
    ("F6 F5 + bandwidth, sensitivity", f6, B3 + [(0.25, 4), (0, 2), (0, 100), (0, 1e4)],
     [[1, 1, 1, 1, 0, 0, 5], [0.5, 1.5, 2, 1.5, 0.2, 1, 20]]),
]


def solve(m, v):
    n = len(v)
    m = [row[:] for row in m]
    v = v[:]
    for i in range(n):
        piv = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[piv], v[i], v[piv] = m[piv], m[i], v[piv], v[i]
        if abs(m[i][i]) < 1e-300:
            m[i][i] = 1e-300
        for r in range(i + 1, n):
            f = m[r][i] / m[i][i]
            for c in range(i, n):
                m[r][c] -= f * m[i][c]
            v[r] -= f * v[i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (v[i] - sum(m[i][c] * x[c] for c in range(i + 1, n))) / m[i][i]
    return x


def residuals(form, t, pairs, idx, w=None):
    r = []
    for i in idx:
        p = pairs[i]
        s1, s2 = form[1](t, p["a"], p["b"])
        r += [s1 - p["s1"], s2 - p["s2"]]
    return [x * wi for x, wi in zip(r, w)] if w else r


def clamp_to(t, bounds):
    return [min(max(x, lo), hi) for x, (lo, hi) in zip(t, bounds)]


def levenberg_marquardt(form, t, pairs, idx, w=None, iters=60):
    """The same damping schedule as colocation_model.cc."""
    t = clamp_to(t, form[2])
    r = residuals(form, t, pairs, idx, w)
    cost, lam, n = sum(x * x for x in r), 1e-2, len(t)
    for _ in range(iters):
        jac = []
        for c in range(n):
            tt = t[:]
            h = 1e-4 * max(1, abs(tt[c]))
            tt[c] += h
            jac.append([(x - y) / h for x, y in zip(residuals(form, tt, pairs, idx, w), r)])
        jtj = [[sum(x * y for x, y in zip(jac[i], jac[j])) for j in range(n)] for i in range(n)]
        jtr = [sum(x * y for x, y in zip(jac[i], r)) for i in range(n)]
        improved, gain = False, 0.0
        for _ in range(12):
            a = [[jtj[i][j] + (lam * (jtj[i][i] + 1e-9) if i == j else 0) for j in range(n)] for i in range(n)]
            tn = clamp_to([x + s for x, s in zip(t, solve(a, [-x for x in jtr]))], form[2])
            rn = residuals(form, tn, pairs, idx, w)
            cn = sum(x * x for x in rn)
            if cn < cost:
                improved, gain, t, r, cost = True, cost - cn, tn, rn, cn
                lam = max(1e-7, lam / 3)
                break
            lam *= 4
        if not improved or gain < 1e-6 * cost:
            break
    return t, cost


def mae(rs):
    return sum(abs(x) for x in rs) / len(rs)


def fit(form, pairs, idx, loss):
    best = None
    for start in form[3]:
        t, c = levenberg_marquardt(form, start, pairs, idx)
        if loss == "l1":  # iteratively reweighted least squares towards least absolute deviations
            for _ in range(8):
                w = [1 / math.sqrt(max(abs(x), 0.01)) for x in residuals(form, t, pairs, idx)]
                t, _ = levenberg_marquardt(form, t, pairs, idx, w, iters=20)
            c = mae(residuals(form, t, pairs, idx))
        if best is None or c < best[1]:
            best = (t, c)
    return best[0]


def cross_validate(form, pairs, split, loss):
    r = []
    for train, test in split:
        r += residuals(form, fit(form, pairs, train, loss), pairs, test)
    return mae(r)


def knn(pairs, split, feats, k=15, clip=True):
    """Median of the k nearest training job speeds in (self, co-runner) feature space."""
    def fv(a, b):
        return [f(a) for f in feats] + [f(b) for f in feats]

    def jobs(idx):
        out = []
        for i in idx:
            p = pairs[i]
            out += [(fv(p["a"], p["b"]), p["s1"]), (fv(p["b"], p["a"]), p["s2"])]
        return out

    r = []
    for train, test in split:
        known = jobs(train)
        for x, s in jobs(test):
            near = sorted(known, key=lambda t: sum((u - v) ** 2 for u, v in zip(t[0], x)))[:k]
            pred = sorted(t[1] for t in near)[k // 2]
            r.append((min(1.0, pred) if clip else pred) - s)
    return mae(r)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    data_dir = args[0] if args else os.path.join("..", "shared", "data", "colocation")
    singles, pairs = load(data_dir)
    splits = {kind: folds(pairs, kind) for kind in ("pairs", "configs")}
    print("form, loss, 5-fold MAE by pair, by config (seed 42)")
    for form in FORMS:
        for loss in ("l2", "l1"):
            print(f"{form[0]:36s} {loss} {cross_validate(form, pairs, splits['pairs'], loss):.4f} "
                  f"{cross_validate(form, pairs, splits['configs'], loss):.4f}", flush=True)
    speeds = [p["s1"] for p in pairs] + [p["s2"] for p in pairs]
    print(f"job speeds above 1: {sum(s > 1 for s in speeds)} of {len(speeds)}; MAE any rate <= 1 pays "
          f"on them: {sum(max(0.0, s - 1) for s in speeds) / len(speeds):.4f}")
    feats = {"u": lambda c: c["u"], "m": lambda c: c["m"], "log busy": lambda c: math.log(busy_ms(c)) / 5}
    for names in (["u"], ["u", "m"], ["u", "m", "log busy"]):
        fs = [feats[n] for n in names]
        print(f"15-nearest-neighbour median on {names} of both members, capped at 1: "
              f"{knn(pairs, splits['pairs'], fs):.4f} by pair, {knn(pairs, splits['configs'], fs):.4f} by config",
              flush=True)
    if "--nested" in sys.argv:
        for kind in ("pairs", "configs"):
            r, chosen = [], []
            for train, test in splits[kind]:
                idx = train[:]
                random.Random(7).shuffle(idx)
                inner = [([x for i, x in enumerate(idx) if i % 3 != f], [x for i, x in enumerate(idx) if i % 3 == f])
                         for f in range(3)]
                best = min(FORMS, key=lambda form: cross_validate(form, pairs, inner, "l1"))
                chosen.append(best[0][:2])
                r += residuals(best, fit(best, pairs, train, "l1"), pairs, test)
            print(f"nested (form chosen by 3-fold CV inside each outer fold, l1): {mae(r):.4f} by {kind}, chose {chosen}")


if __name__ == "__main__":
    main()
