"""torch.profiler integration: a drop-in for torch.profiler.tensorboard_trace_handler.

    with torch.profiler.profile(schedule=..., on_trace_ready=stepdoctor.torch.trace_handler("./log")) as prof:

writes the same trace file as torch's own handler (which it calls), then prints the verdict
line of that trace; with html=True it also writes the HTML report beside it, and with
summary=True the rank's summary (<trace>.sdsum, for `stepdoctor merge` over all ranks). A trace that
cannot be diagnosed (no stepdoctor command, unusable trace) is reported on stderr and training
goes on: the trace is written either way.
"""

import os
import socket
import sys
from typing import Callable, Dict, Optional

from torch.profiler import tensorboard_trace_handler

from ._cli import StepdoctorError

# What torch's handler writes: <worker>.<ms>.pt.trace.json, gzip-compressed with use_gzip.
_TRACE_SUFFIXES = (".json", ".json.gz")


def _traces(dir_name: str) -> Dict[str, int]:
    """Trace files in dir_name with their modification times (ns)."""
    out = {}
    try:
        with os.scandir(dir_name) as it:
            for e in it:
                if e.name.endswith(_TRACE_SUFFIXES) and e.is_file():
                    out[e.path] = e.stat().st_mtime_ns
    except OSError:  # not created yet: torch's handler creates it
        pass
    return out


def _written(before: Dict[str, int], after: Dict[str, int], worker: str) -> Optional[str]:
    """The newest file that is new or rewritten since `before`, this worker's first: ranks of
    one job often share the folder and write at the same moment."""
    changed = [p for p, t in after.items() if before.get(p) != t]
    own = [p for p in changed if os.path.basename(p).startswith(worker + ".")]
    candidates = own or changed
    return max(candidates, key=lambda p: (after[p], p)) if candidates else None


def _reason(e: StepdoctorError) -> str:
    """The CLI's message without its own 'stepdoctor: ' prefix, to quote inside ours."""
    return e.message.removeprefix("stepdoctor: ")


def html_path(trace_path: str) -> str:
    """Where html=True writes the report: the trace's name with .html for .json[.gz]."""
    for suffix in (".json.gz", ".json"):
        if trace_path.endswith(suffix):
            return trace_path[: -len(suffix)] + ".html"
    return trace_path + ".html"


def trace_handler(dir_name: str, worker_name: Optional[str] = None, use_gzip: bool = False,
                  html: bool = False, summary: bool = False) -> Callable[[object], None]:
    """Same arguments as torch.profiler.tensorboard_trace_handler, plus html: also write
    <trace>.html (the trace's name, .json/.json.gz replaced by .html) beside the trace; and
    summary: also write <trace>.sdsum beside it (each rank then leaves only the merge to do)."""
    write_trace = tensorboard_trace_handler(dir_name, worker_name=worker_name, use_gzip=use_gzip)

    def handler_fn(prof) -> None:
        before = _traces(dir_name)
        write_trace(prof)
        # torch's default worker name, computed the same way in the same process.
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = _written(before, _traces(dir_name), worker)
        if path is None:
            print(f"stepdoctor: {dir_name}: no new trace file after torch's handler ran; nothing diagnosed",
                  file=sys.stderr)
            return
        # Imported here, not at module level, so the package imports in either order.
        from . import diagnose, summarize, write_report
        try:
            report = diagnose(path)
        except StepdoctorError as e:
            print(f"stepdoctor: {path}: trace written, not diagnosed: {_reason(e)}", file=sys.stderr)
            return
        print(f"{path}: {report.verdict.summary}", flush=True)
        if summary:
            try:
                summarize(path, path + ".sdsum")
            except StepdoctorError as e:
                print(f"stepdoctor: {path}.sdsum: summary not written: {_reason(e)}", file=sys.stderr)
        if html:
            try:
                write_report(path, html_path(path), format="html")
            except StepdoctorError as e:
                print(f"stepdoctor: {html_path(path)}: HTML report not written: {_reason(e)}", file=sys.stderr)

    return handler_fn
