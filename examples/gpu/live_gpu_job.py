#!/usr/bin/env python3
"""A GPU training job that is input-bound, for `stepdoctor run` on a machine with a GPU.

    stepdoctor run --interval 200ms -- python3 examples/gpu/live_gpu_job.py [SECONDS]

Trains the CNN of record_gpu_dataloader.py for SECONDS (default 15) with num_workers=0 and a
CPU-heavy Dataset: the GPU waits while one CPU core builds every batch.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from record_gpu_dataloader import BATCH, Net, SlowImages

if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 15.0
    dev = torch.device("cuda")
    model = Net().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    end = time.time() + seconds
    steps = 0
    for x, y in DataLoader(SlowImages(), batch_size=BATCH, num_workers=0):
        x, y = x.to(dev), y.to(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
        if time.time() > end:
            break
    torch.cuda.synchronize()
    print(f"{steps} steps in {seconds:.0f} s")
