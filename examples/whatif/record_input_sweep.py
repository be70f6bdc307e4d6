#!/usr/bin/python3
"""Record before/after PyTorch profiler traces of one CPU training loop, for checking what-if
predictions against measured runs.

Usage (from the repository root, Debian's python3-torch):

    /usr/bin/python3 examples/whatif/record_input_sweep.py OUT_DIR [COST_MS ...]

For each per-item load cost (default 0.5 1 2 4 ms) it trains the same MLP on synthetic data
twice, each under torch.profiler (CPU activity, schedule wait=1 warmup=2 active=10, one
prof.step() per iteration, so every step is a ProfilerStep#N):

  cost<C>_workers0.pt.trace.json.gz  DataLoader(num_workers=0): the training process builds
                                     every batch itself (the "before" run)
  cost<C>_workers2.pt.trace.json.gz  the same loop with num_workers=2 (the "after" run)

Each item's load is a fixed amount of pure-Python CPU work (a loop calibrated once to COST_MS
on this machine), so it costs the same CPU time whether it runs in the training process or in a
worker, and holds one core while it runs. torch uses one intra-op thread, so the training
process needs one core for its compute. `measured.json` records the machine's core count, the
cost, and the median ProfilerStep duration of every run, read back from the traces.
"""

import json
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from trace_files import profile_cpu_steps

SEED = 1234
BATCH = 32
FEATURES = 512
WAIT, WARMUP, ACTIVE = 1, 2, 10


def calibrate_loops_per_ms():
    """Iterations of spin() that take one millisecond of CPU time here (best of 5)."""
    n = 200000
    best = float("inf")
    for _ in range(5):
        t = time.process_time()
        spin(n)
        best = min(best, time.process_time() - t)
    return int(n / (best * 1000.0))


def spin(n):
    acc = 0
    for i in range(n):
        acc += i * i
    return acc


class CostlyItems(Dataset):
    def __init__(self, loops):
        self.loops = loops

    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        spin(self.loops)  # the per-item decode/augment cost
        g = torch.Generator().manual_seed(SEED + i)
        return torch.rand(FEATURES, generator=g), i % 10


def model():
    torch.manual_seed(SEED)
    # About 75 ms of forward + backward + SGD per batch on one core of the 2-core machine used.
    return nn.Sequential(nn.Linear(FEATURES, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def record(loops, workers, out_path):
    net = model()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    extra = {"persistent_workers": True, "prefetch_factor": 2} if workers else {}
    loader = DataLoader(CostlyItems(loops), batch_size=BATCH, num_workers=workers, **extra)
    it = iter(loader)

    def step(_):
        x, y = next(it)
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    return statistics.median(profile_cpu_steps(step, WAIT, WARMUP, ACTIVE, out_path))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    costs = [float(c) for c in sys.argv[2:]] or [0.5, 1.0, 2.0, 4.0]
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    per_ms = calibrate_loops_per_ms()
    runs = []
    for c in costs:
        loops = int(per_ms * c)
        row = {"cost_ms_per_item": c, "batch": BATCH}
        for w in (0, 2):
            name = f"cost{c:g}_workers{w}.pt.trace.json.gz"
            row[f"workers{w}_trace"] = name
            row[f"workers{w}_median_step_ms"] = round(record(loops, w, os.path.join(out, name)), 2)
        runs.append(row)
        print(json.dumps(row), flush=True)
    with open(os.path.join(out, "measured.json"), "w") as f:
        json.dump({"cores": os.cpu_count(), "torch": torch.__version__, "runs": runs}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
