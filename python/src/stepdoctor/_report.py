"""Dataclasses mirroring `stepdoctor diagnose --format json` (docs/json-report.md, schema 4).

Field names are the JSON keys; times are milliseconds unless the name says otherwise, shares
are percent (0-100). Every field has a default so a report from an older CLI still loads.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ._load import CliResult


@dataclass
class Verdict:
    bottleneck: str = "unknown"  # input, host, device_compute, communication, unknown
    summary: str = ""


@dataclass
class Coverage:
    framework: str = "unknown"  # pytorch, tensorflow, jax, horovod, unknown
    device_activity: str = ""  # captured, missing, cpu_only, sampled
    steps: str = ""  # markers, inferred, whole_window
    confidence: str = ""  # high, medium, low
    evidence: List[str] = field(default_factory=list)
    applied: List[str] = field(default_factory=list)


@dataclass
class WarmupStep:
    number: int = 0
    duration_ms: float = 0.0


@dataclass
class Step:
    number: int = 0
    duration_ms: float = 0.0
    category_ms: List[float] = field(default_factory=list)  # in the order of Steps.categories


@dataclass
class Steps:
    source: str = ""
    whole_window: bool = False
    inferred: bool = False
    warmup: List[WarmupStep] = field(default_factory=list)
    count: int = 0
    median_ms: float = 0.0
    p90_ms: float = 0.0
    max_ms: float = 0.0
    min_ms: float = 0.0
    mean_ms: float = 0.0
    excluded_partial: int = 0
    outliers: List[int] = field(default_factory=list)
    categories: List[str] = field(default_factory=list)
    per_step: List[Step] = field(default_factory=list)


@dataclass
class Evidence:
    label: str = ""
    value: str = ""


@dataclass
class TopEvent:
    name: str = ""
    total_ms: float = 0.0
    count: int = 0
    share_pct: float = 0.0


@dataclass
class Fix:
    summary: str = ""
    tensorflow: str = ""
    pytorch: str = ""


@dataclass
class Finding:
    id: str = ""
    severity: str = "none"  # none, low, moderate, high
    title: str = ""
    share_pct: float = 0.0
    gain_upper_bound: float = 1.0
    gain: str = ""
    # The what-if replay of the finding's fix (docs/whatif.md); None where there is none.
    predicted_step_ms: Optional[float] = None
    predicted_low_ms: Optional[float] = None
    predicted_high_ms: Optional[float] = None
    predicted_speedup: Optional[float] = None
    predicted_bound_by: str = ""
    assumptions: List[str] = field(default_factory=list)
    prediction_unavailable: str = ""
    evidence: List[Evidence] = field(default_factory=list)
    top_events: List[TopEvent] = field(default_factory=list)
    # Named figures (straggler: rank, worker_index, late_ms_per_step, last_in_pct).
    figures: Dict[str, float] = field(default_factory=dict)
    fix: Fix = field(default_factory=Fix)


@dataclass
class Device:
    worker: str = ""
    device: str = ""
    span_us: float = 0.0
    idle_pct: float = 0.0
    compute_pct: float = 0.0
    non_compute_pct: float = 0.0
    comm_comp_overlap_pct: Optional[float] = None  # None without communication
    kernel_count: int = 0


@dataclass
class Worker:
    name: str = ""
    rank: int = 0
    steps: int = 0
    median_step_ms: float = 0.0
    compute_ms: float = 0.0
    host_ms: float = 0.0
    collectives_ms: float = 0.0
    input_ms: float = 0.0
    # From the ranks compared at their collectives (Report.alignment); None where they were not.
    wait_ms: Optional[float] = None
    late_ms: Optional[float] = None
    last_in_pct: Optional[float] = None
    clock_skew_ms: Optional[float] = None
    step_numbers: List[int] = field(default_factory=list)
    step_ms: List[float] = field(default_factory=list)


@dataclass
class CollectiveRow:
    name: str = ""
    calls: int = 0
    mean_wait_ms: float = 0.0
    mean_transfer_ms: float = 0.0


@dataclass
class Alignment:
    aligned: bool = False
    why_not: str = ""
    collectives_on: str = ""  # device, host
    matched_by: str = "step order"  # sequence (process group and sequence number), step order
    matched: int = 0
    steps: int = 0
    unmatched_steps: int = 0
    max_skew_ms: float = 0.0
    collectives: List[CollectiveRow] = field(default_factory=list)


@dataclass
class CollectiveLink:
    kind: str = "unknown"  # nvlink, pcie, network, none, unknown
    name: str = ""
    peak_gbps: Optional[float] = None  # per GPU, one direction; None where it cannot be told
    basis: str = ""


@dataclass
class CollectiveBandwidthRow:
    kind: str = ""  # all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, other
    group_size: int = 0
    size_bucket: str = ""
    min_bytes: int = 0
    below_bytes: Optional[int] = None
    calls: int = 0
    bytes: float = 0.0
    mean_bytes: float = 0.0
    kernel_ms: float = 0.0
    mean_ms: float = 0.0
    algbw_gbps: float = 0.0
    busbw_gbps: Optional[float] = None
    includes_waits: bool = True
    # The transfer part alone (last arrival to completion) where the ranks were aligned.
    transfer_calls: Optional[int] = None
    transfer_mean_ms: Optional[float] = None
    transfer_algbw_gbps: Optional[float] = None
    transfer_busbw_gbps: Optional[float] = None
    link: int = -1  # index into CollectiveBandwidth.links
    busbw_of_peak_pct: Optional[float] = None


@dataclass
class CollectiveBandwidth:
    note: str = ""
    links: List[CollectiveLink] = field(default_factory=list)
    rows: List[CollectiveBandwidthRow] = field(default_factory=list)


@dataclass
class TensorflowBreakdown:
    category: str = ""
    ms_per_step: float = 0.0
    pct: float = 0.0


@dataclass
class TensorflowView:
    host: str = ""
    source: str = ""
    input_pct: Optional[float] = None
    step_ms: float = 0.0
    steps: int = 0
    bottleneck: str = ""  # host, device, both
    recommendation: str = ""
    other_statements: List[str] = field(default_factory=list)
    breakdown: List[TensorflowBreakdown] = field(default_factory=list)


@dataclass
class PathContributor:
    name: str = ""
    kind: str = ""  # host, launch, kernel, copy, wait
    ms: float = 0.0
    count: int = 0


@dataclass
class PathSegment:
    start_ms: float = 0.0  # from the first step's start
    dur_ms: float = 0.0
    kind: str = ""  # host, launch, kernel, copy, wait
    name: str = ""  # the run's longest part
    parts: int = 1  # events or gaps in the run
    stream: Optional[int] = None  # None on the host


@dataclass
class StepCriticalPath:
    step: int = 0
    start_ms: float = 0.0
    step_ms: float = 0.0
    path_ms: float = 0.0
    host_ms: float = 0.0
    launch_ms: float = 0.0
    kernel_ms: float = 0.0
    copy_ms: float = 0.0
    wait_ms: float = 0.0
    top: List[PathContributor] = field(default_factory=list)


@dataclass
class CriticalPath:
    median_step: Optional[int] = None
    steps: List[StepCriticalPath] = field(default_factory=list)
    median_segments: List[PathSegment] = field(default_factory=list)


@dataclass
class OpKernelRow:
    kernel: str = ""
    count: int = 0
    device_ms: float = 0.0
    mean_delay_us: float = 0.0


@dataclass
class OpKernels:
    op: str = ""
    op_count: int = 0
    kernels: int = 0
    device_ms: float = 0.0
    mean_delay_us: float = 0.0
    rows: List[OpKernelRow] = field(default_factory=list)


@dataclass
class LaunchDelayOutlier:
    kernel: str = ""
    launch: str = ""
    delay_us: float = 0.0
    at_ms: float = 0.0


@dataclass
class KernelClassStats:
    work_class: str = ""  # compute, communication, memory
    count: int = 0
    total_ms: float = 0.0
    mean_us: float = 0.0
    min_us: float = 0.0
    max_us: float = 0.0


@dataclass
class StreamQueue:
    stream: str = ""
    max_queued: int = 0
    mean_queued: float = 0.0


@dataclass
class KernelTables:
    ops: List[OpKernels] = field(default_factory=list)
    launch_delays: int = 0
    median_delay_us: float = 0.0
    outlier_threshold_us: float = 0.0
    outlier_count: int = 0
    outliers: List[LaunchDelayOutlier] = field(default_factory=list)
    classes: List[KernelClassStats] = field(default_factory=list)
    queues: List[StreamQueue] = field(default_factory=list)


@dataclass
class Report(CliResult):
    """One `diagnose` report, plus how the CLI exited."""

    schema_version: int = 0
    tool_version: str = ""
    inputs: List[str] = field(default_factory=list)
    format: str = ""
    verdict: Verdict = field(default_factory=Verdict)
    coverage: Coverage = field(default_factory=Coverage)
    steps: Steps = field(default_factory=Steps)
    breakdown: Dict[str, float] = field(default_factory=dict)  # category -> percent of step time
    breakdown_ms_per_step: Dict[str, float] = field(default_factory=dict)
    breakdown_detail: Dict[str, float] = field(default_factory=dict)
    devices: List[Device] = field(default_factory=list)
    workers: List[Worker] = field(default_factory=list)
    alignment: Optional[Alignment] = None
    # Achieved collective bandwidth against the link (None where no collective is sized).
    collective_bandwidth: Optional[CollectiveBandwidth] = None
    tensorflow_view: List[TensorflowView] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    top_kernels: List[TopEvent] = field(default_factory=list)
    top_ops: List[TopEvent] = field(default_factory=list)
    # What sets each step's length, and kernels by operator (None without device activity).
    critical_path: Optional[CriticalPath] = None
    kernel_tables: Optional[KernelTables] = None
    notes: List[str] = field(default_factory=list)
    diagnostics: List[str] = field(default_factory=list)

    def finding(self, finding_id: str) -> Optional[Finding]:
        """The finding with this id (docs/rules.md), or None when it was not reported."""
        return next((f for f in self.findings if f.id == finding_id), None)

