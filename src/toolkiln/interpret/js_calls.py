"""Closures for the commonest calls of imported JsonLogic rules, in either number mode: what
the builtin computes, without the builtin's call where the call's form says the answer.

`js_var(data, "field")` (one step, no default) is a field of an object: `data.get("field")`
(null where it is missing, as the builtin's default); anything else that is not an object
goes to the builtin. In the float domain, arithmetic is fused as well (float_fused.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.interpret.plan import Fn, Frame
from toolkiln.semantics.builtins import BUILTINS, Builtin
from toolkiln.semantics.limits import Limits


def builtin_for(name: str, floats: bool) -> Builtin:
    """The builtin a call of `name` runs: in the float domain, the one giving floats."""
    if floats:
        from toolkiln.interpret.float_fused import FLOAT_BUILTINS  # (float programs only)

        return FLOAT_BUILTINS.get(name) or BUILTINS[name]
    return BUILTINS[name]


def specialised(call: n.Call, closure: Callable[[n.Expr], Fn], limits: Limits, floats: bool) -> Fn | None:
    """A closure for `call`, or None where the builtin's own call is the way."""
    if floats:
        from toolkiln.interpret.float_fused import fused  # (float programs only)

        if arithmetic := fused(call, closure):
            return arithmetic
    if call.function == "js_var" and len(call.args) == 2:
        path = call.args[1]
        if isinstance(path, n.StringLit) and path.value and "." not in path.value:
            return _field(closure(call.args[0]), path.value, limits)
    return None


def _field(data: Fn, key: str, limits: Limits) -> Fn:
    var = BUILTINS["js_var"].impl  # (it never fails: nothing to locate)

    def field(f: Frame) -> Any:
        value = data(f)
        if type(value) is dict:
            return value.get(key)  # (None where missing, as js_var's default)
        return var(limits, value, key)

    return field
