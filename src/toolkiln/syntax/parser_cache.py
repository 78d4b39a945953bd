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

`keep_error_tables` keeps, beside it, the compute parser's LALR tables and terminals as plain
data for the error finder that explains a syntax error without importing Lark
(syntax/error_tables.py, syntax/lr_driver.py), signed the same way.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import re
import sys
from pathlib import Path
from typing import Any

import lark
from lark import Lark
from lark.grammar import Rule
from lark.lexer import PatternStr, TerminalDef
from lark.parsers.lalr_analysis import Shift

from toolkiln.statehome import load_key
from toolkiln.syntax.error_tables import DEEPER, FORMAT, REDUCE, SHIFT, SINGLE, SPLICED, tables_path
from toolkiln.syntax.signed_files import mac, read_signed, signed_path, write_signed
from toolkiln.version import __version__


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
    return signed_path(name, hashlib.sha256(what.encode()).hexdigest()[:32])


_mac = mac  # (the tests sign with another key)


def _read(path: Path, key: bytes, name: str, objects: dict[str, Any]) -> Lark | None:
    """The parser in `path`, or None when there is none or it does not verify or load."""
    body = read_signed(path, key, name)
    if body is None:
        return None
    try:
        return Lark.__new__(Lark)._load(_decoded(body), **objects)
    except Exception:  # noqa: BLE001 - our own signed file that this Lark cannot load: build anew
        return None


def _write(path: Path, key: bytes, name: str, parser: Lark, objects: tuple[str, ...]) -> None:
    """Write the parser's file; a failure only means the next process builds it again."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {option: value for option, value in data["options"].items() if option not in objects}
    try:
        body = _encoded({"data": data, "memo": memo})
    except ValueError:  # something Lark serializes that is not plain data: not cached
        return
    write_signed(path, key, name, body)


def _encoded(value: Any) -> bytes:
    """Lark's serialized data as bytes that read back equal (tuples as tuples, dicts with
    number keys); ValueError for anything but plain data (marshal refuses other objects)."""
    return marshal.dumps(value)


def _decoded(body: bytes) -> Any:
    """The data `_encoded` wrote. Only ever called on a body whose signature verified."""
    return marshal.loads(body)


def keep_error_tables(name: str, grammar: str, options: dict[str, Any], parser: Lark) -> None:
    """Keep the tables of `parser` for the error finder that runs without Lark
    (syntax/error_tables.py), unless a file of them verifies already."""
    key = load_key()
    if key is None:
        return
    postlex = parser.options.postlex
    always_accept = tuple(postlex.always_accept) if postlex else ()
    path = tables_path(name, grammar, options, always_accept, lark.__version__)
    if read_signed(path, key, f"{name}-tables") is not None:
        return
    tables = error_tables_of(parser)
    if tables is not None:  # (plain str, int, tuple, list and dict only: marshal takes no str subclass)
        write_signed(path, key, f"{name}-tables", marshal.dumps(tables))


def error_tables_of(parser: Lark) -> dict[str, Any] | None:
    """The LALR tables and terminals of a Lark parser with a contextual lexer, as plain data
    (`error_tables.ErrorTables`); None for a parser whose lexer the error finder cannot
    stand in for (other regex flags or module, bytes, lexer callbacks)."""
    conf = parser.lexer_conf
    if conf.g_regex_flags or conf.use_bytes or conf.callbacks or conf.re_module is not re:
        return None
    if conf.lexer_type != "contextual" or parser.options.parser != "lalr":
        return None
    table = parser.parser.parser._parse_table
    rules: dict[Rule, int] = {}
    states = {
        state: {
            str(symbol): (SHIFT, arg) if action is Shift else (REDUCE, rules.setdefault(arg, len(rules)))
            for symbol, (action, arg) in actions.items()
        }
        for state, actions in table.states.items()
    }
    terminals = sorted(conf.terminals, key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
    return {
        "format": FORMAT,
        "states": states,
        "rules": [(str(rule.origin.name), len(rule.expansion), _bound(rule)) for rule in rules],
        "start_states": {str(start): state for start, state in table.start_states.items()},
        "end_states": {str(start): state for start, state in table.end_states.items()},
        "terminals": [(str(t.name), _literal(t), str(t.pattern.to_regexp())) for t in terminals],
        "ignore": tuple(str(name) for name in conf.ignore),
        "always_accept": tuple(parser.options.postlex.always_accept if parser.options.postlex else ()),
        "unless": _unless(terminals),
        "literals": {str(t.name): str(t.pattern.value) for t in conf.terminals if t.pattern.type == "str"},
    }


def _literal(terminal: TerminalDef) -> str | None:
    pattern = terminal.pattern
    return str(pattern.value) if isinstance(pattern, PatternStr) and not pattern.flags else None


def _bound(rule: Rule) -> int:
    """How the depth of what `rule` builds follows its children's (error_tables' constants),
    as Lark's tree builder and the depth guard treat it."""
    if rule.origin.name.startswith("__"):
        return SPLICED
    options = rule.options
    placeholders = any(options.empty_indices or ())
    if options.expand1 and not rule.alias and len(rule.expansion) == 1 and not placeholders:
        return SINGLE
    return DEEPER


def _unless(terminals: list[TerminalDef]) -> dict[str, list[tuple[str, bool]]]:
    """For each regexp terminal, the string terminals of its priority that it matches whole,
    in the lexers' order, and whether they are left out of a lexer that has both (Lark's
    `_create_unless`)."""
    strings = [t for t in terminals if isinstance(t.pattern, PatternStr)]
    found: dict[str, list[tuple[str, bool]]] = {}
    for retok in terminals:
        if isinstance(retok.pattern, PatternStr):
            continue
        regexp = retok.pattern.to_regexp()
        matched = [
            (str(s.name), s.pattern.flags <= retok.pattern.flags)  # type: ignore[operator] # (as Lark compares them)
            for s in strings
            if s.priority == retok.priority and _whole_match(regexp, s.pattern.value)
        ]
        if matched:
            found[str(retok.name)] = matched
    return found


def _whole_match(regexp: str, text: str) -> bool:
    match = re.match(regexp, text)
    return match is not None and match.group(0) == text
