#!/usr/bin/python3
"""Record a before/after pair for the `stalls` what-if: the same CPU training loop with a
checkpoint written every 4th step, then without.

Usage (from the repository root, Debian's python3-torch):

    /usr/bin/python3 examples/whatif/record_checkpoint_pair.py OUT_DIR

Writes OUT_DIR/checkpoint_every4.pt.trace.json.gz (before) and
OUT_DIR/checkpoint_off.pt.trace.json.gz (after): the MLP of record_input_sweep.py on in-memory
batches (no loading cost), torch.set_num_threads(1), profiled with CPU activity and
schedule(wait=1, warmup=2, active=12), one prof.step() per iteration. The before run saves the
model, the optimizer state and a 64 MB EMA copy with torch.save and fsync every 4th iteration,
inside the step, as a training script that checkpoints synchronously does. `checkpoint.json`
records each run's mean and median ProfilerStep duration, read back from the traces.
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
BATCH = 32
FEATURES = 512
WAIT, WARMUP, ACTIVE = 1, 2, 12
EVERY = 4
EMA_FLOATS = 16 * 1024 * 1024  # 64 MB of float32


def record(checkpoint, out_path, scratch):
    torch.manual_seed(SEED)
    net = nn.Sequential(nn.Linear(FEATURES, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    ema = torch.zeros(EMA_FLOATS)
    g = torch.Generator().manual_seed(SEED)
    batches = [(torch.rand(BATCH, FEATURES, generator=g), torch.randint(10, (BATCH,), generator=g)) for _ in range(8)]
    def step(it):
        x, y = batches[it % len(batches)]
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if checkpoint and it % EVERY == EVERY - 1:
            path = os.path.join(scratch, "ckpt.pt")
            with open(path, "wb") as f:
                torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "ema": ema}, f)
                f.flush()
                os.fsync(f.fileno())

    steps = profile_cpu_steps(step, WAIT, WARMUP, ACTIVE, out_path)
    return {"mean_step_ms": round(statistics.mean(steps), 2), "median_step_ms": round(statistics.median(steps), 2)}


def main():
    out = output_folder(sys.argv, __doc__)
    scratch = tempfile.mkdtemp()
    result = {"cores": os.cpu_count(), "torch": torch.__version__, "every": EVERY}
    result["before"] = record(True, os.path.join(out, "checkpoint_every4.pt.trace.json.gz"), scratch)
    result["after"] = record(False, os.path.join(out, "checkpoint_off.pt.trace.json.gz"), scratch)
    shutil.rmtree(scratch)
    with open(os.path.join(out, "checkpoint.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
