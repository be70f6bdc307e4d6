"""Finding and running the `stepdoctor` command.

Exit statuses (docs/reports.md): 0 report written, 1 a --fail-on condition was met (the report
is still written in full), 2 unusable input or arguments with one line on stderr.
"""

import json
import os
import shutil
import subprocess
from typing import Any, Dict, Iterable, List, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]
Paths = Union[PathLike, Iterable[PathLike]]

EXIT_OK = 0
EXIT_FAIL_ON = 1  # a --fail-on condition was met: returned on the result, not raised
EXIT_BAD_INPUT = 2  # the CLI's one-line message becomes StepdoctorError

# Options the functions set themselves: --format and --output decide what comes back.
_RESERVED = ("format", "f", "output", "o")


class StepdoctorError(Exception):
    """The CLI could not produce a report: unusable input or arguments (exit status 2), a
    missing binary, or output that is not a report. `message` is the CLI's one-line error;
    `exit_status` is the CLI's (2), or -1 where it could not be run at all."""

    def __init__(self, message: str, exit_status: int = EXIT_BAD_INPUT, command: Tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.exit_status = exit_status
        self.command = command


def find_cli() -> str:
    """STEPDOCTOR_BIN when set, else `stepdoctor` on PATH."""
    env = os.environ.get("STEPDOCTOR_BIN")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise StepdoctorError(f"STEPDOCTOR_BIN={env}: not an executable file", exit_status=-1)
    found = shutil.which("stepdoctor")
    if found:
        return found
    raise StepdoctorError(
        "the stepdoctor command was not found: install it (README, 'Install') and put it on PATH, "
        "or set STEPDOCTOR_BIN to its path", exit_status=-1)


def path_args(paths: Paths) -> List[str]:
    """One path or several, as command-line arguments."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = [os.fsdecode(p) for p in paths]
    if not out:
        raise StepdoctorError("no input paths given", exit_status=-1)
    return out


def option_args(options: Dict[str, Any]) -> List[str]:
    """Keyword options as CLI flags: run="x" -> --run x, fail_on=[a, b] -> --fail-on a --fail-on b,
    a true bool -> the bare flag; None and False are left out."""
    out: List[str] = []
    for name, value in options.items():
        if name in _RESERVED:
            raise TypeError(f"'{name}' is set by stepdoctor itself; use write_report() for other formats")
        flag = "--" + name.replace("_", "-")
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if v is None or v is False:
                continue
            out += [flag] if v is True else [flag, os.fsdecode(v) if isinstance(v, os.PathLike) else str(v)]
    return out


def _error_line(stderr: str, status: int) -> str:
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    if lines:
        return lines[-1]
    if status < 0:
        return f"stepdoctor was killed by signal {-status}"
    return f"stepdoctor exited with status {status} and no message"


def run(args: List[str]) -> Tuple[int, bytes, str]:
    """Runs the CLI; returns (status, stdout, stderr) for status 0 or 1, raises otherwise."""
    command = (find_cli(), *args)
    try:
        proc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise StepdoctorError(f"{command[0]}: cannot run: {e.strerror or e}", exit_status=-1, command=command)
    stderr = proc.stderr.decode("utf-8", errors="replace")
    if proc.returncode not in (EXIT_OK, EXIT_FAIL_ON):
        raise StepdoctorError(_error_line(stderr, proc.returncode), proc.returncode, command)
    return proc.returncode, proc.stdout, stderr


def run_json(args: List[str]) -> Tuple[Dict[str, Any], int, List[str]]:
    """Runs the CLI with --format json; returns (object, status, --fail-on reasons met)."""
    status, stdout, stderr = run(args)
    try:
        data = json.loads(stdout)
    except ValueError as e:
        raise StepdoctorError(f"stepdoctor printed no JSON report ({e})", status, (find_cli(), *args))
    if not isinstance(data, dict):
        raise StepdoctorError("stepdoctor printed JSON that is not a report object", status, (find_cli(), *args))
    # "stepdoctor: --fail-on EXPR met: REASON", one line per condition met.
    reasons = [l.split(": ", 1)[1] for l in stderr.splitlines() if l.startswith("stepdoctor: --fail-on ")]
    return data, status, reasons
