#!/usr/bin/env python3
"""Record real Kineto (PyTorch profiler) GPU traces of one training loop, two ways.

Usage (on a machine with a CUDA GPU and PyTorch >= 2):

    python3 examples/gpu/record_gpu_dataloader.py OUT_DIR

Writes OUT_DIR/gpu_dataloader_workers0.pt.trace.json.gz and
OUT_DIR/gpu_dataloader_workers8.pt.trace.json.gz: a small ResNet-style CNN trained on
synthetic 3x64x64 images (batch 64, SGD) whose Dataset does real per-item CPU work in
__getitem__ (augmentation with tensor ops). With num_workers=0 the training thread builds
every batch itself (input-bound); with num_workers=8 worker processes build them ahead.
Each run is profiled with activities CPU+CUDA, schedule(wait=2, warmup=2, active=5), and
prof.step() every iteration, so the trace has ProfilerStep#N, cpu_op, cuda_runtime and
kernel events with correlation ids.
"""

import gzip
import os
import shutil
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset

SEED = 1234
BATCH = 64
SHAPE = (3, 64, 64)
AUG_ROUNDS = 4
WAIT, WARMUP, ACTIVE = 2, 2, 5


class SlowImages(Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(SEED + i)
        x = torch.rand(SHAPE, generator=g)
        k = torch.full((3, 1, 3, 3), 1.0 / 9)
        for _ in range(AUG_ROUNDS):
            x = F.conv2d(x.unsqueeze(0), k, padding=1, groups=3).squeeze(0)
            x = torch.flip(x, dims=[2]) if (i % 2) else x
            x = (x - x.mean()) / (x.std() + 1e-5)
        return x, i % 10


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 3, padding=1)
        self.blocks = nn.Sequential(*[nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU())
                                      for _ in range(6)])
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        return self.head(x.mean(dim=(2, 3)))


def record(workers, out_path):
    torch.manual_seed(SEED)
    dev = torch.device("cuda")
    model = Net().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(SlowImages(), batch_size=BATCH, shuffle=False, num_workers=workers,
                        pin_memory=workers > 0, persistent_workers=workers > 0)
    it = iter(loader)
    tmp = tempfile.mkdtemp()
    raw = os.path.join(tmp, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(WAIT + WARMUP + ACTIVE):
            x, y = next(it)
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            prof.step()
    torch.cuda.synchronize()
    with open(raw, "rb") as src, gzip.GzipFile(out_path, "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(tmp)
    print(f"wrote {out_path} ({os.path.getsize(out_path)} bytes)")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    record(0, os.path.join(out, "gpu_dataloader_workers0.pt.trace.json.gz"))
    record(8, os.path.join(out, "gpu_dataloader_workers8.pt.trace.json.gz"))
