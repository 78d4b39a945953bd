"""Name analysis before type checking: which names a program assigns and which it reads freely."""

from __future__ import annotations

from toolkiln.ast import compute as n
from toolkiln.ast.visitor import children, walk


def assigned_names(program: n.Program) -> set[str]:
    return {node.target for node in walk(program) if isinstance(node, n.ASSIGNING_STEPS)}


def free_names(program: n.Program) -> list[str]:
    """Names read outside the comprehensions that bind them, in order of first appearance."""
    seen: dict[str, None] = {}
    stack: list[tuple[n.Node, frozenset[str]]] = [(step, frozenset()) for step in reversed(program.steps)]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, n.Name):
            if node.name not in bound:
                seen.setdefault(node.name, None)
            continue
        if isinstance(node, n.Comprehension):
            inner = bound | {node.var}
            parts = [(node.iterable, bound), (node.element, inner)]
            if node.condition is not None:
                parts.append((node.condition, inner))
            stack.extend(reversed(parts))
            continue
        stack.extend((child, bound) for child in reversed(list(children(node))))
    return list(seen)
