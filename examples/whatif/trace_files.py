"""Shared by the recording scripts in this folder: profile a CPU training loop's steps, gzip the
trace torch wrote, and read back the duration of each ProfilerStep from the gzipped file (ms)."""

import gzip
import json
import os
import shutil
import sys
import tempfile


def gzip_trace(raw_path, out_path):
    """Compresses raw_path into out_path (mtime 0, no file name in the header)."""
    with open(raw_path, "rb") as f, gzip.GzipFile(out_path, "wb", mtime=0) as gz:
        shutil.copyfileobj(f, gz)


def step_durations_ms(gz_path):
    """Each ProfilerStep#N duration in the trace, in ms (object or bare-array traces)."""
    with gzip.open(gz_path, "rt") as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return [e["dur"] / 1000.0 for e in events if e.get("name", "").startswith("ProfilerStep#")]


def profile_cpu_steps(step, wait, warmup, active, out_path):
    """Runs step(i) for i in range(wait + warmup + active) under torch.profiler (CPU activity,
    schedule(wait, warmup, active), one prof.step() after each), writes the trace gzipped to
    out_path and returns each ProfilerStep's duration (ms)."""
    from torch.profiler import ProfilerActivity, profile, schedule

    tmp = tempfile.mkdtemp()
    raw = os.path.join(tmp, "trace.json")
    try:
        with profile(activities=[ProfilerActivity.CPU],
                     schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
                     on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
            for i in range(wait + warmup + active):
                step(i)
                prof.step()
        gzip_trace(raw, out_path)
    finally:
        shutil.rmtree(tmp)
    return step_durations_ms(out_path)


def output_folder(argv, usage):
    """The one argument, an output folder (created), or exit with `usage`; torch then runs its
    operators on one intra-op thread, as every recording here does."""
    import torch

    if len(argv) != 2:
        sys.exit(usage)
    os.makedirs(argv[1], exist_ok=True)
    torch.set_num_threads(1)
    return argv[1]
