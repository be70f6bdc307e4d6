"""stepdoctor from Python: what bounds a training step, and what to change.

Runs the installed `stepdoctor` command (found through $STEPDOCTOR_BIN, then PATH) and returns
its JSON reports as dataclasses:

    report = stepdoctor.diagnose("trace.pt.trace.json.gz")
    report.verdict.bottleneck        # 'input', 'host', 'device_compute', ...

`stepdoctor.torch.trace_handler` is a drop-in for torch.profiler.tensorboard_trace_handler that
also prints the verdict of each trace it writes.
"""

from typing import Any

from ._cli import EXIT_BAD_INPUT, EXIT_FAIL_ON, EXIT_OK, PathLike, Paths, StepdoctorError, find_cli
from ._cli import option_args as _option_args
from ._cli import path_args as _path_args
from ._cli import run as _run
from ._cli import run_json as _run_json
from ._diff_report import CategoryDelta, DiffReport, DiffSide, FindingDelta, NameChanges, NameDelta
from ._report import (Coverage, CriticalPath, Device, Evidence, Finding, Fix, KernelTables, Report, Step, Steps,
                      TensorflowBreakdown, TensorflowView, TopEvent, Verdict, WarmupStep, Worker)

__version__ = "0.1.0"


def diagnose(paths: Paths, **options: Any) -> Report:
    """`stepdoctor diagnose --format json PATHS`: trace files or folders, one or several.

    Options are the CLI's, with underscores: run="NAME" (the TensorBoard profile run),
    fail_on="input_bound>=moderate" or a list of them. A --fail-on condition met (exit 1) is
    returned as `report.fail_on_met` with `fail_on_reasons`; unusable input (exit 2) raises
    StepdoctorError with the CLI's one-line message."""
    data, status, reasons = _run_json(
        ["diagnose", "--format", "json", *_option_args(options), "--", *_path_args(paths)])
    report = Report.from_json(data)
    report.exit_status, report.fail_on_met, report.fail_on_reasons = status, status == EXIT_FAIL_ON, reasons
    return report


def diff(before: Paths, after: Paths, **options: Any) -> DiffReport:
    """`stepdoctor diff --format json BEFORE AFTER`: what changed between two runs. Options and
    exit statuses as for diagnose (e.g. fail_on="step_time_regression>5%")."""
    data, status, reasons = _run_json(
        ["diff", "--format", "json", *_option_args(options), "--", *_one_path(before), *_one_path(after)])
    report = DiffReport.from_json(data)
    report.exit_status, report.fail_on_met, report.fail_on_reasons = status, status == EXIT_FAIL_ON, reasons
    return report


def write_report(paths: Paths, output: PathLike, format: str = "html", **options: Any) -> int:
    """`stepdoctor diagnose --format FORMAT -o OUTPUT PATHS` (text, json, md, html). Returns the
    exit status (0, or 1 when a --fail-on condition was met); raises StepdoctorError on 2."""
    status, _, _ = _run(["diagnose", "--format", format, "--output", _path_args(output)[0],
                         *_option_args(options), "--", *_path_args(paths)])
    return status


def summarize(trace: PathLike, output: PathLike) -> None:
    """`stepdoctor summarize TRACE -o OUTPUT`: one rank's compact summary (.sdsum), for
    `stepdoctor merge` to give the job's report from all ranks' summaries (docs/distributed.md).
    Raises StepdoctorError on unusable input."""
    _run(["summarize", "--output", _path_args(output)[0], "--", *_path_args(trace)])


def _one_path(path: Paths) -> list:
    args = _path_args(path)
    if len(args) != 1:
        raise TypeError("diff() compares two paths: give one file or folder per side")
    return args


__all__ = [
    "diagnose", "diff", "write_report", "summarize", "find_cli", "StepdoctorError", "Report", "DiffReport",
    "Verdict", "Coverage", "Steps", "Step", "WarmupStep", "Finding", "Evidence", "Fix", "TopEvent",
    "Device", "Worker", "TensorflowView", "TensorflowBreakdown", "DiffSide", "CategoryDelta",
    "FindingDelta", "NameDelta", "NameChanges", "EXIT_OK", "EXIT_FAIL_ON", "EXIT_BAD_INPUT",
]
