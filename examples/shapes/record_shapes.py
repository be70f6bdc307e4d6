#!/usr/bin/python3
"""Record small PyTorch CPU traces of training loops whose bottleneck is known by construction,
each in a shape of profiler use the other examples do not cover.

Usage (from the repository root, Debian's python3-torch):

    /usr/bin/python3 examples/shapes/record_shapes.py OUT_DIR [SHAPE ...]

With no SHAPE every shape is recorded. Each writes OUT_DIR/<shape>.pt.trace.json.gz (the
`cycles` shape writes a folder, OUT_DIR/cycles/, one file per profiling cycle as
tensorboard_trace_handler names them). `torch.set_num_threads(1)`; each run takes seconds.
This torch (1.13, no Kineto) writes the autograd profiler's Chrome format whatever API records:
a bare JSON array of complete events, no categories, no args (shapes, memory and stacks are
kept in the profiler's tables, not in the exported trace). README.md says what each shape
shows and its truth.
"""

import gzip
import os
import shutil
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler
from torch.utils.data import DataLoader, Dataset

SEED = 1234


def gzip_file(raw_path, out_path):
    """Compresses raw_path into out_path (mtime 0, no file name in the header)."""
    with open(raw_path, "rb") as f, open(out_path, "wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
            shutil.copyfileobj(f, gz)


def mlp(width=512, depth=2, classes=10):
    layers, d = [], width
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.ReLU()]
    layers.append(nn.Linear(width, classes))
    return nn.Sequential(*layers)


def batches(n, batch, features, classes=10):
    g = torch.Generator().manual_seed(SEED)
    return [(torch.rand(batch, features, generator=g), torch.randint(classes, (batch,), generator=g)) for _ in range(n)]


def train_step(net, opt, x, y):
    loss = F.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def profiled(raw, wait=1, warmup=1, active=6, **kw):
    """torch.profiler over CPU activity with a schedule: one ProfilerStep#N per prof.step()."""
    return profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
                   on_trace_ready=lambda p: p.export_chrome_trace(raw), **kw)


def run_steps(raw, n_steps, body, **kw):
    wait, warmup = kw.pop("wait", 1), kw.pop("warmup", 1)
    with profiled(raw, wait=wait, warmup=warmup, active=n_steps, **kw) as prof:
        for it in range(wait + warmup + n_steps):
            body(it)
            prof.step()


# --- shapes --------------------------------------------------------------------------------------


def shape_cycles(out_dir, tmp):
    """schedule(wait=1, warmup=1, active=3, repeat=2) with tensorboard_trace_handler: two files,
    ProfilerStep# numbered across the cycles. Compute-bound MLP on in-memory batches."""
    net, data = mlp(512, 2), batches(4, 32, 512)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    folder = os.path.join(tmp, "cycles")
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3, repeat=2),
                 on_trace_ready=tensorboard_trace_handler(folder, worker_name="shapes")) as prof:
        for it in range(12):
            train_step(net, opt, *data[it % len(data)])
            prof.step()
    dest = os.path.join(out_dir, "cycles")
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(folder)):
        gzip_file(os.path.join(folder, name), os.path.join(dest, name + ".gz"))


def shape_no_markers(out_path, raw):
    """torch.profiler.profile without a schedule (so prof.step() records no ProfilerStep) over a
    compute-bound training loop with torch.optim: iterations only from Optimizer.step#."""
    net, data = mlp(512, 2), batches(4, 32, 512)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for it in range(2):
        train_step(net, opt, *data[it])
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for it in range(8):
            train_step(net, opt, *data[it % len(data)])
    prof.export_chrome_trace(raw)
    gzip_file(raw, out_path)


def shape_named_steps(out_path, raw):
    """No schedule, no DataLoader, no torch.optim (a hand-written SGD update): the only step
    structure is record_function(f"train_step_{i}") around each iteration, with "forward" and
    "backward" ranges inside. Compute-bound."""
    net, data = mlp(512, 2), batches(4, 32, 512)
    for it in range(2):
        F.cross_entropy(net(data[it][0]), data[it][1]).backward()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for it in range(8):
            x, y = data[it % len(data)]
            with record_function(f"train_step_{it}"):
                with record_function("forward"):
                    loss = F.cross_entropy(net(x), y)
                with record_function("backward"):
                    loss.backward()
                with torch.no_grad():
                    for p in net.parameters():
                        p -= 0.01 * p.grad
                        p.grad = None
    prof.export_chrome_trace(raw)
    gzip_file(raw, out_path)


