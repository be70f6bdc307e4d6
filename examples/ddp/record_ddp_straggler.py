#!/usr/bin/env python3
"""Record real two-rank DistributedDataParallel traces (PyTorch profiler, Kineto) in which one
rank is a straggler.

    python3 examples/ddp/record_ddp_straggler.py OUT_DIR

Two processes (gloo backend, CPU tensors, 2 threads each) train the same MLP under DDP. Rank 1
also runs a slow "augmentation" (extra matrix products inside record_function) every step, so
rank 0 waits for it in the gradient all-reduce. Each rank writes
OUT_DIR/ddp_rank<R>.pt.trace.json.gz (schedule wait=1, warmup=1, active=5). Runs on CPU with
Debian's python3-torch (/usr/bin/python3); that torch has no Kineto, so the traces come out in
the autograd profiler's format (a PyTorch with Kineto writes Kineto traces instead).
"""

import gzip
import os
import shutil
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, record_function, schedule

WAIT, WARMUP, ACTIVE = 1, 1, 5


def run(rank, world, out):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29511")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(1234)
    torch.set_num_threads(2)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(128, 1024), torch.randn(128, 1024)
    extra = torch.randn(768, 768)
    tmp = tempfile.mkdtemp()
    raw = os.path.join(tmp, "trace.json")
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE),
                 on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(WAIT + WARMUP + ACTIVE):
            if rank == 1:
                with record_function("slow_augmentation"):
                    for _ in range(12):
                        extra = torch.tanh(extra @ extra / 768.0)
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            prof.step()
    path = os.path.join(out, f"ddp_rank{rank}.pt.trace.json.gz")
    with open(raw, "rb") as src, gzip.GzipFile(path, "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(tmp)
    dist.destroy_process_group()
    print(f"rank {rank}: wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    mp.spawn(run, args=(2, out), nprocs=2)
