"""A server's own state: its tokens, its web page's secret and its request log.

They live in a state folder of the server's operator, never in the registry folder, which may
come from someone else (a clone, a shared drive, an archive): a folder's own `.server/` is
never read. By default the folder is one per registry under the user's state home
(`$TOOLKILN_STATE_DIR`, else `$XDG_STATE_HOME/toolkiln`, else `~/.local/state/toolkiln`, as
the index key's: registry/index.py), named by a hash of the registry's real path:

    <state home>/servers/<sha256 of the registry's real path, 32 hex digits>/
        tokens.json  web-secret  requests.jsonl

`toolkiln serve --state-dir DIR` (and `tokens`, `mcp --http`) picks another. Either way the
folder must be a real folder, owned by this user and writable by no one else (it is made
0700); its files are opened without following a symbolic link.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

from toolkiln.diagnostics import codes
from toolkiln.errors import Error
from toolkiln.registry.index import state_home
from toolkiln.registry.postgres.urls import is_database_url

SERVERS = "servers"
LEGACY_FOLDER = ".server"  # where servers kept their state before: inside the registry, never read now
_NOFOLLOW_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)


class StateFolderError(Error):
    """A state folder that is not private to this user (R0530): never used."""

    def __init__(self, message: str, hint: str) -> None:
        self.code, self.name = codes.STATE_FOLDER_UNSAFE.code, codes.STATE_FOLDER_UNSAFE.name
        self.message, self.hint = message, hint
        super().__init__(message)


def default_state_folder(registry: Path | str) -> Path:
    """The state folder of a server of `registry` when its operator names none: named by the
    folder's real path, or by a database's URL without its password (`Registry.location`)."""
    key = registry if isinstance(registry, str) and is_database_url(registry) else os.path.realpath(registry)
    return state_home() / SERVERS / hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def state_folder(registry: Path | str, chosen: Path | None = None) -> Path:
    """The server's state folder (`chosen`, else the default), made 0700 when missing;
    StateFolderError (R0530) when it is a link, not a folder, someone else's or writable by others."""
    folder = Path(os.path.abspath(chosen if chosen is not None else default_state_folder(registry)))
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        found = os.lstat(folder)
    except OSError as error:
        raise _unsafe(folder, f"cannot be made: {error.strerror or error}") from None
    if stat.S_ISLNK(found.st_mode):
        raise _unsafe(folder, "is a symbolic link")
    if not stat.S_ISDIR(found.st_mode):
        raise _unsafe(folder, "is not a folder")
    if found.st_uid != os.getuid():
        raise _unsafe(folder, f"belongs to another user (uid {found.st_uid})")
    if found.st_mode & 0o022:
        raise _unsafe(folder, f"is writable by others (mode {stat.S_IMODE(found.st_mode):o})")
    return folder


def _unsafe(folder: Path, why: str) -> StateFolderError:
    return StateFolderError(
        f"the server's state folder {folder} {why}",
        hint="name a private folder of yours with --state-dir (it is made 0700), or fix this one",
    )


def open_private(path: Path, flags: int, mode: int = 0o600) -> int:
    """A descriptor of the regular file `path` in a state folder, opened without following a
    link and without blocking on a FIFO; OSError (ELOOP) for a link, anything but a file."""
    fd = os.open(path, flags | _NOFOLLOW_FLAGS, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"{path} is not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def legacy_warning(registry: Path | str) -> str | None:
    """What to say when the registry folder has a `.server/` of its own (never read)."""
    if isinstance(registry, str) and is_database_url(registry):
        return None
    legacy = Path(registry) / LEGACY_FOLDER
    if not os.path.lexists(legacy):
        return None
    return (
        f"{legacy} is not read: a server keeps its tokens, web secret and request log in its state "
        f"folder, outside the registry. To keep tokens made there, import them on purpose: "
        f"toolkiln tokens import --from {legacy} --registry {registry}"
    )