def shape_inference_no_markers(out_path, raw):
    """An evaluation loop (no_grad, no optimizer, no DataLoader, no ranges): nothing marks an
    iteration, so the window is one region. Compute-bound."""
    net, data = mlp(512, 2), batches(4, 64, 512)
    net.eval()
    with torch.no_grad():
        net(data[0][0])
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for it in range(8):
                net(data[it % len(data)][0]).argmax(1)
    prof.export_chrome_trace(raw)
    gzip_file(raw, out_path)


def shape_shapes_memory_stack(out_path, raw):
    """record_shapes=True, profile_memory=True, with_stack=True around a small CNN: the profiler
    keeps more, the exported trace of this torch does not change shape. Compute-bound."""
    net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1),
                        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 8 * 8, 10))
    g = torch.Generator().manual_seed(SEED)
    data = [(torch.rand(32, 3, 32, 32, generator=g), torch.randint(10, (32,), generator=g)) for _ in range(4)]
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    run_steps(raw, 6, lambda it: train_step(net, opt, *data[it % len(data)]), record_shapes=True,
              profile_memory=True, with_stack=True)
    gzip_file(raw, out_path)


class SlowItems(Dataset):
    """Items whose load is `cost_ms` of pure-Python CPU work (a decode stand-in)."""

    def __init__(self, n, features, cost_ms):
        self.n, self.features, self.cost_ms = n, features, cost_ms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        end = time.perf_counter() + self.cost_ms / 1e3
        acc = 0
        while time.perf_counter() < end:
            acc += sum(range(100))
        g = torch.Generator().manual_seed(SEED + i)
        return torch.rand(self.features, generator=g), i % 10


def loader_run(out_path, raw, cost_ms, workers):
    net = mlp(256, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loader = DataLoader(SlowItems(4096, 256, cost_ms), batch_size=32, num_workers=workers, pin_memory=True,
                        persistent_workers=workers > 0, prefetch_factor=2)
    it_loader = iter(loader)
    # wait=4: the batches the workers made ahead before profiling are used up first.
    with profiled(raw, wait=4, warmup=1, active=6) as prof:
        for it in range(11):
            x, y = next(it_loader)
            train_step(net, opt, x, y)
            prof.step()
    del it_loader
    gzip_file(raw, out_path)


def shape_workers_slow(out_path, raw):
    """DataLoader(num_workers=2, pin_memory=True, persistent_workers=True) whose items cost 1 ms
    of Python each (32 ms a batch per worker, on 2 cores shared with the training process): the
    workers cannot keep up. Input-bound."""
    loader_run(out_path, raw, cost_ms=1.0, workers=2)


def shape_workers_fast(out_path, raw):
    """The same loader with items that cost nothing: the workers keep batches ready, the step is
    the model's. Compute-bound; no advice to add workers."""
    loader_run(out_path, raw, cost_ms=0.0, workers=2)


def shape_jit_script(out_path, raw):
    """torch.jit.script of a model of many small elementwise ops on small tensors, trained:
    TorchScript in use (its differentiable graphs show in the backward), and still host-bound."""

    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(32, 32), nn.Linear(32, 10)

        def forward(self, x):
            h = self.a(x)
            for _ in range(8):
                h = torch.tanh(h) * 0.5 + h * 0.25 - 0.1
            return self.b(h)

    net = torch.jit.script(Small())
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    data = batches(4, 8, 32)
    for it in range(4):  # the profiling executor optimises the graph after its first runs
        train_step(net, opt, *data[it])
    run_steps(raw, 6, lambda it: train_step(net, opt, *data[it % len(data)]))
    gzip_file(raw, out_path)


def shape_tiny_ops(out_path, raw):
    """Eager training of a model of many small ops on 8x16 tensors: per-op dispatch dominates.
    Host-bound (launch/dispatch-bound on a CPU)."""

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(6))

        def forward(self, x):
            for l in self.layers:
                x = torch.tanh(l(x)) * 0.5 + x
            return x

    net = Tiny()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    data = batches(4, 8, 16, classes=16)
    run_steps(raw, 6, lambda it: train_step(net, opt, *data[it % len(data)]))
    gzip_file(raw, out_path)


