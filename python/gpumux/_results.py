"""Tables for the package's results: pandas DataFrames where pandas is installed, plain lists of
dicts (numbers as int or float, empty cells as None) where it is not."""

import csv
import os

try:
    import pandas as _pandas
except ImportError:  # the package works without pandas: tables are lists of dicts
    _pandas = None


def has_pandas():
    return _pandas is not None


def number(text):
    """A CSV cell as int, float or the text itself; '' as None."""
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_csv(path):
    """The CSV file at `path` as a table; None when the file does not exist."""
    if not os.path.exists(path):
        return None
    if _pandas is not None:
        return _pandas.read_csv(path)
    with open(path, newline="") as f:
        return [{k: number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def table(rows):
    """A list of dicts as a table."""
    if _pandas is not None:
        return _pandas.DataFrame(rows)
    return list(rows)


def flatten(record, prefix=""):
    """A nested dict as one level with dotted keys; lists (CDF points) are left out."""
    flat = {}
    for key, value in record.items():
        name = prefix + key
        if isinstance(value, dict):
            flat.update(flatten(value, name + "."))
        elif not isinstance(value, list):
            flat[name] = value
    return flat


class RunResult:
    """One scenario's run (gpumux.run).

    summary: what summary.json holds (a dict).
    jobs: one row per job (jobs.csv). timeseries: cluster state over time (timeseries.csv).
    requests: one row per inference service, its request metrics flattened with dotted names
    (summary.json metrics.requests.services); empty without services.
    llm_timeseries: the LLM endpoints' series (llm_timeseries.csv), or None without endpoints.
    expect: the scenario's expect bounds, checked (a list of dicts; empty without bounds).
    out_dir: the folder holding the files, or None when the run wrote to a temporary one.
    warnings: what the command line prints on stderr before a run.
    wall_s: the run's wall time (not in summary, which must be the same on every run).
    """

    def __init__(self, summary, folder, out_dir, warnings, wall_s):
        self.summary = summary
        self.jobs = read_csv(os.path.join(folder, "jobs.csv"))
        self.timeseries = read_csv(os.path.join(folder, "timeseries.csv"))
        self.llm_timeseries = read_csv(os.path.join(folder, "llm_timeseries.csv"))
        services = summary.get("metrics", {}).get("requests", {}).get("services", [])
        self.requests = table([flatten(s) for s in services])
        self.expect = summary.get("expect", [])
        self.out_dir = out_dir
        self.warnings = list(warnings)
        self.wall_s = wall_s

    def metric(self, name):
        """A metric by its dotted name under summary.json's metrics (gpumux.metrics() lists
        them), e.g. "jct_s.p95"; None where the run has no value."""
        value = self.summary.get("metrics", {})
        for part in name.split("."):
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value

    def __repr__(self):
        jobs = self.summary.get("metrics", {}).get("jobs", {})
        return "RunResult(jobs finished %s of %s, out_dir=%r)" % (
            jobs.get("finished"), jobs.get("arrived"), self.out_dir)


class CompareResult:
    """Sharing models side by side (gpumux.compare).

    summary: what compare.json holds. table: compare.csv, one row per model (variant), seed
    and metric. means: one row per model and metric: the mean over seeds, the 95 % interval's
    half width and the number of seeds. out_dir: as RunResult's.
    """

    def __init__(self, summary, folder, out_dir):
        self.summary = summary
        self.table = read_csv(os.path.join(folder, "compare.csv"))
        rows = []
        for variant in summary.get("variants", []):
            for metric, value in sorted(variant.get("metrics", {}).items()):
                rows.append({"model": variant.get("model"), "metric": metric,
                             "mean": value.get("mean"),
                             "ci95_half_width": value.get("ci95_half_width"),
                             "n": value.get("n")})
        self.means = table(rows)
        self.out_dir = out_dir

    def __repr__(self):
        return "CompareResult(models=%r, out_dir=%r)" % (
            [v.get("model") for v in self.summary.get("variants", [])], self.out_dir)
