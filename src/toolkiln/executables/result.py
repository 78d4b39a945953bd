"""`RunResult`: what one run of a program gave, and whether it counts as a failure."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from toolkiln.executables.policy import SandboxKind


@dataclass(frozen=True)
class RunResult:
    """One run. `output` is stdout parsed as JSON when it is JSON, else its text; `stderr` is
    the start of what the program wrote there (at most `stderr_excerpt_bytes`)."""

    stdout: str
    stderr: str
    exit_code: int  # negative: killed by that signal (as subprocess reports it)
    timed_out: bool
    capped: bool  # stdout or stderr went past the output cap; the run was killed there
    duration_seconds: float
    sandbox: SandboxKind
    truncated: bool = False  # stdout went past the cap under `truncate_output`: cut, with a marker

    @cached_property
    def output(self) -> Any:
        try:
            return json.loads(self.stdout)
        except ValueError:
            return self.stdout

    @property
    def error(self) -> dict[str, Any] | None:
        """None for a successful run; else `{"error": ..., "details": ...}`, the program's own
        when it printed one (the protocol's error object), or one saying how the run failed."""
        output = self.output
        if isinstance(output, dict) and "error" in output:
            return {"error": str(output["error"]), "details": output.get("details")}
        if self.timed_out:
            return {"error": f"timed out after {self.duration_seconds:.1f} s; killed", "details": self.stderr or None}
        if self.capped:
            return {"error": "output past the cap; killed", "details": self.stderr or None}
        if self.exit_code != 0:
            return {"error": f"exited with status {self.exit_code}", "details": self.stderr or None}
        return None
