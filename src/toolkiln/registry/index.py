"""The start-up index: which tool files decoded, so that a start need not read them all.

Reading and decoding 10,000 tool files takes most of a second; listing the folder and its
file signatures (inode, size, time in ns) takes a few hundredths. So after a start that read
files, `.cache/index.json` records, per tool file that decoded, its signature, the digest of
its bytes (what the check cache knows files by) and the tools it calls. The next start takes a
file whose signature matches its entry as decoded without reading it: its record is read when
first needed (`Mirror` reads it then, and a file whose bytes are not the digest's is read as a
changed file). A file not in the index, or changed since, is read at start as before, so a
broken file is still reported at once.

The index never holds a definition: what runs is always what the file holds. Still, a
registry folder may come from somewhere else, so the index is authenticated: its first line is
an HMAC-SHA256 of the rest under a key of this user's, kept outside every registry folder
(`key_path`), over the folder's identity too. An index that is torn, from another user or
machine, copied from another folder or written by another toolkiln version fails and is
ignored (the files are read). It is JSON, never a pickle.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from typing import NamedTuple

from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import Folder, Sig
from toolkiln.statehome import STATE_DIR_ENV, key_path, load_key, state_home

__all__ = [
    "STATE_DIR_ENV",
    "Entry",
    "folder_identity",
    "key_path",
    "load_key",
    "read_index",
    "state_home",
    "write_index",
]

FORMAT = 1
MAX_INDEX_BYTES = 256 * 1024 * 1024  # about 130 bytes a tool: some two million tools


class Entry(NamedTuple):
    sig: Sig
    digest: str  # of the file's bytes, as the check cache keeps it (codec.file_digest)
    version: int  # the tool's (past versions are looked at before its record is read)
    calls: frozenset[str]


def folder_identity(store: Folder) -> bytes:
    """What ties an index (or a signature) to one folder: its real path, device and inode."""
    st = os.stat(store.root)
    return f"{os.path.realpath(store.root)}\0{st.st_dev}\0{st.st_ino}".encode()


def _mac(key: bytes, store: Folder, version_tag: str, body: bytes) -> str:
    signed = hmac.new(key, folder_identity(store), hashlib.sha256)
    signed.update(b"\0" + version_tag.encode() + b"\0" + body)
    return signed.hexdigest()


def read_index(store: Folder, key: bytes | None, version_tag: str) -> dict[str, Entry]:
    """{tool file name: entry}, or {} for an index that is missing, torn, forged, from another
    folder or toolkiln version, or unreadable."""
    if key is None:
        return {}
    try:
        data = store.read_bytes(store.index_path, MAX_INDEX_BYTES)
    except (StoreError, OSError):
        return {}
    if data is None:
        return {}
    mac, _, body = data.partition(b"\n")
    try:
        expected = _mac(key, store, version_tag, body)
    except OSError:
        return {}
    if not hmac.compare_digest(mac, expected.encode()):
        return {}
    try:
        raw = json.loads(body)
        if raw.get("format") != FORMAT:
            return {}
        return {
            name: Entry((int(ino), int(size), int(mtime)), str(digest), int(version), frozenset(calls))
            for name, (ino, size, mtime, digest, version, calls) in raw["tools"].items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # (authentic but not understood: a format this code does not know)


def write_index(store: Folder, key: bytes | None, version_tag: str, entries: Mapping[str, Entry]) -> None:
    """Replace the index atomically (a killed writer leaves the old one, or a temporary file
    that is never read). A folder that cannot be written keeps no index."""
    if key is None:
        return
    tools = {
        name: [*entry.sig, entry.digest, entry.version, sorted(entry.calls)] for name, entry in sorted(entries.items())
    }
    body = json.dumps({"format": FORMAT, "tools": tools}, separators=(",", ":")).encode()
    try:
        mac = _mac(key, store, version_tag, body)
        store.write_bytes(store.index_path, mac.encode() + b"\n" + body)
    except (StoreError, OSError):
        pass  # only a cache
