"""Which files of a tool folder are executables, and reading one, safely, with its SHA-256.

Both trust (which hashes them) and discovery (which offers them) list a folder this way, so a
file is trusted exactly when it would be offered.

A program file is opened once, without following a link and without blocking, and checked on
that descriptor before a byte is read: a regular file (never a FIFO, device, socket, folder
or link), at most `MAX_PROGRAM_BYTES`, and, when the caller names allowed folders, inside
one of them by its real path (the descriptor's, not the path's text). The bytes read from that
descriptor are the ones hashed, pinned and run: nothing opens the path a second time.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.executables.errors import ExecutableError
from toolkiln.syntax.loader import file_kind, read_regular_file

MAX_PROGRAM_BYTES = 64 << 20  # a program is copied into a memfd or a private folder per run
ELF_MAGIC = b"\x7fELF"
# O_PATH opens nothing (no device is touched, a FIFO does not wait); with O_NOFOLLOW it opens a
# link itself, which fstat then reports. The file is read through a second descriptor opened
# from the first (/proc/self/fd/N is that very file, whatever the path names by then).
_LOCATE = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
_AS_FILES = "give the absolute path of the regular file itself (a link's target, not the link)"


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


def read_program(
    path: Path, *, allowed_folders: tuple[Path, ...] | None = None, follow_link: bool = False
) -> tuple[bytes, str]:
    """The bytes of the program at `path` and their hex SHA-256. These very bytes are what
    runs: the file is never executed from disk, so a change after this read has no effect.

    `allowed_folders`: the file's real path must be inside one of them (an empty tuple allows
    nothing); None, the default for the local user, allows any path. A path outside them, a
    missing one and an unreadable one give the same R0605, so the answer does not say which
    files exist. R0613 for what is not a regular file (a link, FIFO, device, socket, folder),
    a relative path, or a file over `MAX_PROGRAM_BYTES`. `follow_link`: a link as the last
    part of the path is resolved first (a tool folder's entries, which the user put there)."""
    if not path.is_absolute():
        raise _unsafe(path, "is not an absolute path")
    if follow_link:
        path = Path(os.path.realpath(path))
    fd = _located(path, allowed_folders)
    try:
        content = _read_regular_file(fd, path)
    finally:
        os.close(fd)
    import hashlib  # (28 M instructions to import, OpenSSL's start: only when a file is pinned or checked)

    return content, hashlib.sha256(content).hexdigest()


def is_program(content: bytes) -> bool:
    """Whether `content` is something the kernel runs itself: a `#!` line or an ELF binary.
    Anything else bwrap would hand to /bin/sh, which runs it line by line and quotes each
    line it cannot run in its errors (a secret file's lines, in R0611's excerpt)."""
    return content.startswith((b"#!", ELF_MAGIC))


def refuse_non_program(content: bytes, name: str) -> None:
    """R0614 unless `content` is a program (`is_program`); its bytes are never quoted."""
    if not is_program(content):
        raise ExecutableError(
            codes.NOT_A_PROGRAM,
            f"`{name}` is not a program: its file starts with neither `#!` nor an ELF header; it was not run",
            "start a script with its interpreter line, e.g. #!/usr/bin/env python3",
        )


def _located(path: Path, allowed_folders: tuple[Path, ...] | None) -> int:
    """A descriptor (O_PATH) of what `path` names, checked to be inside `allowed_folders`."""
    try:
        fd = os.open(path, _LOCATE)
    except OSError as error:
        raise _unreadable(path, error.strerror or str(error), allowed_folders) from None
    except (UnicodeEncodeError, ValueError):  # a lone surrogate, a NUL: no file has that name
        raise _unreadable(path, "no file has that name", allowed_folders) from None
    try:
        if allowed_folders is not None and not _inside(os.readlink(f"/proc/self/fd/{fd}"), allowed_folders):
            raise _unreadable(path, "it is outside the allowed folders", allowed_folders)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _inside(real_path: str, folders: tuple[Path, ...]) -> bool:
    real = Path(real_path)
    return any(real.is_relative_to(os.path.realpath(folder)) for folder in folders)


def _read_regular_file(located: int, path: Path) -> bytes:
    info = os.fstat(located)
    if not stat.S_ISREG(info.st_mode):
        raise _unsafe(path, f"is {file_kind(info.st_mode)}, not a regular file")
    if info.st_size > MAX_PROGRAM_BYTES:
        raise _too_large(path)
    try:  # non-blocking, checked again, at most the cap and one byte
        content = read_regular_file(f"/proc/self/fd/{located}", MAX_PROGRAM_BYTES)
    except OSError as error:
        raise _unreadable(path, error.strerror or str(error), None) from None
    if len(content) > MAX_PROGRAM_BYTES:  # it grew after the check
        raise _too_large(path)
    return content


def _unreadable(path: Path, why: str, allowed_folders: tuple[Path, ...] | None) -> ExecutableError:
    if allowed_folders is None:
        return ExecutableError(codes.EXECUTABLE_NOT_FOUND, f"{path} cannot be read: {why}", path=str(path))
    # One answer for missing, unreadable and outside: which files exist is not told.
    return ExecutableError(
        codes.EXECUTABLE_NOT_FOUND,
        f"{path} is not a readable file inside the folders executables may come from",
        "the allowed folders: " + (", ".join(map(str, allowed_folders)) or "none"),
        path=str(path),
    )


def _unsafe(path: Path, why: str) -> ExecutableError:
    return ExecutableError(codes.UNSAFE_EXECUTABLE_FILE, f"{path} {why}", _AS_FILES, path=str(path))


def _too_large(path: Path) -> ExecutableError:
    return ExecutableError(
        codes.UNSAFE_EXECUTABLE_FILE,
        f"{path} is larger than {MAX_PROGRAM_BYTES >> 20} MiB, the most an executable tool may be",
        path=str(path),
    )
