"""The one error of this package: `ExecutableError`, carrying a stable R06xx code."""

from __future__ import annotations

from toolkiln.diagnostics import codes
from toolkiln.errors import Error


class ExecutableError(Error):
    """An executable tool that cannot be found, trusted, described, called or sandboxed."""

    def __init__(self, code: codes.Code, message: str, hint: str | None = None, *, path: str | None = None) -> None:
        self.code, self.name, self.message, self.hint, self.path = code.code, code.name, message, hint, path
        super().__init__(f"[{code.code}] {message}")
