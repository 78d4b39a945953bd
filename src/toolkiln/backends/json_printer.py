"""AST -> canonical JSON DSL (the ComputeLogic format), as plain Python data."""

from __future__ import annotations

from typing import Any, assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.types import Type
from toolkiln.backends.expressions import ExprPrinter
from toolkiln.semantics.values import to_plain

_EXPR = ExprPrinter()


def _type(type_: Type) -> dict[str, Any]:
    out: dict[str, Any] = {"type": [type_.name, "null"] if type_.nullable else type_.name}
    if type_.name == "array" and type_.items is not None and type_.items.name != "any":
        out["items"] = _type(type_.items)
    if type_.fields is not None:
        out["properties"] = {key: _type(field) for key, field in type_.fields}
    return out


def _constant(expr: n.Expr) -> Any:
    match expr:
        case n.NumberLit(value=value):
            return to_plain(value)
        case n.StringLit(value=value) | n.BoolLit(value=value):
            return value
        case n.Unary(op="-", operand=n.NumberLit(value=value)):
            return to_plain(-value)
        case n.ListExpr(items=items):
            return [_constant(item) for item in items]
        case n.RecordExpr(entries=entries):
            return {entry.key: _constant(entry.value) for entry in entries}
    return None


def step_json(step: n.Step) -> dict[str, Any]:
    match step:
        case n.Assign(target=target, value=value):
            return {"op": "math", "expression": _EXPR.print(value), "output": target}
        case n.Lookup(target=target, table=table, key=key, default=default):
            out: dict[str, Any] = {"op": "lookup", "table": table, "key": _EXPR.print(key), "output": target}
            if default is not None:
                out["default"] = _EXPR.print(default)
            return out
        case n.Format(target=target, template=template):
            return {"op": "format", "template": _EXPR.template(template, lambda t: t), "output": target}
        case n.CallTool(target=target, tool=tool, args=args):
            return {"op": "call", "tool": tool, "args": {a.name: _EXPR.print(a.value) for a in args}, "output": target}
        case n.If(condition=condition, then=then, otherwise=otherwise):
            out = {"op": "condition", "if": _EXPR.print(condition), "then": [step_json(s) for s in then]}
            if otherwise:
                out["else"] = [step_json(s) for s in otherwise]
            return out
        case n.Return(value=value):
            return {"op": "return", "value": _EXPR.print(value)}
        case _:
            assert_never(step)


def print_json(program: n.Program) -> dict[str, Any]:
    logic = {"steps": [step_json(step) for step in program.steps]}
    if program.name is None:
        return logic
    out: dict[str, Any] = {"name": program.name, "description": program.description or ""}
    if program.parameters is not None:  # none: inferred, as the definition left them
        out["parameters"] = _parameters(program.parameters)
    out["logic"] = logic
    if program.risk_level is not None:
        out["riskLevel"] = program.risk_level
    if program.tables is not None:
        out["tables"] = {
            t.name: {**_type(t.type), **({"description": t.description} if t.description else {})}
            for t in program.tables
        }
    return out


def _parameters(params: tuple[n.Param, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for param in params:
        spec = _type(param.type)
        if param.description is not None:
            spec["description"] = param.description
        if param.default is not None:
            spec["default"] = _constant(param.default)
        out[param.name] = spec
    return out
