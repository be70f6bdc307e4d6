"""stepdoctor.diagnose on the bundled example, exit statuses 1 and 2, and finding the CLI."""

import gzip
import json
import os
import tempfile
import unittest
from unittest import mock

from support import EXAMPLES, INPUT_BOUND

import stepdoctor


class DiagnoseExample(unittest.TestCase):
    """examples/dataloader_input_bound: a CPU-only PyTorch loop, 6 profiled steps
    (ProfilerStep#N), whose DataLoader builds every batch on the main thread (num_workers=0)."""

    @classmethod
    def setUpClass(cls):
        cls.report = stepdoctor.diagnose(INPUT_BOUND)

    def test_verdict_is_input(self):
        r = self.report
        self.assertEqual(r.schema_version, 4)
        self.assertEqual(r.verdict.bottleneck, "input")
        self.assertTrue(r.verdict.summary.startswith("input-bound"), r.verdict.summary)
        self.assertEqual(r.exit_status, stepdoctor.EXIT_OK)
        self.assertFalse(r.fail_on_met)

    def test_coverage_and_steps(self):
        r = self.report
        self.assertEqual(r.coverage.framework, "pytorch")
        self.assertEqual(r.coverage.device_activity, "cpu_only")  # recorded on CPU
        self.assertEqual(r.coverage.steps, "markers")
        # Six active steps in the schedule; a warm-up step, if any, is listed apart.
        self.assertEqual(r.steps.count + len(r.steps.warmup), 6)
        self.assertFalse(r.steps.whole_window)
        self.assertEqual(len(r.steps.per_step), r.steps.count)
        self.assertEqual(len(r.steps.per_step[0].category_ms), len(r.steps.categories))
        self.assertIsInstance(r.steps.median_ms, float)

    def test_breakdown_input_is_the_largest_share(self):
        b = self.report.breakdown
        self.assertEqual(max(b, key=b.get), "input")
        self.assertAlmostEqual(sum(b.values()), 100.0, delta=0.5)
        self.assertGreater(self.report.breakdown_ms_per_step["input"], 0.0)

    def test_input_finding_with_evidence_and_fix(self):
        f = self.report.finding("input_bound")
        self.assertIsNotNone(f)
        self.assertEqual(self.report.findings[0].id, "input_bound")
        self.assertIn(f.severity, ("moderate", "high"))
        self.assertGreater(f.gain_upper_bound, 1.0)
        self.assertTrue(f.evidence and f.evidence[0].label and f.evidence[0].value)
        self.assertIn("DataLoader", f.top_events[0].name)
        self.assertIn("num_workers", f.fix.pytorch)
        self.assertEqual(f.fix.tensorflow, "")  # a PyTorch trace: its code is PyTorch's
        self.assertIsNone(self.report.finding("no_such_rule"))

    def test_one_path_or_several(self):
        r = stepdoctor.diagnose([INPUT_BOUND])
        self.assertEqual(r.verdict, self.report.verdict)


