"""gpumux in Python: the simulator of shared GPU clusters, in this process.

    import gpumux
    r = gpumux.run("scenarios/examples/quickstart.json", set={"sharing.model": "mps"}, seed=7)
    r.summary["metrics"]["jct_s"]["p95"]     # summary.json, as a dict
    r.jobs, r.timeseries, r.requests         # DataFrames (lists of dicts without pandas)
    c = gpumux.compare("scenarios/examples/quickstart.json", ["exclusive", "timeslice"], seeds=3)
    c.means                                  # mean and 95 % interval per model and metric
    s = gpumux.sweep("scenarios/sweeps/queues_tiny.json", out="out/sweep")   # sweep.csv
    gpumux.models(), gpumux.metrics()        # what a scenario may name, what a run measures

A placement policy written in Python runs inside the simulator (docs/python.md):

    class FirstFree:
        def place(self, job, candidates):     # the GPUs that admit the job now
            return [c.gpu for c in candidates[:job.gpus]]
    gpumux.register_placement("first-free", FirstFree)
    gpumux.run(path, set={"scheduler.placement": "first-free"})

Bad input raises gpumux.InputError, whose `where` (file and line or JSON pointer) and `field`
are those the command line prints. docs/python.md says more.
"""

import csv as _csv
import json as _json
import os as _os
import tempfile as _tempfile


class InputError(ValueError):
    """Bad input: a scenario, trace row, name or value gpumux refuses.

    where: "file:line" or "file#/json/pointer" (or "command line"); field: the field, or "";
    detail: what was expected. str(error) is the message the command line prints.
    """

    def __init__(self, message, where="", field="", detail=""):
        super().__init__(message)
        self.where = where
        self.field = field
        self.detail = detail


from . import _gpumux  # noqa: E402 (the module raises InputError, defined above)
from ._results import CompareResult, RunResult, has_pandas, table  # noqa: E402
from ._results import number as _number  # noqa: E402

__version__ = _gpumux.__version__
Job = _gpumux.Job
Candidate = _gpumux.Candidate

__all__ = [
    "InputError", "RunResult", "CompareResult", "CommandResult", "Job", "Candidate", "run",
    "compare", "plan", "sweep", "load_sweep", "models", "metrics", "register_placement",
    "command", "has_pandas",
]


def _assignments(overrides):
    """`set=` as the command line's path=value assignments: a dict's values as JSON."""
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return ["%s=%s" % (key, _json.dumps(value)) for key, value in overrides.items()]
    if isinstance(overrides, str):
        return [overrides]
    return [str(a) for a in overrides]


def _scenario_path(scenario, what):
    if isinstance(scenario, (str, _os.PathLike)):
        return _os.fspath(scenario)
    raise TypeError("%s takes a scenario file's path (a dict scenario runs with gpumux.run)"
                    % what)


class CommandResult:
    """A gpumux command line's outcome: exit code (0 ok, 3 a check failed or a plan found no
    size), and what it printed on stdout and stderr."""

    def __init__(self, code, stdout, stderr):
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self):
        return "CommandResult(code=%d)" % self.code


def command(*args):
    """Any gpumux command line, in this process: gpumux.command("plan", path, "--models", ...).
    Returns a CommandResult; bad input raises InputError."""
    code, out, err = _gpumux.command_line([str(a) for a in args])
    return CommandResult(code, out, err)


def run(scenario, set=None, seed=None, out=None, base_dir=None, check_invariants=False):
    """Runs one scenario and returns a RunResult.

    scenario: a scenario file's path, or a scenario as a dict (its paths then resolve against
    `base_dir`, by default the current folder). set: overrides, {"path.to.key": value} or
    ["path=value", ...], as `gpumux run --set`. seed: the run's seed (default: the
    scenario's). out: a folder to keep the outputs in (summary.json, jobs.csv, ...); by
    default they go to a temporary folder, read and removed.
    """
    overrides = _assignments(set)
    if isinstance(scenario, dict):
        path, document = "scenario (dict)", _json.dumps(scenario)
        base = _os.fspath(base_dir) if base_dir is not None else _os.getcwd()
    else:
        path, document, base = _scenario_path(scenario, "run"), "", ""
    with _tempfile.TemporaryDirectory(prefix="gpumux-run-") as scratch:
        folder = _os.fspath(out) if out is not None else _os.path.join(scratch, "run")
        summary, written, warnings, wall_s = _gpumux.run_one(
            path, document, base, overrides, seed, folder, True, bool(check_invariants))
        return RunResult(_json.loads(summary), written, written if out is not None else None,
                         warnings, wall_s)


