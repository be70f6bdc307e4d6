"""stepdoctor.torch.trace_handler on a real (small, CPU) PyTorch training loop whose
DataLoader runs on the main thread (num_workers=0) with a slow __getitem__: the step waits on
input, and the diagnosis of the trace the handler wrote must say so."""

import contextlib
import io
import os
import tempfile
import time
import unittest
import unittest.mock

from support import torch_missing

import stepdoctor

TORCH_MISSING = torch_missing()

ITEM_SLEEP_S = 0.004  # per item: 32 ms of input wait per batch of 8, against well under 1 ms of compute
BATCH = 8
WAIT, WARMUP, ACTIVE = 1, 1, 4  # the profiler schedule: 4 recorded steps


def train(on_trace_ready):
    """Profiles WAIT+WARMUP+ACTIVE iterations of a linear model under torch.profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule
    from torch.utils.data import DataLoader, Dataset

    class SlowDataset(Dataset):
        def __len__(self):
            return BATCH * (WAIT + WARMUP + ACTIVE)

        def __getitem__(self, i):
            time.sleep(ITEM_SLEEP_S)  # decoding / augmentation on the main thread
            return torch.full((16,), float(i)), i % 2

    torch.manual_seed(0)
    model = torch.nn.Linear(16, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(SlowDataset(), batch_size=BATCH, num_workers=0)
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1),
                 on_trace_ready=on_trace_ready) as prof:
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            prof.step()


@unittest.skipIf(TORCH_MISSING, TORCH_MISSING)
class TraceHandler(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = os.path.join(self.tmp.name, "log")  # created by torch's handler

    def run_training(self, **kwargs):
        import stepdoctor.torch
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            train(stepdoctor.torch.trace_handler(self.dir, **kwargs))
        traces = sorted(os.listdir(self.dir))
        return out.getvalue(), traces

    def test_input_bound_loop_is_diagnosed_input(self):
        printed, files = self.run_training(worker_name="w0")
        traces = [f for f in files if f.endswith(".pt.trace.json")]
        self.assertEqual(len(traces), 1, files)
        self.assertTrue(traces[0].startswith("w0."), traces)  # torch's own naming
        path = os.path.join(self.dir, traces[0])

        report = stepdoctor.diagnose(path)
        self.assertEqual(report.verdict.bottleneck, "input", report.verdict.summary)
        self.assertEqual(report.coverage.device_activity, "cpu_only")
        self.assertEqual(report.steps.count + len(report.steps.warmup), ACTIVE)
        self.assertEqual(max(report.breakdown, key=report.breakdown.get), "input")
        # The handler printed that same verdict line, naming the trace.
        self.assertEqual(printed.strip(), f"{path}: {report.verdict.summary}")

    def test_gzip_and_html(self):
        import stepdoctor.torch
        printed, files = self.run_training(use_gzip=True, html=True)
        traces = [f for f in files if f.endswith(".pt.trace.json.gz")]
        self.assertEqual(len(traces), 1, files)
        path = os.path.join(self.dir, traces[0])
        html = stepdoctor.torch.html_path(path)
        self.assertEqual(os.path.dirname(html), self.dir)
        self.assertTrue(html.endswith(".pt.trace.html"), html)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        self.assertIn("<html", page[:500].lower())
        self.assertIn("input-bound", page)
        self.assertIn(path, printed)

    def test_summary_beside_the_trace_merges(self):
        import stepdoctor.torch
        printed, files = self.run_training(worker_name="rank0", use_gzip=True, summary=True)
        traces = [f for f in files if f.endswith(".pt.trace.json.gz")]
        self.assertEqual(len(traces), 1, files)
        summary = os.path.join(self.dir, traces[0] + ".sdsum")
        self.assertTrue(os.path.isfile(summary), files)
        # The folder of summaries diagnoses as its traces do.
        merged = stepdoctor.diagnose(summary)
        direct = stepdoctor.diagnose(os.path.join(self.dir, traces[0]))
        self.assertEqual(merged.verdict.summary, direct.verdict.summary)
        self.assertEqual(merged.steps.count, direct.steps.count)

    def test_finds_its_own_trace_beside_another_ranks(self):
        """Another rank writing into the same folder a moment later is not taken for ours."""
        import shutil
        import stepdoctor.torch
        from support import IN_MEMORY, INPUT_BOUND

        class Prof:  # what the handler uses of torch.profiler.profile
            def export_chrome_trace(self, path):
                shutil.copyfile(INPUT_BOUND, path)
                other = os.path.join(os.path.dirname(path), "rank1.99.pt.trace.json.gz")
                shutil.copyfile(IN_MEMORY, other)  # compute-bound: a wrong pick would show
                later = time.time_ns() + 10**9
                os.utime(other, ns=(later, later))

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            stepdoctor.torch.trace_handler(self.dir, worker_name="rank0", use_gzip=True)(Prof())
        self.assertRegex(out.getvalue(), r"/rank0\.\d+\.pt\.trace\.json\.gz: input-bound")

    def test_cli_missing_keeps_training_and_the_trace(self):
        err = io.StringIO()
        with unittest.mock.patch.dict(os.environ, {"STEPDOCTOR_BIN": "/nonexistent/stepdoctor"}):
            with contextlib.redirect_stderr(err):
                printed, files = self.run_training()
        self.assertEqual(len([f for f in files if f.endswith(".pt.trace.json")]), 1, files)
        self.assertEqual(printed, "")
        self.assertIn("trace written, not diagnosed", err.getvalue())
        self.assertIn("STEPDOCTOR_BIN", err.getvalue())


if __name__ == "__main__":
    unittest.main()
