"""The Python package gpumux (python/, docs/python.md): runs, compares, sweeps and plans in
this process give what the command line gives; bad input raises InputError with the command
line's file, pointer and field; a placement policy written in Python places as its C++ twin.

Run by CTest (tests/python/CMakeLists.txt) with PYTHONPATH at the built package and
GPUMUX_SOURCE_DIR at the source tree."""

import json
import os
import sys
import tempfile
import unittest

import gpumux

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import placement_twins  # noqa: E402

SOURCE = os.environ.get("GPUMUX_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
QUICKSTART = os.path.join(SOURCE, "scenarios", "examples", "quickstart.json")
VOICE = os.path.join(SOURCE, "scenarios", "examples", "inference_a100_voice_timeslice.json")
TINY_SWEEP = os.path.join(SOURCE, "scenarios", "sweeps", "queues_tiny.json")


def rows(frame):
    """A table as a list of dicts, whether pandas made it or not; empty cells as None (pandas
    reads them as NaN, which equals nothing)."""
    if gpumux.has_pandas():
        return frame.astype(object).where(frame.notna(), None).to_dict("records")
    return frame


def register_once(name, policy):
    if name not in {r["name"] for r in rows(gpumux.models())}:
        gpumux.register_placement(name, policy)


class RunTest(unittest.TestCase):
    def test_a_run_gives_the_summary_and_tables_the_command_line_writes(self):
        result = gpumux.run(QUICKSTART)
        self.assertEqual(result.metric("jobs.arrived"), 60)
        self.assertEqual(result.metric("jobs.finished"), 60)
        self.assertEqual(len(rows(result.jobs)), 60)
        self.assertGreater(len(rows(result.timeseries)), 10)
        self.assertIsNone(result.out_dir)  # a temporary folder, removed
        with tempfile.TemporaryDirectory() as d:
            cli = gpumux.command("run", QUICKSTART, "--out", d + "/run", "--quiet")
            self.assertEqual(cli.code, 0)
            with open(d + "/run/summary.json") as f:
                self.assertEqual(json.load(f), result.summary)

    def test_the_same_seed_gives_the_same_summary_and_another_seed_another(self):
        first = gpumux.run(QUICKSTART, set={"sharing.model": "timeslice"}, seed=7)
        again = gpumux.run(QUICKSTART, set={"sharing.model": "timeslice"}, seed=7)
        other = gpumux.run(QUICKSTART, set={"sharing.model": "timeslice"}, seed=8)
        self.assertEqual(first.summary, again.summary)
        self.assertNotEqual(first.metric("jct_s.mean"), other.metric("jct_s.mean"))
        self.assertEqual(first.summary["scenario"]["sharing"]["model"], "timeslice")
        self.assertEqual(first.summary["scenario"]["seed"], 7)

    def test_a_dict_scenario_runs_as_its_file_does(self):
        with open(QUICKSTART) as f:
            document = json.load(f)
        from_dict = gpumux.run(document, base_dir=os.path.dirname(QUICKSTART))
        from_file = gpumux.run(QUICKSTART)
        self.assertEqual(from_dict.summary["metrics"], from_file.summary["metrics"])

    def test_out_keeps_the_files(self):
        with tempfile.TemporaryDirectory() as d:
            result = gpumux.run(QUICKSTART, out=os.path.join(d, "kept"))
            self.assertEqual(result.out_dir, os.path.join(d, "kept"))
            self.assertTrue(os.path.exists(os.path.join(d, "kept", "jobs.csv")))

    def test_requests_has_a_row_per_service(self):
        result = gpumux.run(VOICE)
        services = result.summary["metrics"]["requests"]["services"]
        table = rows(result.requests)
        self.assertEqual(len(table), len(services))
        self.assertGreater(len(table), 0)
        self.assertEqual([r["id"] for r in table], [s["id"] for s in services])
        self.assertEqual(table[0]["latency_ms.p99"], services[0]["latency_ms"]["p99"])
        self.assertEqual(len(rows(gpumux.run(QUICKSTART).requests)), 0)


class InputErrorTest(unittest.TestCase):
    def test_an_unknown_model_names_the_pointer_and_field(self):
        with self.assertRaises(gpumux.InputError) as caught:
            gpumux.run(QUICKSTART, set={"sharing.model": "nope"})
        error = caught.exception
        self.assertIn("quickstart.json#/sharing/model", error.where)
        self.assertEqual(error.field, "model")
        self.assertIn("unknown sharing model 'nope'", error.detail)
        self.assertIsInstance(error, ValueError)

    def test_a_missing_file_and_a_bad_option_raise_input_error(self):
        with self.assertRaises(gpumux.InputError) as caught:
            gpumux.run(os.path.join(SOURCE, "no-such-scenario.json"))
        self.assertIn("no-such-scenario.json", str(caught.exception))
        with self.assertRaises(gpumux.InputError) as caught:
            gpumux.command("run", QUICKSTART, "--no-such-option")
        self.assertEqual(caught.exception.where, "command line")
        with self.assertRaises(gpumux.InputError):
            gpumux.load_sweep(os.path.join(SOURCE, "no-such-sweep"))

    def test_a_scenario_dict_with_a_bad_field_names_it(self):
        with open(QUICKSTART) as f:
            document = json.load(f)
        document["cluster"]["node_groups"][0]["gpus_per_node"] = -1
        with self.assertRaises(gpumux.InputError) as caught:
            gpumux.run(document, base_dir=os.path.dirname(QUICKSTART))
        self.assertIn("scenario (dict)#/cluster/node_groups/0", caught.exception.where)
        self.assertEqual(caught.exception.field, "gpus_per_node")


class CompareSweepPlanTest(unittest.TestCase):
    def test_compare_gives_means_per_model_and_metric(self):
        result = gpumux.compare(QUICKSTART, ["exclusive", "timeslice"], seeds=2)
        means = rows(result.means)
        self.assertEqual(sorted({r["model"] for r in means}), ["exclusive", "timeslice"])
        finished = [r for r in means if r["metric"] == "jobs.finished"]
        self.assertEqual([r["mean"] for r in finished], [60.0, 60.0])
        self.assertTrue(all(r["n"] == 2 for r in means))
        per_seed = rows(result.table)
        self.assertEqual(sorted({r["seed"] for r in per_seed}), [42, 43])

    def test_a_sweep_loads_into_one_table_row_per_run(self):
        with tempfile.TemporaryDirectory() as d:
            runs = gpumux.sweep(TINY_SWEEP, out=os.path.join(d, "sweep"), threads=1)
            table = rows(runs)
            self.assertEqual(len(table), 8)  # 2 models x 2 queue policies x 2 seeds
            again = rows(gpumux.load_sweep(os.path.join(d, "sweep")))
            self.assertEqual(table, again)
            self.assertEqual(sorted({(r["model"], r["scheduler.queue"], r["seed"]) for r in table}),
                             sorted((m, q, s) for m in ("exclusive", "timeslice")
                                    for q in ("fifo", "fifo-backfill") for s in (42, 43)))
            self.assertTrue(all(r["jobs.finished"] == 60 for r in table))
            if gpumux.has_pandas():
                self.assertEqual(runs.attrs["sweep"]["sweep"]["name"], "queues-tiny")
                # a figure's data in one line: JCT p95 per model and queue, mean over seeds
                means = runs.groupby(["model", "scheduler.queue"])["jct_s.p95"].mean()
                self.assertEqual(len(means), 4)

    def test_plan_answers_per_model(self):
        answer = gpumux.plan(QUICKSTART, ["exclusive", "timeslice"], ["jct_s.p95<=3000"],
                             args=["--no-sensitivity"])
        self.assertEqual(answer["exit_code"], 0)
        self.assertTrue(answer["all_met"])


class ListingTest(unittest.TestCase):
    def test_models_and_metrics_list_what_the_command_line_lists(self):
        names = {(r["family"], r["name"]) for r in rows(gpumux.models())}
        self.assertIn(("sharing model", "mps"), names)
        self.assertIn(("placement policy", "first-fit"), names)
        metrics = {r["name"]: r for r in rows(gpumux.metrics())}
        self.assertEqual(metrics["jct_s.p95"]["better"], "lower")
        self.assertEqual(metrics["gpu_allocation_ratio"]["better"], "higher")


class PythonPlacementTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        register_once("py-first-fit", placement_twins.FirstFit)

    def assert_same_as_cpp(self, model):
        settings = {"sharing.model": model}
        cpp = gpumux.run(QUICKSTART, set=dict(settings, **{"scheduler.placement": "first-fit"}))
        py = gpumux.run(QUICKSTART, set=dict(settings, **{"scheduler.placement": "py-first-fit"}))
        self.assertEqual(rows(py.jobs), rows(cpp.jobs))
        self.assertEqual(py.summary["metrics"], cpp.summary["metrics"])

    def test_python_first_fit_places_as_the_cpp_one_on_exclusive_gpus(self):
        self.assert_same_as_cpp("exclusive")

    def test_python_first_fit_places_as_the_cpp_one_on_shared_gpus(self):
        self.assert_same_as_cpp("timeslice")

    def test_the_table_lists_it_and_a_second_registration_is_refused(self):
        placements = {r["name"] for r in rows(gpumux.models())
                      if r["family"] == "placement policy"}
        self.assertIn("py-first-fit", placements)
        with self.assertRaises(ValueError):
            gpumux.register_placement("py-first-fit", placement_twins.FirstFit)
        with self.assertRaises(ValueError):
            gpumux.register_placement("first-fit", placement_twins.FirstFit)

    def test_a_policy_that_leaves_jobs_queued_delays_them(self):
        register_once("py-wait-once", placement_twins.CountsDecisions)
        waited = gpumux.run(QUICKSTART, set={"scheduler.placement": "py-wait-once"})
        self.assertEqual(waited.metric("jobs.finished"), 60)

    def test_a_wrong_pick_fails_the_run_naming_the_policy(self):
        register_once("py-unlisted", placement_twins.PicksAnUnlistedGpu)
        register_once("py-too-few", placement_twins.PicksTooFew)
        with self.assertRaises(gpumux.InputError) as caught:
            gpumux.run(QUICKSTART, set={"scheduler.placement": "py-unlisted"})
        self.assertEqual(caught.exception.where, "placement policy 'py-unlisted'")
        self.assertIn("not among the GPUs that admit it", str(caught.exception))
        with self.assertRaises(gpumux.InputError) as caught:
            gpumux.run(QUICKSTART, set={"scheduler.placement": "py-too-few"})
        self.assertIn("picked 0 GPUs", str(caught.exception))
        register_once("py-not-an-index", placement_twins.PicksNotAnIndex)
        with self.assertRaises(gpumux.InputError) as caught:
            gpumux.run(QUICKSTART, set={"scheduler.placement": "py-not-an-index"})
        self.assertIn("place() returned '0' for job", str(caught.exception))
        self.assertIn("not a GPU index", str(caught.exception))

    def test_numpy_integers_are_gpu_indices(self):
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("numpy is not installed")
        register_once("py-numpy", placement_twins.PicksNumpyIndices)
        result = gpumux.run(QUICKSTART, set={"scheduler.placement": "py-numpy"})
        self.assertEqual(result.metric("jobs.finished"), 60)

    def test_the_policy_s_own_exception_reaches_the_caller(self):
        register_once("py-raises", placement_twins.Raises)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "failed")
            with self.assertRaises(ZeroDivisionError):
                gpumux.run(QUICKSTART, set={"scheduler.placement": "py-raises"}, out=out)
            self.assertFalse(os.path.exists(out))  # a failed run leaves no folder


if __name__ == "__main__":
    unittest.main(verbosity=2)
