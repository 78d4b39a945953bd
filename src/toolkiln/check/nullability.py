"""Null in the checker: a parameter's declared type (`= null` makes it nullable), the null tests
that narrow a variable (`x != null`, through `and`, `or` and `not`), and what `coalesce` gives."""

from __future__ import annotations

from toolkiln.ast import compute as n
from toolkiln.ast.types import NULL, Type, join, not_null, or_null


def declared_type(param: n.Param) -> Type:
    """A parameter's type; `= null` makes it nullable (`x: string = null` is `x: string?`), so
    that its published schema allows the default it publishes."""
    return or_null(param.type) if isinstance(param.default, n.NullLit) else param.type


def null_test(condition: n.Expr) -> tuple[n.Name, bool] | None:
    """`x != null` -> (x, True); `x == null` -> (x, False): the name tested, and whether it is
    not null where the condition holds."""
    if not isinstance(condition, n.Binary) or condition.op not in n.EQUALITY_OPS:
        return None
    left, right = condition.left, condition.right
    if isinstance(left, n.NullLit):
        left, right = right, left
    if isinstance(left, n.Name) and isinstance(right, n.NullLit):
        return left, condition.op == "!="
    return None


def not_null_where(condition: n.Expr, holds: bool) -> list[n.Name]:
    """The names `condition` proves not null where it is `holds`: `x != null and y != null`
    holding proves both; `x == null or y == null` failing proves both; `not` flips."""
    found: list[n.Name] = []
    stack = [(condition, holds)]
    while stack:  # a loop, not recursion: `and` chains may be thousands of terms long
        expr, value = stack.pop()
        if isinstance(expr, n.Unary) and expr.op == "not":
            stack.append((expr.operand, not value))
        elif isinstance(expr, n.Binary) and expr.op == ("and" if value else "or"):
            stack += [(expr.right, value), (expr.left, value)]
        else:
            tested = null_test(expr)
            if tested is not None and tested[1] == value:
                found.append(tested[0])
    return found


def coalesce_type(types: list[Type]) -> Type:
    """The first value that is not null: null only if the last one may be."""
    present = [not_null(type_) for type_ in types if type_ != NULL]
    result = present[0] if present else NULL
    for type_ in present[1:]:
        result = join(result, type_)
    return or_null(result) if types[-1].nullable or types[-1] == NULL else result
