"""Lark parsers built once, kept signed in this user's state folder, and read back verified.

Building the LALR tables of a grammar takes 20-130 ms (compute.lark the most), paid by every
process that parses a workflow or explains a syntax error. Lark's own `cache=True` is not used:
it unpickles a file of a predictable name in the shared temporary folder, which another local
user can write first, and unpickling runs code. Here the parser's data (Lark's serialized form:
dicts, lists, tuples, text, numbers) is written with `marshal`, in `parsers/` of the state
home (`toolkiln.statehome`), never beside a project. Its first line is an HMAC-SHA256 of the
rest under this user's key, over the grammar's name, and the rest is decoded only after that
verifies: `marshal` must never see bytes we did not write (it is not safe on hostile input),
and a file that is torn, edited, made by another user or for another grammar, Lark, toolkiln
or Python version does not verify or is not looked for: the parser is built and the file
written again. Without a key (no writable home) nothing is cached. `marshal` reads the data
four times faster than JSON did (issue 34: 8 M instructions against 32 M for compute.lark).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import marshal
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import lark
from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

from toolkiln.statehome import load_key, state_home
from toolkiln.version import __version__

PARSERS = "parsers"
MAX_CACHE_BYTES = 16 * 1024 * 1024  # compute.lark's parser is about 200 KB


def cached_parser(name: str, grammar: str, objects: dict[str, Any], **options: Any) -> Lark:
    """`Lark(grammar, **options, **objects)`, read from its signed file when one verifies,
    else built and its file written for the next process. `objects` are the options that are
    objects (a post-lexer, a transformer): handed to the parser again, never stored."""
    key = load_key()
    path = cache_path(name, grammar, options)
    loaded = None if key is None else _read(path, key, name, objects)
    if loaded is not None:
        return loaded
    parser = Lark(grammar, **options, **objects)
    if key is not None:
        _write(path, key, name, parser, tuple(objects))
    return parser


def cache_path(name: str, grammar: str, options: dict[str, Any]) -> Path:
    """Where the parser of this grammar, with these options, for this Lark, toolkiln and
    Python is kept: a new version of any of them reads a new file."""
    what = json.dumps([grammar, sorted(options.items()), lark.__version__, __version__, sys.version_info[:2]])
    return state_home() / PARSERS / f"{name}-{hashlib.sha256(what.encode()).hexdigest()[:32]}.marshal"


def _mac(key: bytes, name: str, body: bytes) -> bytes:
    return hmac.new(key, b"toolkiln parser\0" + name.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()


def _read(path: Path, key: bytes, name: str, objects: dict[str, Any]) -> Lark | None:
    """The parser in `path`, or None when there is none or it does not verify or load."""
    try:  # without blocking on a FIFO, and a regular file only
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            data = file.read(MAX_CACHE_BYTES + 1)
    except OSError:
        return None
    mac, _, body = data.partition(b"\n")
    if len(data) > MAX_CACHE_BYTES or not hmac.compare_digest(mac, _mac(key, name, body)):
        return None  # never decoded: marshal reads only what this user's key signed
    try:
        return Lark.__new__(Lark)._load(_decoded(body), **objects)
    except Exception:  # noqa: BLE001 - our own signed file that this Lark cannot load: build anew
        return None


def _write(path: Path, key: bytes, name: str, parser: Lark, objects: tuple[str, ...]) -> None:
    """Write the parser's file atomically (readable by this user only); a failure only means
    the next process builds the parser again."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {option: value for option, value in data["options"].items() if option not in objects}
    try:
        body = _encoded({"data": data, "memo": memo})
    except ValueError:  # something Lark serializes that is not plain data: not cached
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(_mac(key, name, body) + b"\n" + body)
        os.replace(temp, path)
    except OSError:
        Path(temp).unlink(missing_ok=True)


def _encoded(value: Any) -> bytes:
    """Lark's serialized data as bytes that read back equal (tuples as tuples, dicts with
    number keys); ValueError for anything but plain data (marshal refuses other objects)."""
    return marshal.dumps(value)


def _decoded(body: bytes) -> Any:
    """The data `_encoded` wrote. Only ever called on a body whose signature verified."""
    return marshal.loads(body)
