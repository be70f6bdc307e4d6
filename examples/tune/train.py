"""A small CPU training loop for `stepdoctor tune` (docs/tune.md), whose speed depends on settings
passed as environment variables, so tune has something real to find:

- NUM_WORKERS (default 0): DataLoader workers. Each sample costs a storage wait (--wait-ms) and
  CPU time in Python (a deliberately slow "decode"), so with 0 workers the training process loads
  every batch itself, between steps; with workers the loading runs beside the training step.
- OMP_NUM_THREADS (read by torch at start-up): threads of the model's matrix products.
- CHECKPOINT_EVERY (default 0, never): saves the model and optimizer state every N steps (twice:
  the latest and a numbered copy), the way a job that checkpoints too often pays for it.

With --trace-dir DIR, steps 3-8 are recorded with torch.profiler and written to DIR as a Chrome
trace (`stepdoctor tune --profile DIR` diagnoses it).

Prints one line per step, e.g. `step 7 rate 9.81 steps/s loss 2.2871`; a negative NUM_WORKERS
stops it with the DataLoader's error.

    stepdoctor tune --metric 'rate ([0-9.]+) steps/s' --check-metric 'loss ([0-9.]+)' \\
        --knob NUM_WORKERS=0,2 --knob OMP_NUM_THREADS=1,2 -- /usr/bin/python3 examples/tune/train.py
"""
import argparse
import contextlib
import os
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

FEATURES = 256


class Decoded(Dataset):
    """Samples that wait on storage, then decode in pure Python (CPU time in the loading process)."""

    def __init__(self, cost, wait_s):
        self.cost = cost
        self.wait_s = wait_s

    def __len__(self):
        return 1_000_000

    def __getitem__(self, i):
        time.sleep(self.wait_s)  # the read: storage latency
        x = [((i * 31 + k) % 97) / 97.0 for k in range(FEATURES)]
        for _ in range(self.cost):
            x = [v * 0.99 + 0.01 for v in x]
        return torch.tensor(x), i % 10


def save_checkpoint(folder, step, model, opt):
    """The model and optimizer state as `last.pt` and `step-N.pt` (the previous one removed), each
    flushed to disk, as a job that keeps a numbered checkpoint beside the latest does."""
    state = {"model": model.state_dict(), "opt": opt.state_dict(), "step": step}
    for name in ("last.pt", f"step-{step}.pt"):
        with open(os.path.join(folder, name), "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
    previous = os.path.join(folder, f"step-{step - 1}.pt")
    if os.path.exists(previous):
        os.remove(previous)


def tracing(folder):
    """torch.profiler over CPU activity, one ProfilerStep#N per step, steps 3-8 written to `folder`."""
    if not folder:
        return contextlib.nullcontext()
    from torch.profiler import ProfilerActivity, profile, schedule

    out = os.path.join(folder, f"train-{os.getpid()}.pt.trace.json")
    return profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=6, repeat=1),
                   on_trace_ready=lambda p: p.export_chrome_trace(out))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=12, help="training steps, then exit")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--cost", type=int, default=4, help="decode passes per sample (CPU time per sample)")
    p.add_argument("--wait-ms", type=float, default=2.0, help="storage latency per sample")
    p.add_argument("--trace-dir", help="record steps 3-8 with torch.profiler into this folder")
    a = p.parse_args()
    torch.manual_seed(0)
    workers = int(os.environ.get("NUM_WORKERS", "0"))
    checkpoint_every = int(os.environ.get("CHECKPOINT_EVERY", "0"))
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                torch.nn.ReLU(), torch.nn.Linear(1024, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(Decoded(a.cost, a.wait_ms / 1000), batch_size=a.batch, num_workers=workers)
    with tempfile.TemporaryDirectory(dir=os.environ.get("CHECKPOINT_DIR")) as scratch, tracing(a.trace_dir) as prof:
        last = time.perf_counter()
        for step, (x, y) in enumerate(loader, start=1):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if checkpoint_every and step % checkpoint_every == 0:
                save_checkpoint(scratch, step, model, opt)
            now = time.perf_counter()
            print(f"step {step} rate {1.0 / (now - last):.2f} steps/s loss {loss.item():.4f}", flush=True)
            last = now
            if prof is not None:
                prof.step()
            if step >= a.steps:
                break


if __name__ == "__main__":
    main()
