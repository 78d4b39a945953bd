"""Files toolkiln keeps for itself in `parsers/` of the state home, each signed with this user's
key: the first line is an HMAC-SHA256 of the rest, over the file's name (what it holds). A file
is read only when it is a regular file (opened without blocking: a FIFO in its place would
otherwise hang the command) of at most 16 MB, and its body is handed back only when the
signature verifies: whoever decodes it (`marshal`) never sees bytes another user made. This
module does not import Lark (the error finder that runs without it reads its tables here)."""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
import tempfile
from pathlib import Path

from toolkiln.statehome import state_home

PARSERS = "parsers"
MAX_CACHE_BYTES = 16 * 1024 * 1024  # compute.lark's parser is about 100 KB


def signed_path(name: str, digest: str) -> Path:
    """Where the file of this name and content hash is kept."""
    return state_home() / PARSERS / f"{name}-{digest}.marshal"


def mac(key: bytes, name: str, body: bytes) -> bytes:
    return hmac.new(key, b"toolkiln parser\0" + name.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()


def read_signed(path: Path, key: bytes, name: str) -> bytes | None:
    """The body of the file at `path` when its signature verifies under `key`, else None."""
    try:  # without blocking on a FIFO, and a regular file only
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            data = file.read(MAX_CACHE_BYTES + 1)
    except OSError:
        return None
    signature, _, body = data.partition(b"\n")
    if len(data) > MAX_CACHE_BYTES or not hmac.compare_digest(signature, mac(key, name, body)):
        return None  # never decoded: marshal reads only what this user's key signed
    return body


def write_signed(path: Path, key: bytes, name: str, body: bytes) -> None:
    """Write the file atomically (readable by this user only); a failure only means the next
    process makes it again."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(mac(key, name, body) + b"\n" + body)
        os.replace(temp, path)
    except OSError:
        Path(temp).unlink(missing_ok=True)