def shape_big_matmul(out_path, raw):
    """Training of wide linear layers (1024 wide): few big matrix products (this torch's generic
    BLAS makes them slow). Compute-bound."""
    net = mlp(1024, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    data = batches(2, 32, 1024)
    run_steps(raw, 5, lambda it: train_step(net, opt, *data[it % len(data)]))
    gzip_file(raw, out_path)


def shape_untraced_python(out_path, raw):
    """Each step trains a small MLP (a few ms), then sleeps 10 ms and runs about 10 ms of pure
    Python (logging, metric bookkeeping) that the profiler does not record. Most of the step is
    untraced host time."""
    net, data = mlp(256, 2), batches(4, 32, 256)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)

    def body(it):
        train_step(net, opt, *data[it % len(data)])
        time.sleep(0.010)
        end = time.perf_counter() + 0.010
        stats = {}
        while time.perf_counter() < end:
            stats[len(stats) % 97] = sum(range(50))

    run_steps(raw, 6, body)
    gzip_file(raw, out_path)


def shape_eval_every4(out_path, raw):
    """A compute-bound MLP that runs an evaluation pass (no_grad, 4 batches) after every 4th
    training step, inside that step: a periodic stall with period 4."""
    net, data = mlp(256, 2), batches(4, 64, 256)
    held_out = batches(4, 128, 256)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)

    def body(it):
        train_step(net, opt, *data[it % len(data)])
        if it % 4 == 3:
            net.eval()
            with torch.no_grad():
                for x, y in held_out:
                    F.cross_entropy(net(x), y)
            net.train()

    run_steps(raw, 12, body, wait=1, warmup=2)
    gzip_file(raw, out_path)


def shape_grad_accum(out_path, raw):
    """Gradient accumulation: prof.step() per micro-batch, Adam's update every 4th micro-batch
    on a wide model with micro-batches of one sample (AMSGrad's update costs about three
    micro-batches). The slow steps are the optimizer's, part of training, not a stall to schedule
    away."""
    net, data = mlp(1024, 3), batches(4, 1, 1024)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, amsgrad=True, weight_decay=1e-4)

    def body(it):
        x, y = data[it % len(data)]
        (F.cross_entropy(net(x), y) / 4).backward()
        if it % 4 == 3:
            opt.step()
            opt.zero_grad()

    run_steps(raw, 16, body, wait=1, warmup=3)
    gzip_file(raw, out_path)


def shape_autocast_bf16(out_path, raw):
    """torch.autocast("cpu", dtype=torch.bfloat16) around the forward pass of a compute-bound
    MLP: mixed precision in use."""
    net, data = mlp(512, 2), batches(4, 256, 512)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)

    def body(it):
        x, y = data[it % len(data)]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    run_steps(raw, 6, body)
    gzip_file(raw, out_path)


def shape_autograd_profiler(out_path, raw):
    """The older torch.autograd.profiler.profile + export_chrome_trace over a loop whose
    DataLoader (num_workers=0) makes each item with 1 ms of Python: no step markers, input-bound."""
    net = mlp(256, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loader = DataLoader(SlowItems(512, 256, 1.0), batch_size=32, num_workers=0)
    with torch.autograd.profiler.profile() as prof:
        for it, (x, y) in enumerate(loader):
            train_step(net, opt, x, y)
            if it == 6:
                break
    prof.export_chrome_trace(raw)
    gzip_file(raw, out_path)


SHAPES = {
    "cycles": shape_cycles,
    "no_markers": shape_no_markers,
    "named_steps": shape_named_steps,
    "inference_no_markers": shape_inference_no_markers,
    "shapes_memory_stack": shape_shapes_memory_stack,
    "workers_slow": shape_workers_slow,
    "workers_fast": shape_workers_fast,
    "jit_script": shape_jit_script,
    "tiny_ops": shape_tiny_ops,
    "big_matmul": shape_big_matmul,
    "untraced_python": shape_untraced_python,
    "eval_every4": shape_eval_every4,
    "grad_accum": shape_grad_accum,
    "autocast_bf16": shape_autocast_bf16,
    "autograd_profiler": shape_autograd_profiler,
}


def main():
    if len(sys.argv) < 2 or any(s not in SHAPES for s in sys.argv[2:]):
        sys.exit(__doc__ + "\nshapes: " + " ".join(SHAPES))
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    for name in sys.argv[2:] or list(SHAPES):
        torch.manual_seed(SEED)
        tmp = tempfile.mkdtemp()
        t0 = time.perf_counter()
        if name == "cycles":
            SHAPES[name](out, tmp)
        else:
            SHAPES[name](os.path.join(out, name + ".pt.trace.json.gz"), os.path.join(tmp, "trace.json"))
        shutil.rmtree(tmp)
        print(f"{name}: {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
