#!/usr/bin/python3
"""Record a batch-size sweep of two CPU training loops, for checking the `batch:scale=K` what-if
against measured runs.

Usage (from the repository root, Debian's python3-torch):

    /usr/bin/python3 examples/whatif/record_batch_sweep.py OUT_DIR

Two models, each trained at several batch sizes on in-memory data, torch.set_num_threads(1),
profiled with CPU activity and schedule(wait=1, warmup=2, active=20), one prof.step() per
iteration (a `.item()` of the loss each step, as a training loop that logs it does). Steps of a
millisecond move by 10-30% from run to run on a shared 2-core machine, so every configuration is
recorded ROUNDS times, interleaved with the others, and the run whose mean step is the median of
its rounds is kept:

  mlp   64 -> 256 -> 256 -> 256 -> 10, Adam: its operators' work grows with the batch, while
        their dispatch and the Python around them stay (batch 4, 16, 64, 256)
  tiny  six Linear(16, 16) + tanh blocks, SGD: operators so small that dispatch is most of
        each step (batch 8, 32, 128)

  batch_<model>_b<B>.pt.trace.json.gz   one trace per model and batch size

`batch.json` records the core count and each run's mean and median ProfilerStep duration, read
back from the traces. `stepdoctor whatif batch_mlp_b4.pt.trace.json.gz --fix batch:scale=4`
predicts the step of batch_mlp_b16.
"""

import json
import os
import shutil
import statistics
import sys
import tempfile

import torch
import torch.nn as nn

from trace_files import output_folder, profile_cpu_steps

SEED = 1234
WAIT, WARMUP, ACTIVE = 1, 2, 20
ROUNDS = 3


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(6))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        for l in self.layers:
            x = torch.tanh(l(x)) * 0.5 + x
        return self.head(x)


def build(name):
    torch.manual_seed(SEED)
    if name == "mlp":
        net = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256),
                            nn.ReLU(), nn.Linear(256, 10))
        return net, torch.optim.Adam(net.parameters(), lr=1e-3), 64
    net = Tiny()
    return net, torch.optim.SGD(net.parameters(), lr=0.01), 16


def record(name, batch, out_path):
    net, opt, features = build(name)
    g = torch.Generator().manual_seed(SEED)
    x = torch.rand(batch, features, generator=g)
    y = torch.randint(0, 10, (batch,), generator=g)
    def step(_):
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()

    steps = profile_cpu_steps(step, WAIT, WARMUP, ACTIVE, out_path)
    return round(statistics.mean(steps), 3), round(statistics.median(steps), 3)


def main():
    out = output_folder(sys.argv, __doc__)
    configs = [(name, b) for name, batches in (("mlp", (4, 16, 64, 256)), ("tiny", (8, 32, 128))) for b in batches]
    tmp = tempfile.mkdtemp()
    rounds = {c: [] for c in configs}
    for r in range(ROUNDS):
        for name, b in configs:
            path = os.path.join(tmp, f"{name}_{b}_{r}.json.gz")
            rounds[(name, b)].append((*record(name, b, path), path))
    runs = []
    for name, b in configs:
        kept = sorted(rounds[(name, b)])[ROUNDS // 2]  # the round with the median mean step
        trace = f"batch_{name}_b{b}.pt.trace.json.gz"
        shutil.copyfile(kept[2], os.path.join(out, trace))
        row = {"model": name, "batch": b, "trace": trace, "mean_step_ms": kept[0], "median_step_ms": kept[1],
               "round_means_ms": [x[0] for x in rounds[(name, b)]]}
        runs.append(row)
        print(json.dumps(row), flush=True)
    shutil.rmtree(tmp)
    with open(os.path.join(out, "batch.json"), "w") as f:
        json.dump({"cores": os.cpu_count(), "torch": torch.__version__, "runs": runs}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
