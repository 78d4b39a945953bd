"""The files of a registry that could not be loaded (`Registry.problems`), by file relative to
its folder: each a `Problem` with its diagnostics, kept until the file is fixed or removed."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import Folder
from toolkiln.registry.models import Problem


class Problems(dict[str, Problem]):
    def __init__(self, folder: Folder) -> None:
        super().__init__()
        self.folder = folder

    def unreadable(self, path: Path, error: StoreError) -> None:
        """A file (or folder) the folder refused or could not read: a problem with its code."""
        rel = self.folder.relative(path)
        diagnostic = Diagnostic.of(codes.lookup_code(error.code) or codes.STORE_ERROR, error.message, None, error.hint)
        self[rel] = Problem(file=rel, diagnostics=(replace(diagnostic, file=rel),))

    def note(self, rel: str, code: codes.Code, message: str, hint: str | None) -> None:
        """A problem of the file `rel` with one diagnostic."""
        self[rel] = problem(rel, code, message, hint)

    def drop_under(self, folder_rel: str) -> None:
        """Forget the problems of a folder and of every file in it (before it is looked at again)."""
        prefix = folder_rel + os.sep
        for rel in [r for r in self if r == folder_rel or r.startswith(prefix)]:
            del self[rel]

    def of(self, path: Path) -> Problem | None:
        return self.get(self.folder.relative(path))


def problem(rel: str, code: codes.Code, message: str, hint: str | None) -> Problem:
    """A problem of the file `rel` with one diagnostic."""
    return Problem(file=rel, diagnostics=(replace(Diagnostic.of(code, message, None, hint), file=rel),))