class ExitStatuses(unittest.TestCase):
    def test_missing_file_raises_with_the_cli_message(self):
        missing = os.path.join(os.path.dirname(INPUT_BOUND), "no_such_trace.json")
        with self.assertRaises(stepdoctor.StepdoctorError) as cm:
            stepdoctor.diagnose(missing)
        e = cm.exception
        self.assertEqual(e.exit_status, 2)
        self.assertIn(missing, e.message)
        self.assertNotIn("\n", e.message)
        self.assertEqual(str(e), e.message)

    def test_truncated_trace_is_a_partial_report(self):
        """The example cut in the middle of its events: a report of what was read, and a
        diagnostic saying the file ends early, not an exception."""
        with gzip.open(INPUT_BOUND, "rb") as f:
            data = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            cut = os.path.join(tmp, "cut.pt.trace.json")
            with open(cut, "wb") as f:
                f.write(data[: len(data) // 2])
            r = stepdoctor.diagnose(cut)
        self.assertEqual(r.exit_status, 0)
        self.assertTrue(any("ends early" in d and cut in d for d in r.diagnostics), r.diagnostics)
        self.assertGreaterEqual(r.steps.count, 1)

    def test_malformed_fail_on_is_exit_2(self):
        with self.assertRaises(stepdoctor.StepdoctorError) as cm:
            stepdoctor.diagnose(INPUT_BOUND, fail_on="no_such_rule>=high")
        self.assertEqual(cm.exception.exit_status, 2)
        self.assertIn("no_such_rule", cm.exception.message)

    def test_fail_on_met_is_returned_not_raised(self):
        r = stepdoctor.diagnose(INPUT_BOUND, fail_on=["verdict!=input", "input_bound>=moderate"])
        self.assertEqual(r.exit_status, stepdoctor.EXIT_FAIL_ON)
        self.assertTrue(r.fail_on_met)
        self.assertEqual(len(r.fail_on_reasons), 1)  # only the second condition holds
        self.assertIn("input_bound>=moderate", r.fail_on_reasons[0])
        self.assertEqual(r.verdict.bottleneck, "input")  # the report is still whole

    def test_fail_on_not_met(self):
        r = stepdoctor.diagnose(INPUT_BOUND, fail_on="verdict=host")
        self.assertEqual((r.exit_status, r.fail_on_met, r.fail_on_reasons), (0, False, []))

    def test_format_is_not_an_option(self):
        with self.assertRaises(TypeError):
            stepdoctor.diagnose(INPUT_BOUND, format="html")


class CriticalPathAndKernelTables(unittest.TestCase):
    """examples/gpu/gpu_dataloader_workers0: a GPU loop whose DataLoader runs in the training
    process; the critical path and kernel tables load into their dataclasses."""

    @classmethod
    def setUpClass(cls):
        cls.report = stepdoctor.diagnose(os.path.join(EXAMPLES, "gpu", "gpu_dataloader_workers0.pt.trace.json.gz"))

    def test_critical_path(self):
        c = self.report.critical_path
        self.assertIsInstance(c, stepdoctor.CriticalPath)
        self.assertEqual(len(c.steps), self.report.steps.count)
        self.assertIn(c.median_step, [s.step for s in c.steps])
        for s in c.steps:
            parts = s.host_ms + s.launch_ms + s.kernel_ms + s.copy_ms + s.wait_ms
            self.assertAlmostEqual(parts, s.step_ms, delta=0.01 * s.step_ms)
        kinds = {g.kind for g in c.median_segments}
        self.assertTrue(kinds <= {"host", "launch", "kernel", "copy", "wait"}, kinds)
        self.assertIn("host", kinds)

    def test_kernel_tables(self):
        k = self.report.kernel_tables
        self.assertEqual([o.op for o in k.ops], [t.name for t in self.report.top_ops])
        self.assertTrue(any(o.kernels > 0 for o in k.ops))
        self.assertIn("compute", [c.work_class for c in k.classes])
        self.assertGreater(k.launch_delays, 0)
        self.assertTrue(all(q.max_queued >= 1 for q in k.queues))

    def test_cpu_only_has_none(self):
        r = stepdoctor.diagnose(INPUT_BOUND)
        self.assertIsNone(r.critical_path)
        self.assertIsNone(r.kernel_tables)


class FindingTheCli(unittest.TestCase):
    def test_stepdoctor_bin_not_executable(self):
        with mock.patch.dict(os.environ, {"STEPDOCTOR_BIN": "/nonexistent/stepdoctor"}):
            with self.assertRaises(stepdoctor.StepdoctorError) as cm:
                stepdoctor.diagnose(INPUT_BOUND)
        self.assertIn("STEPDOCTOR_BIN=/nonexistent/stepdoctor", cm.exception.message)

    def test_not_on_path(self):
        env = {k: v for k, v in os.environ.items() if k != "STEPDOCTOR_BIN"}
        env["PATH"] = os.path.dirname(INPUT_BOUND)  # a folder with no stepdoctor in it
        with mock.patch.dict(os.environ, env, clear=True):
            with self.assertRaises(stepdoctor.StepdoctorError) as cm:
                stepdoctor.find_cli()
        self.assertIn("STEPDOCTOR_BIN", cm.exception.message)

    def test_found_on_path(self):
        cli = stepdoctor.find_cli()
        env = {k: v for k, v in os.environ.items() if k != "STEPDOCTOR_BIN"}
        env["PATH"] = os.path.dirname(cli)
        with mock.patch.dict(os.environ, env, clear=True):
            found = stepdoctor.find_cli()
        self.assertEqual(os.path.dirname(found), os.path.dirname(cli))


class Loading(unittest.TestCase):
    """Reports from newer and older CLIs: unknown keys ignored, missing ones defaulted."""

    def test_unknown_keys_ignored_missing_defaulted(self):
        data = {
            "schema_version": 3,
            "verdict": {"bottleneck": "host", "summary": "host-bound", "confidence_pct": 80},
            "steps": {"count": 2, "median_ms": 10, "per_step": [{"number": 1, "duration_ms": 9, "new": 1}]},
            "findings": [{"id": "host_bound", "severity": "high", "future_field": [1, 2],
                          "fix": {"summary": "s", "jax": "j"}}],
            "devices": [{"device": "GPU 0", "comm_comp_overlap_pct": None}],
            "a_new_section": {"x": 1},
        }
        r = stepdoctor.Report.from_json(json.loads(json.dumps(data)))
        self.assertEqual(r.verdict.bottleneck, "host")
        self.assertEqual(r.steps.median_ms, 10.0)
        self.assertIsInstance(r.steps.median_ms, float)
        self.assertEqual(r.steps.per_step[0].duration_ms, 9.0)
        self.assertEqual(r.findings[0].fix.summary, "s")
        self.assertIsNone(r.devices[0].comm_comp_overlap_pct)
        self.assertEqual(r.coverage.framework, "unknown")  # absent: default
        self.assertEqual(r.breakdown, {})
        self.assertEqual(r.raw["a_new_section"], {"x": 1})

    def test_process_fields_never_come_from_json(self):
        r = stepdoctor.Report.from_json({"exit_status": 5, "fail_on_met": True})
        self.assertEqual((r.exit_status, r.fail_on_met), (0, False))


if __name__ == "__main__":
    unittest.main()