def compare(scenario, models, seeds=1, set=None, threads=None, baseline=None, out=None,
            model_params=None):
    """Runs a scenario under several sharing models and seeds (`gpumux compare`); returns a
    CompareResult. models: names, e.g. ["exclusive", "mps"]. model_params: {model: params
    dict}. out: keep the run folders and compare.csv/json there (default: a temporary folder).
    """
    args = ["compare", _scenario_path(scenario, "compare"), "--models", ",".join(models),
            "--seeds", str(seeds), "--format", "json"]
    for assignment in _assignments(set):
        args += ["--set", assignment]
    if threads is not None:
        args += ["--threads", str(threads)]
    if baseline is not None:
        args += ["--baseline", baseline]
    for name, params in (model_params or {}).items():
        args += ["--model-params", "%s=%s" % (name, _json.dumps(params))]
    with _tempfile.TemporaryDirectory(prefix="gpumux-compare-") as scratch:
        folder = _os.fspath(out) if out is not None else _os.path.join(scratch, "compare")
        result = command(*(args + ["--out", folder]))
        return CompareResult(_json.loads(result.stdout), folder,
                             folder if out is not None else None)


def plan(scenario, models, objectives, set=None, seed=None, args=(), out=None):
    """Sizes the cluster (`gpumux plan`): for each sharing model the smallest cluster that meets
    every objective ("jct_s.p95<=3600", ...). args: further command-line options, e.g.
    ["--fleet"] or ["--max-nodes", "64"]. Returns what plan.json holds, with "exit_code" (3:
    some model met the objectives at no size)."""
    argv = ["plan", _scenario_path(scenario, "plan"), "--models", ",".join(models),
            "--format", "json"]
    for objective in ([objectives] if isinstance(objectives, str) else objectives):
        argv += ["--objective", objective]
    for assignment in _assignments(set):
        argv += ["--set", assignment]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if out is not None:
        argv += ["--out", _os.fspath(out)]
    result = command(*(argv + [str(a) for a in args]))
    answer = _json.loads(result.stdout)
    answer["exit_code"] = result.code
    return answer


def load_sweep(folder):
    """A sweep folder's runs as a table, one row per run that ended: `run` (its index),
    `scenario`, `model`, `seed`, one column per axis (its `set` path) and one per metric of
    sweep.csv (the catalogue's names). sweep.json, where pandas is present, is in
    attrs["sweep"]."""
    folder = _os.fspath(folder)
    path = _os.path.join(folder, "sweep.csv")
    plan_path = _os.path.join(folder, "sweep-plan.json")
    if not _os.path.exists(path) or not _os.path.exists(plan_path):
        raise InputError("%s: not a sweep folder (no sweep.csv or sweep-plan.json; run gpumux "
                         "sweep, or gpumux merge on it)" % folder, folder, "",
                         "no sweep.csv or sweep-plan.json")
    with open(plan_path) as f:
        planned = _json.load(f).get("runs", [])
    by_key = {}
    for run_entry in planned:
        row = {"run": run_entry["index"], "scenario": run_entry["scenario"],
               "model": run_entry["model"], "seed": run_entry["seed"]}
        for axis in run_entry.get("axes", []):
            row[axis["set"]] = axis["value"]
        by_key[(run_entry["variant"], str(run_entry["seed"]))] = row
    ended = {}  # the runs sweep.csv holds, in its order (dicts keep insertion order)
    with open(path, newline="") as f:
        for cell in _csv.DictReader(f):
            key = (cell["variant"], cell["seed"])
            if key not in by_key:
                raise InputError("%s: run '%s' seed %s is not in sweep-plan.json"
                                 % (path, cell["variant"], cell["seed"]), path, "variant",
                                 "not in sweep-plan.json")
            ended.setdefault(key, dict(by_key[key]))[cell["metric"]] = _number(cell["value"])
    runs = table(list(ended.values()))
    meta = _os.path.join(folder, "sweep.json")
    if has_pandas() and _os.path.exists(meta):
        with open(meta) as f:
            runs.attrs["sweep"] = _json.load(f)
    return runs


def sweep(sweep_file, out, threads=None, args=()):
    """Runs a sweep file's grid into `out` (`gpumux sweep`, resumable) and returns
    load_sweep(out). args: further options, e.g. ["--retry-failed"]."""
    argv = ["sweep", _os.fspath(sweep_file), "--out", _os.fspath(out), "--format", "json"]
    if threads is not None:
        argv += ["--threads", str(threads)]
    result = command(*(argv + [str(a) for a in args]))
    if result.code != 0:
        raise RuntimeError("gpumux sweep: some runs failed (exit %d): %s"
                           % (result.code, result.stderr.strip()))
    return load_sweep(out)


def models():
    """Every name a scenario may choose, by family (sharing models, service engines, queue and
    placement policies, trace formats), Python policies registered here included."""
    return table(_gpumux.model_rows())


def metrics():
    """Every metric: name (dotted path under summary.json's metrics), unit, which way is better,
    summary."""
    return table(_gpumux.metric_rows())


def register_placement(name, policy, summary="a placement policy written in Python"):
    """Adds a placement policy that scenarios name in scheduler.placement.

    policy: a class (or any callable) giving one object per run, whose place(job, candidates)
    returns job.gpus GPU indices, or None to leave the job queued. job: a gpumux.Job;
    candidates: the gpumux.Candidate GPUs that admit the job now, by index. A pick outside
    them, or of the wrong size, fails the run with InputError. Raises ValueError for a name
    already taken.
    """
    _gpumux.register_placement(name, summary, policy)
