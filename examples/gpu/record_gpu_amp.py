#!/usr/bin/env python3
"""Record a Kineto GPU trace of the same training loop in bf16 mixed precision.

    python3 examples/gpu/record_gpu_amp.py OUT_DIR

Writes OUT_DIR/gpu_amp_bf16.pt.trace.json.gz: the CNN of record_gpu_dataloader.py plus a wide
MLP head (so there are GEMMs as well as convolutions), batches prepared in worker processes
(num_workers=8), the forward pass under torch.autocast(device_type="cuda", dtype=torch.bfloat16).
Prints the kernel names with their total time, to see how this cuBLAS/cuDNN names them.
"""

import collections
import gzip
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader

from record_gpu_dataloader import BATCH, Net, SlowImages

WAIT, WARMUP, ACTIVE = 2, 2, 5


class AmpNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = Net()
        self.mlp = nn.Sequential(nn.Linear(10, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))

    def forward(self, x):
        return self.mlp(self.cnn(x))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(1234)
    dev = torch.device("cuda")
    model = AmpNet().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(SlowImages(), batch_size=BATCH, num_workers=8, pin_memory=True, persistent_workers=True)
    it = iter(loader)
    tmp = tempfile.mkdtemp()
    raw = os.path.join(tmp, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(WAIT + WARMUP + ACTIVE):
            x, y = next(it)
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            prof.step()
    torch.cuda.synchronize()
    path = os.path.join(out, "gpu_amp_bf16.pt.trace.json.gz")
    with open(raw, "rb") as src, gzip.GzipFile(path, "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    kernels = collections.Counter()
    for e in json.load(open(raw))["traceEvents"]:
        if e.get("cat") == "kernel":
            kernels[e["name"][:110]] += e.get("dur", 0)
    for name, us in kernels.most_common(25):
        print(f"{us:10.1f} us  {name}")
    shutil.rmtree(tmp)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")
