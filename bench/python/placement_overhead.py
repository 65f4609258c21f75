"""The cost of a placement policy written in Python (docs/python.md): the same scenario placed by
the C++ first-fit and by its Python twin (tests/python/placement_twins.py), in one process, best
of REPEAT runs each; prints both wall times, the decisions asked of the Python policy and the
time per decision beyond the C++ one.

    PYTHONPATH=build-python/python python3 bench/python/placement_overhead.py \
        [SCENARIO] [--set path=value ...] [--repeat N]

Default: the quickstart under time-slicing. Figures are for the build it imports (Release from
scripts/python.sh); a sanitized module is many times slower on both sides."""

import argparse
import os
import sys
import time

import gpumux

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import placement_twins  # noqa: E402


class CountingFirstFit(placement_twins.FirstFit):
    decisions = 0

    def place(self, job, candidates):
        CountingFirstFit.decisions += 1
        return super().place(job, candidates)


def best_wall(scenario, settings, repeat):
    best = None
    for _ in range(repeat):
        started = time.perf_counter()
        gpumux.run(scenario, set=settings)
        elapsed = time.perf_counter() - started
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="?",
                        default=os.path.join(ROOT, "scenarios", "examples", "quickstart.json"))
    parser.add_argument("--set", action="append", default=["sharing.model=\"timeslice\""])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    gpumux.register_placement("py-first-fit-bench", CountingFirstFit)
    cpp = best_wall(args.scenario, args.set + ["scheduler.placement=\"first-fit\""], args.repeat)
    CountingFirstFit.decisions = 0
    py = best_wall(args.scenario, args.set + ["scheduler.placement=\"py-first-fit-bench\""],
                   args.repeat)
    decisions = CountingFirstFit.decisions // args.repeat
    print("scenario        %s (%s)" % (os.path.relpath(args.scenario, ROOT), ", ".join(args.set)))
    print("C++ first-fit   %.4f s per run (best of %d)" % (cpp, args.repeat))
    print("Python twin     %.4f s per run (best of %d), %.1fx" % (py, args.repeat, py / cpp))
    print("decisions       %d per run" % decisions)
    if decisions:
        print("overhead        %.1f us per decision" % ((py - cpp) / decisions * 1e6))


if __name__ == "__main__":
    main()
