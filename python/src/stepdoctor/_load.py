"""JSON objects -> dataclasses, tolerant of CLI versions on either side.

Keys the dataclass does not declare are ignored (a newer CLI adds fields within a schema
version) and declared keys the JSON lacks keep their defaults (an older CLI). A value of an
unexpected JSON type is kept as it came rather than refused: the report is still usable.
"""

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Type, TypeVar, Union

T = TypeVar("T")


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    if dataclasses.is_dataclass(tp):
        return load(tp, value) if isinstance(value, dict) else value
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Union:  # Optional[X]
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value) if len(inner) == 1 else value
    if origin is list:
        return [_convert(args[0], v) for v in value] if isinstance(value, list) else value
    if origin is dict:
        return {str(k): _convert(args[1], v) for k, v in value.items()} if isinstance(value, dict) else value
    if tp is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def load(cls: Type[T], data: Dict[str, Any]) -> T:
    """Builds `cls` from a JSON object, ignoring unknown keys and defaulting missing ones."""
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.init and f.name in data:
            kwargs[f.name] = _convert(hints[f.name], data[f.name])
    return cls(**kwargs)


# Fields filled from the process, never from JSON keys of the same name.
_NOT_JSON = ("exit_status", "fail_on_met", "fail_on_reasons", "raw")


@dataclass
class CliResult:
    """What every report from the CLI carries beside its JSON: the exit status and, for status 1,
    the --fail-on conditions met; and the whole JSON object as parsed (`raw`), for keys newer than
    this package."""

    exit_status: int = 0
    fail_on_met: bool = False
    fail_on_reasons: List[str] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any]):
        report = load(cls, {k: v for k, v in data.items() if k not in _NOT_JSON})
        report.raw = data
        return report
