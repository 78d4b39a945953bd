"""This user's toolkiln state, outside every registry and project folder, and the key kept there.

The key signs what toolkiln wrote itself and reads back later: the registry's start-up index and
record signatures (registry/index.py, signatures.py) and the cached Lark parsers
(syntax/parser_cache.py). A folder someone else made cannot carry a valid signature, since it
never holds the key. The lowest layer, beside `version`: it imports nothing of toolkiln.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

STATE_DIR_ENV = "TOOLKILN_STATE_DIR"  # the state home (tests point it at a folder of their own)
KEY_BYTES = 32


def state_home() -> Path:
    """This user's toolkiln state, outside every registry folder: $TOOLKILN_STATE_DIR, else
    $XDG_STATE_HOME/toolkiln, else ~/.local/state/toolkiln (the XDG base directory default).
    The key lives there, and the servers' own folders (toolkiln.server.state)."""
    folder = os.environ.get(STATE_DIR_ENV)
    if not folder:
        state = os.environ.get("XDG_STATE_HOME", "")
        if not os.path.isabs(state):  # (the XDG specification: a relative one is ignored)
            state = os.path.join(os.path.expanduser("~"), ".local", "state")
        folder = os.path.join(state, "toolkiln")
    return Path(folder)


def key_path() -> Path:
    """This user's key: `index.key` in the state home (named for its first use). It signs the
    index, the records the registry wrote (signatures.py) and the cached parsers."""
    return state_home() / "index.key"


def load_key() -> bytes | None:
    """The key, made (random, readable by this user only) on first use; None when it can be
    neither read nor made (no writable home): then nothing signed is read or written."""
    path = key_path()
    if not path.is_absolute():  # no home to keep it in ("~" unresolved): never beside the registry
        return None
    if path not in _keys:
        _keys[path] = _read_or_make_key(path)
    return _keys[path]


_keys: dict[Path, bytes | None] = {}  # by where the key lives: read once per process


def _read_or_make_key(path: Path) -> bytes | None:
    try:
        key = _read_regular(path, KEY_BYTES + 1)
        return key if len(key) == KEY_BYTES else None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made meanwhile by another process: read it once written
        return _written_by_another(path)
    except OSError:
        return None
    key = secrets.token_bytes(KEY_BYTES)
    try:
        os.write(fd, key)
        os.fsync(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return key


def _read_regular(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of the regular file at `path`. Anything else in the key's place
    (a FIFO would block the opening, and every command that signs or verifies, until a writer
    came) is an OSError at once."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return os.read(fd, limit)
    finally:
        os.close(fd)


def _written_by_another(path: Path) -> bytes | None:
    for _ in range(100):
        try:
            key = _read_regular(path, KEY_BYTES + 1)
        except OSError:
            return None
        if len(key) == KEY_BYTES:
            return key
        os.sched_yield()
    return None
