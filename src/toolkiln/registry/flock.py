"""The registry folder's lock held once by a one-shot process, with flock(2) itself.

A folder's writers hold `.lock` through the filelock package, which on POSIX is flock(2) on
that file (it leaves the file in place, so every holder locks the same inode): a process that
flocks the file itself excludes them and is excluded by them. Importing filelock costs a
one-shot `tools run` more than the rest of the registry it needs (logging, secrets, hashlib and
its own twenty modules: 85 M instructions), to count one run in usage.json. So a `Folder` made
`one_shot` (registry/folder_run.py: one thread, one lock taken once, never re-entered) takes
the lock here; where this cannot (no fcntl, a filesystem without flock, a lock file it cannot
open), `hold` says so and the folder takes filelock's way, which has its fallbacks.
"""

from __future__ import annotations

import errno
import os
import time

try:
    import fcntl
except ImportError:  # (not POSIX: filelock's way)
    fcntl = None  # type: ignore[assignment]

_BUSY = frozenset({errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK})  # (filelock's contention errors)
_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | os.O_NONBLOCK
POLL_SECONDS = 0.002  # as the folder's filelock polls


class Busy(Exception):
    """Another process held the lock for the whole timeout."""


def hold(path: str, timeout: float) -> int | None:
    """A descriptor holding the lock on `path` (closing it lets go), or None when flock cannot
    be used here; Busy when another holder kept it for `timeout` seconds."""
    if fcntl is None:
        return None
    try:
        fd = os.open(path, _FLAGS, 0o644)
    except OSError:
        return None
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError as error:
            if error.errno not in _BUSY:  # (no flock on this filesystem, ...)
                os.close(fd)
                return None
        if time.monotonic() >= deadline:
            os.close(fd)
            raise Busy(path)
        time.sleep(POLL_SECONDS)
