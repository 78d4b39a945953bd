"""Which files of a tool folder are executables, and reading one (bounded) with its SHA-256.

Both trust (which hashes them) and discovery (which offers them) list a folder this way, so a
file is trusted exactly when it would be offered."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.executables.errors import ExecutableError

MAX_PROGRAM_BYTES = 64 << 20  # a program is copied into a memfd or a private folder per run


def tool_files(folder: Path) -> list[Path]:
    """The executables directly in `folder`, sorted: regular files (a link to one counts) with
    an execute bit, not hidden. A missing folder has none."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            mode = entry.stat().st_mode  # follows a link: what runs is what it points to
        except OSError:  # a dangling link
            continue
        if stat.S_ISREG(mode) and mode & 0o111:
            found.append(Path(entry.path))
    return found


def read_program(path: Path) -> tuple[bytes, str]:
    """The bytes of the program at `path` and their hex SHA-256. These very bytes are what
    runs: the file is never executed from disk, so a change after this read has no effect."""
    try:
        with path.open("rb") as handle:
            content = handle.read(MAX_PROGRAM_BYTES + 1)
    except OSError as error:
        raise ExecutableError(
            codes.EXECUTABLE_NOT_FOUND, f"{path} cannot be read: {error.strerror or error}", path=str(path)
        ) from None
    if len(content) > MAX_PROGRAM_BYTES:
        raise ExecutableError(
            codes.EXECUTABLE_NOT_FOUND,
            f"{path} is larger than {MAX_PROGRAM_BYTES >> 20} MiB, the most an executable tool may be",
            path=str(path),
        )
    return content, hashlib.sha256(content).hexdigest()
