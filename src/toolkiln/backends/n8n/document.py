"""Reading an n8n workflow (a dict, or JSON text) for the importer and the linter: what is
not an n8n workflow at all is a CompileError (E0724); everything n8n itself accepts passes."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from toolkiln.ast.records import record, set_field
from toolkiln.ast.spans import LineIndex, Span, json_path
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic, sort_key
from toolkiln.diagnostics.source import Source
from toolkiln.errors import CompileError
from toolkiln.syntax.json_data import deeper_than, foreign_value_at
from toolkiln.syntax.json_positions import value_offsets
from toolkiln.syntax.limits import MAX_DEPTH
from toolkiln.syntax.strings import (
    LONE_SURROGATE,
    LONE_SURROGATE_HINT,
    lone_surrogate_at,
)


@record()
class N8nInput:
    data: dict[str, Any]
    source: Source  # where diagnostics point (the JSON text, when there is one)

    def __init__(self, data: dict[str, Any], source: Source) -> None:
        set_field(self, "data", data)
        set_field(self, "source", source)

    def locate(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        return sorted((d.located(self.source) for d in diagnostics), key=sort_key)


def at(path: str) -> Span:
    """The span of the JSON value at `path` (mapped onto the file's line and column, if any)."""
    return Span(line=0, column=0, end_line=0, end_column=0, path=path)


def looks_like_n8n(data: Any) -> bool:
    """Whether parsed JSON is meant as an n8n workflow (an object with a `nodes` list)."""
    return isinstance(data, dict) and isinstance(data.get("nodes"), list)


def read_n8n(data: Any, file: str | None = None) -> N8nInput:
    text = None
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    if isinstance(data, str):
        text = data
        try:
            data = json.loads(text)
        except RecursionError:
            _fail(file, text, "the JSON is nested too deeply", None)
        except ValueError as error:
            offset = getattr(error, "pos", 0)
            index = LineIndex(text)
            span = index.span(offset, min(offset + 1, len(text)))
            _fail(file, text, f"not JSON: {getattr(error, 'msg', error)}", span)
    source = Source(name=file, text=text, json_offsets=value_offsets if text is not None else None)
    if not isinstance(data, dict):
        _fail(file, text, f"an n8n workflow is a JSON object, not {_kind(data)}", None)
    problems = list(_problems(data))
    surrogate = lone_surrogate_at(data)
    if surrogate is not None:  # a node's name becomes its id's input, hashed as UTF-8
        problems.append((json_path(surrogate), LONE_SURROGATE, LONE_SURROGATE_HINT))
    diagnostics = [Diagnostic.of(codes.NOT_A_WORKFLOW, message, at(path), hint) for path, message, hint in problems]
    # Before any recursive walk (copies, the importer, the emitter, printers): real exports
    # nest 14 levels at most (2,417 public ones); 200 keeps every walk far from Python's limit.
    too_deep = deeper_than(data, MAX_DEPTH)
    if too_deep is not None:
        message = f"the workflow nests lists and objects deeper than {MAX_DEPTH} levels"
        diagnostics.append(Diagnostic.of(codes.TOO_DEEP, message, at(json_path(too_deep))))
    foreign = foreign_value_at(data)
    if foreign is not None:  # a dict handed in from Python: n8n reads and writes only JSON
        path, what = foreign
        message = f"{what} is no JSON value, and no n8n export holds it"
        diagnostics.append(Diagnostic.of(codes.NOT_A_WORKFLOW, message, at(json_path(path))))
    if diagnostics:
        raise CompileError(N8nInput(data, source).locate(diagnostics))
    return N8nInput(data, source)


def _problems(data: dict[str, Any]) -> Iterator[tuple[str, str, str | None]]:
    # No `name` is fine: the editor copies a workflow to the clipboard without one.
    if not isinstance(data.get("nodes"), list):
        yield "nodes", "the workflow has no `nodes` list", None
        return
    if "connections" in data and not isinstance(data["connections"], dict):
        yield "connections", "`connections` is not an object", None
    for index, node in enumerate(data["nodes"]):
        where = f"nodes[{index}]"
        if not isinstance(node, dict):
            yield where, f"node {index} is {_kind(node)}, not an object", None
            continue
        if not isinstance(node.get("name"), str) or not node["name"].strip():
            yield where, f"node {index} has no name", None
        if not isinstance(node.get("type"), str) or not node["type"].strip():
            yield where, f"node {index} has no type", 'e.g. "type": "n8n-nodes-base.set"'
        version = node.get("typeVersion", 1)  # n8n runs a node without one (W0730)
        if isinstance(version, bool) or not isinstance(version, int | float) or not _finite(version):
            yield where, f"node {index} has no numeric typeVersion", 'e.g. "typeVersion": 1'
        if not isinstance(node.get("parameters", {}), dict):
            yield f"{where}.parameters", f"the parameters of node {index} are not an object", None


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer beyond any float (10**400) is no version either
        return False


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", type(None): "null", bool: "a boolean"}.get(type(value), "a number")


def _fail(file: str | None, text: str | None, message: str, span: Span | None) -> None:
    diagnostic = Diagnostic.of(
        codes.NOT_A_WORKFLOW, message, span, hint="export the workflow from the n8n editor (Download) or the n8n API"
    )
    raise CompileError([diagnostic.located(Source(name=file, text=text))])
