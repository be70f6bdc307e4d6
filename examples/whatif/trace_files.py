"""Shared by the recording scripts in this folder: gzip a trace torch wrote, and read back the
duration of each ProfilerStep from the gzipped file (ms)."""

import gzip
import json
import shutil


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
