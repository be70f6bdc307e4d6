#!/usr/bin/env python3
"""Makes an N-rank job from one real rank's trace, with a known straggler and known clock offsets.

    scripts/synth_ranks.py SOURCE OUT_DIR --ranks 64 --straggler 17 --late-ms 300 \
        [--jitter-ms 5] [--skew-ms 40] [--seed 1]

SOURCE is a PyTorch trace (Kineto's {"traceEvents": [...]} or the autograd profiler's bare
array; .json or .json.gz). Every rank is SOURCE with its times moved as a real job's would be:

- In each step, the first synchronising collective (NCCL kernels on the device, else gloo's work
  ranges on the host) opens a synchronisation that lasts until it and the collectives in flight
  with it (DDP's buckets) have ended.
  Each rank arrives there late by a random jitter in [0, --jitter-ms); the straggler by
  --late-ms more, doing that much extra work first (an event `straggler_extra_work` before its
  arrival). Nobody finishes the synchronisation before the last rank has arrived: its
  collectives end, and everything after them runs, later by the largest delay of the step.
- Each rank's clock is then off by a random offset in [-skew, +skew] (rank 0: none).

Writes OUT_DIR/rank<r>.pt.trace.json.gz and OUT_DIR/truth.json: the straggler, the time the other
ranks lose to it per step (its delay behind the next-latest rank, averaged over the steps), and
each rank's clock offset from rank 0 in ms. Only the Python standard library is used.
"""
import argparse
import bisect
import copy
import gzip
import json
import os
import random


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def events_of(doc):
    return doc if isinstance(doc, list) else doc["traceEvents"]


def is_device_collective(e):
    return e.get("ph") == "X" and str(e.get("cat", "")).lower() == "kernel" and "nccl" in e.get("name", "").lower() \
        and "sendrecv" not in e.get("name", "").lower()


def is_host_collective(e):
    return e.get("ph") == "X" and e.get("name", "").startswith("gloo:")


def synchronisations(events):
    """[(first arrival, end)] of each step's first synchronisation (times in us)."""
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"))
    device = [e for e in events if is_device_collective(e)]
    colls = device if device else [e for e in events if is_host_collective(e)]
    if not steps or not colls:
        raise SystemExit("synth_ranks: the source has no ProfilerStep#N steps or no collectives")
    out = []
    for lo, hi in steps:
        inside = sorted((c for c in colls if lo <= c["ts"] < hi), key=lambda c: c["ts"])
        if not inside:
            continue
        # The first synchronisation: the first collective and those in flight with it.
        first, last_end = inside[0]["ts"], inside[0]["ts"] + inside[0]["dur"]
        for c in inside[1:]:
            if c["ts"] >= last_end:
                break
            last_end = max(last_end, c["ts"] + c["dur"])
        out.append((first, last_end))
    return out, (device[0] if device else None), colls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("out_dir")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--straggler", type=int, default=17)
    ap.add_argument("--late-ms", type=float, default=300.0)
    ap.add_argument("--jitter-ms", type=float, default=5.0)
    ap.add_argument("--skew-ms", type=float, default=40.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if not 0 <= a.straggler < a.ranks:
        raise SystemExit("synth_ranks: --straggler must name one of the ranks")
    rng = random.Random(a.seed)
    doc = load(a.source)
    src = events_of(doc)
    syncs, device_coll, colls = synchronisations(src)
    starts = [p for p, _ in syncs]
    coll_ids = {id(c) for c in colls}
    n, us = a.ranks, 1000.0

    # Per step: each rank's delay (us), and the largest, which every rank waits out.
    delay = [[rng.uniform(0, a.jitter_ms) * us + (a.late_ms * us if r == a.straggler else 0) for _ in syncs]
             for r in range(n)]
    most = [max(delay[r][i] for r in range(n)) for i in range(len(syncs))]
    before = [sum(most[:i]) for i in range(len(syncs))]
    skew = [0.0] + [rng.uniform(-a.skew_ms, a.skew_ms) * us for _ in range(n - 1)]

    def shift(r, t, collective_end):
        i = bisect.bisect_right(starts, t) - 1
        if i < 0:
            return 0.0
        p, q = syncs[i]
        if t <= q and not collective_end:
            return before[i] + delay[r][i]
        return before[i] + most[i]

    # Where the straggler's extra work goes: the thread or stream that computes before the
    # first collective.
    main_lane = next(((e["pid"], e["tid"]) for e in src if e.get("name", "").startswith("ProfilerStep#")), None)
    kernel_lane = next(((e["pid"], e["tid"]) for e in src
                        if device_coll and str(e.get("cat", "")).lower() == "kernel" and not is_device_collective(e)),
                       None)
    os.makedirs(a.out_dir, exist_ok=True)
    for r in range(n):
        out = []
        for e in src:
            e2 = dict(e)
            if "ts" in e2 and isinstance(e2["ts"], (int, float)):
                ts = e2["ts"]
                e2["ts"] = ts + shift(r, ts, False) + skew[r]
                if isinstance(e2.get("dur"), (int, float)):
                    end = ts + e2["dur"]
                    e2["dur"] = end + shift(r, end, id(e) in coll_ids) + skew[r] - e2["ts"]
            out.append(e2)
        if r == a.straggler:
            lane = kernel_lane if device_coll else main_lane
            for i, (p, _) in enumerate(syncs):
                extra = {"ph": "X", "name": "straggler_extra_work", "pid": lane[0], "tid": lane[1],
                         "ts": p + before[i] + skew[r], "dur": delay[r][i]}
                if device_coll:
                    extra["cat"] = "kernel"
                out.append(extra)
        rank_doc = copy.copy(doc) if isinstance(doc, dict) else out
        if isinstance(doc, dict):
            rank_doc["traceEvents"] = out
            info = dict(doc.get("distributedInfo") or {})
            info.update({"rank": r, "world_size": n})
            rank_doc["distributedInfo"] = info
        with gzip.open(os.path.join(a.out_dir, "rank%d.pt.trace.json.gz" % r), "wt", compresslevel=1) as f:
            json.dump(rank_doc, f)

    late = [delay[a.straggler][i] - max(delay[r][i] for r in range(n) if r != a.straggler) for i in range(len(syncs))]
    truth = {"ranks": n, "straggler": a.straggler, "late_ms_per_step": sum(late) / len(late) / us,
             "steps": len(syncs), "clock_skew_ms": [s / us for s in skew],
             "collectives_on": "device" if device_coll else "host"}
    with open(os.path.join(a.out_dir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
