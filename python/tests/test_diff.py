"""stepdoctor.diff on the two bundled examples: the same training, batches built per item on
the main thread (before) and kept in memory (after)."""

import unittest

from support import IN_MEMORY, INPUT_BOUND

import stepdoctor


class DiffExamples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = stepdoctor.diff(INPUT_BOUND, IN_MEMORY)

    def test_sides_and_verdicts(self):
        d = self.d
        self.assertEqual(d.kind, "diff")
        self.assertEqual(d.before.verdict.bottleneck, "input")
        self.assertNotEqual(d.after.verdict.bottleneck, "input")  # nothing left to wait on
        self.assertTrue(d.verdict_changed)
        self.assertTrue(d.before.inputs[0].endswith("dataloader_input_bound.pt.trace.json.gz"))
        self.assertEqual(d.before.step_count, d.after.step_count)

    def test_steps_faster_by_the_input_wait(self):
        d = self.d
        self.assertLess(d.after.median_step_ms, d.before.median_step_ms)
        self.assertGreater(d.speedup, 1.0)
        self.assertLess(d.step_delta_ms, 0.0)
        inp = d.category("input")
        self.assertIsNotNone(inp)
        self.assertLess(inp.delta_ms, 0.0)
        self.assertLess(inp.after_pct, inp.before_pct)
        self.assertAlmostEqual(inp.delta_ms, inp.after_ms - inp.before_ms, delta=0.01)

    def test_input_finding_goes_away(self):
        f = next(f for f in self.d.findings if f.id == "input_bound")
        self.assertIn(f.before, ("moderate", "high"))
        self.assertIn(f.after, (None, "none"))

    def test_fail_on_regression_in_the_other_direction(self):
        d = stepdoctor.diff(IN_MEMORY, INPUT_BOUND, fail_on="step_time_regression>5%")
        self.assertTrue(d.fail_on_met)
        self.assertEqual(d.exit_status, stepdoctor.EXIT_FAIL_ON)
        self.assertIn("step_time_regression>5%", d.fail_on_reasons[0])
        self.assertFalse(stepdoctor.diff(INPUT_BOUND, IN_MEMORY, fail_on="step_time_regression>5%").fail_on_met)

    def test_missing_side_raises(self):
        with self.assertRaises(stepdoctor.StepdoctorError) as cm:
            stepdoctor.diff(INPUT_BOUND, INPUT_BOUND + ".missing")
        self.assertIn(".missing", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
