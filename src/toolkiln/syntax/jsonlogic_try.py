"""JsonLogic's `try`: its alternatives in turn until one does not fail (docs/decisions.md#try).

`{"try": [a, b, c]}` is `try a catch e1: try b' catch e2: c'`, where `b'` is `b` with the data
switched to the error object of `a`'s failure (`js_error_data(e1)`: `{"type": "NaN"}`, or what
a `throw` threw), and so on: what JsonLogic engines give the next alternative. The scope
climbs (`val`'s `[[n], ...]`) as inside an iteration: two levels up is the data around the
`try`. The last alternative's failure stops the rule. Budgets and limits are never caught.
"""

from __future__ import annotations

from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import json_path, path_span
from toolkiln.ast.types import ANY, NULL
from toolkiln.syntax.jsonlogic import Path, Translator, Typed, literal

Scope = tuple[Typed, ...]


def translate_try(t: Translator, args: Any, path: Path, scope: Scope) -> Typed:
    if not isinstance(args, list):
        return t.rule(args, path, scope)
    if not args:
        return literal(None)
    return _alternatives(t, args, 0, path, scope)


def _alternatives(t: Translator, args: list[Any], index: int, path: Path, scope: Scope) -> Typed:
    first = t.rule(args[index], (*path, index), scope)
    if index == len(args) - 1:
        return first
    name = t.fresh("error")
    error_data = t.call("js_error_data", n.Name(name=name), path=path)
    rest = _alternatives(t, args, index + 1, path, (*scope, Typed(n.NullLit(), NULL), error_data))
    attempt = n.Try(body=first.expr, var=name, handler=rest.expr, span=path_span(json_path(("rule", *path))))
    return Typed(attempt, first.type if first.type == rest.type else ANY)
