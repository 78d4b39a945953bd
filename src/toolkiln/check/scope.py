"""Name analysis before type checking: which names a program assigns and which it reads freely."""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.visitor import children


def assigned_names(program: n.Program) -> set[str]:
    """The targets of the program's steps, at any depth (only steps are looked at, not the
    expressions inside them: a step is only ever in a program's or an `if`'s block)."""
    names: set[str] = set()
    stack = list(program.steps)
    while stack:
        step = stack.pop()
        match step:
            case n.If():
                stack += step.then
                stack += step.otherwise
            case n.Assign() | n.Lookup() | n.Format() | n.CallTool():
                names.add(step.target)
            case n.Return():
                pass
            case _:
                assert_never(step)
    return names


def free_names(program: n.Program) -> list[str]:
    """Names read outside the comprehensions that bind them, in order of first appearance."""
    return list(dict.fromkeys(name.name for step in program.steps for name in free_reads(step)))


def free_reads(node: n.Node) -> Iterator[n.Name]:
    """The Name nodes under `node` that read from outside (comprehension variables excluded),
    in source order."""
    stack: list[tuple[n.Node, frozenset[str]]] = [(node, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, n.Name):
            if node.name not in bound:
                yield node
            continue
        if isinstance(node, n.Comprehension):
            inner = bound | {node.var}
            parts = [(node.iterable, bound), (node.element, inner)]
            if node.condition is not None:
                parts.append((node.condition, inner))
            stack.extend(reversed(parts))
            continue
        if isinstance(node, n.Try):
            stack.extend([(node.handler, bound | {node.var}), (node.body, bound)])
            continue
        stack.extend((child, bound) for child in reversed(children(node)))
