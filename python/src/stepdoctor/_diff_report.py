"""Dataclasses mirroring `stepdoctor diff --format json` (docs/reports.md; `"kind": "diff"`,
schema 1). Every field has a default so a report from an older CLI still loads; unknown keys
are ignored."""

from dataclasses import dataclass, field
from typing import List, Optional

from ._load import CliResult
from ._report import Verdict


@dataclass
class DiffSide:
    inputs: List[str] = field(default_factory=list)
    format: str = ""
    verdict: Verdict = field(default_factory=Verdict)
    step_source: str = ""
    whole_window: bool = False
    step_count: int = 0
    median_step_ms: float = 0.0
    mean_step_ms: float = 0.0
    p90_step_ms: float = 0.0


@dataclass
class CategoryDelta:
    category: str = ""
    before_ms: float = 0.0
    after_ms: float = 0.0
    delta_ms: float = 0.0
    change_pct: Optional[float] = None  # None where nothing was there before
    before_pct: float = 0.0
    after_pct: float = 0.0
    delta_pp: float = 0.0


@dataclass
class FindingDelta:
    id: str = ""
    before: Optional[str] = None  # severity, None where not reported on that side
    after: Optional[str] = None
    before_share_pct: float = 0.0
    after_share_pct: float = 0.0
    title: str = ""


@dataclass
class NameDelta:
    name: str = ""
    before_ms: float = 0.0
    after_ms: float = 0.0
    delta_ms: float = 0.0
    change_pct: Optional[float] = None
    before_count: float = 0.0
    after_count: float = 0.0


@dataclass
class NameChanges:
    before_total_ms: float = 0.0
    after_total_ms: float = 0.0
    slower_total: int = 0
    faster_total: int = 0
    added_total: int = 0
    removed_total: int = 0
    slower: List[NameDelta] = field(default_factory=list)
    faster: List[NameDelta] = field(default_factory=list)
    added: List[NameDelta] = field(default_factory=list)
    removed: List[NameDelta] = field(default_factory=list)


@dataclass
class DiffReport(CliResult):
    """One `diff` report (BEFORE -> AFTER), plus how the CLI exited."""

    schema_version: int = 0
    kind: str = "diff"
    tool_version: str = ""
    before: DiffSide = field(default_factory=DiffSide)
    after: DiffSide = field(default_factory=DiffSide)
    step_delta_ms: float = 0.0
    step_change_pct: Optional[float] = None
    speedup: Optional[float] = None  # before / after median step
    verdict_changed: bool = False
    categories: List[CategoryDelta] = field(default_factory=list)
    findings: List[FindingDelta] = field(default_factory=list)
    per_step: bool = False
    unit: str = ""  # "ms" (totals) or "ms/step"
    kernels: NameChanges = field(default_factory=NameChanges)
    ops: NameChanges = field(default_factory=NameChanges)
    notes: List[str] = field(default_factory=list)
    diagnostics: List[str] = field(default_factory=list)

    def category(self, name: str) -> Optional[CategoryDelta]:
        """The breakdown row for a step category (`input`, `device_compute`, ...), or None."""
        return next((c for c in self.categories if c.category == name), None)

