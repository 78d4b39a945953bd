"""A Lark parser's LALR tables and terminals (the compute and the workflow grammar's), kept
signed in the state home for the error finder that runs without Lark (syntax/lr_driver.py).

`parser_cache.keep_error_tables` writes them from the very Lark parser that would otherwise
explain the error, whenever Lark has loaded it; this module reads them back without importing
Lark. The file's name is a hash of the grammar, its options, the post-lexer's tokens, and the
Lark (read from its package without importing it), toolkiln and Python versions: tables of
another grammar or Lark are never looked for. A file that is missing or does not verify means
Lark explains the error, as before, and writes the file again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import re
import sys
from pathlib import Path
from typing import Any

from toolkiln.statehome import load_key
from toolkiln.syntax.grammar_source import COMPUTE_OPTIONS, WORKFLOW_OPTIONS, grammar_text
from toolkiln.syntax.newlines import BracketDepthLimit, StepNewlines
from toolkiln.syntax.signed_files import read_signed, signed_path
from toolkiln.version import __version__

FORMAT = 1  # of the tables' body: a new one is a new file name
SHIFT, REDUCE = 0, 1
# How a reduction's depth bound follows its children's (see lr_driver): a helper of Lark's
# that its parent splices in, a `?rule` of one symbol that Lark replaces by its child, or a
# tree of its own, one level deeper.
SPLICED, SINGLE, DEEPER = 0, 1, 2


class Terminal:
    """A terminal as the lexer tries it. (Plain classes here: a dataclass costs some 3 M
    instructions to make, on every syntax error's `check`.)"""

    __slots__ = ("name", "literal", "regexp")

    def __init__(self, name: str, literal: str | None, regexp: str) -> None:
        self.name = name
        self.literal = literal  # a plain string without flags: matched as it is
        self.regexp = regexp  # Lark's regular expression of it (what its lexer compiles)


class ErrorTables:
    """What the error finder needs of a Lark LALR parser with a contextual lexer, from the
    plain data `parser_cache.error_tables_of` makes."""

    def __init__(self, data: dict[str, Any]) -> None:
        # state -> {symbol: (SHIFT, state) | (REDUCE, rule)}
        self.states: dict[int, dict[str, tuple[int, int]]] = data["states"]
        self.rules: list[tuple[str, int, int]] = data["rules"]  # (name, length, SPLICED | SINGLE | DEEPER)
        self.start_states: dict[str, int] = data["start_states"]
        self.end_states: dict[str, int] = data["end_states"]
        self.terminals = [Terminal(*terminal) for terminal in data["terminals"]]  # in the order tried
        self.ignore = frozenset(data["ignore"])
        self.always_accept = frozenset(data["always_accept"])
        # A terminal's regexp that matches these string terminals whole: the token is theirs
        # (Lark's "unless" callback), and with True they are not tried on their own.
        self.unless: dict[str, list[tuple[str, bool]]] = data["unless"]
        self.literals: dict[str, str] = data["literals"]  # every string terminal's text, for messages


def tables_path(
    name: str, grammar: str, options: dict[str, Any], always_accept: tuple[str, ...], lark_version: str
) -> Path:
    """Where the tables of this grammar, options, post-lexer and Lark version are kept."""
    what = [
        grammar,
        sorted(options.items()),
        sorted(always_accept),
        lark_version,
        __version__,
        sys.version_info[:2],
        FORMAT,
    ]
    return signed_path(f"{name}-tables", hashlib.sha256(json.dumps(what).encode()).hexdigest()[:32])


def compute_tables() -> ErrorTables | None:
    """The compute grammar's kept tables (see `kept_tables`)."""
    return kept_tables("compute", "compute.lark", COMPUTE_OPTIONS, StepNewlines.always_accept)


def workflow_tables() -> ErrorTables | None:
    """The workflow grammar's kept tables (see `kept_tables`)."""
    return kept_tables("workflow", "workflow.lark", WORKFLOW_OPTIONS, BracketDepthLimit.always_accept)


def kept_tables(name: str, grammar: str, options: dict[str, Any], always_accept: tuple[str, ...]) -> ErrorTables | None:
    """The kept tables of the parser of grammar/`grammar`, or None (no key, no file yet, a
    file that does not verify, or no Lark whose version can be read): then Lark explains the
    error, and keeps the tables for the next time. Read once per process and state home."""
    key = load_key()
    version = lark_version()
    if key is None or version is None:
        return None
    path = tables_path(name, grammar_text(grammar), options, always_accept, version)
    if path not in _kept:
        body = read_signed(path, key, f"{name}-tables")
        if body is None:
            return None
        try:
            _kept[path] = _decoded(body)
        except (KeyError, TypeError, ValueError, EOFError):  # our own signed file, of another shape
            return None
    return _kept[path]


_kept: dict[Path, ErrorTables] = {}  # by file: what verified once is read once per process


def _decoded(body: bytes) -> ErrorTables:
    """The tables `parser_cache.keep_error_tables` wrote. Only ever called on a body whose
    signature verified."""
    return ErrorTables(marshal.loads(body))


_VERSION = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*["']([^"']+)["']""", re.MULTILINE)


def lark_version() -> str | None:
    """The installed Lark's version, without importing Lark when it is not loaded yet (from
    its package's `__init__.py`, where Lark writes it)."""
    loaded = sys.modules.get("lark")
    if loaded is not None:
        return str(loaded.__version__)
    spec = importlib.util.find_spec("lark")
    if spec is None or spec.origin is None:
        return None
    try:
        found = _VERSION.search(Path(spec.origin).read_text(encoding="utf-8"))
    except OSError:
        return None
    return found[1] if found else None
