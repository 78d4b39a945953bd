"""Generic traversal: the children of a node, and a walk over a whole tree.

Passes that care about every node kind dispatch with `match` themselves; these helpers are
for questions that do not (which names are read, how many nodes, how deep).
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkiln.ast import compute as n


def children(node: n.Node) -> Iterator[n.Node]:
    match node:
        case n.Unary(operand=operand):
            yield operand
        case n.Binary(left=left, right=right):
            yield left
            yield right
        case n.Conditional(test=test, then=then, otherwise=otherwise):
            yield test
            yield then
            yield otherwise
        case n.Call(args=args) | n.ListExpr(items=args):
            yield from args
        case n.Field_(target=target):
            yield target
        case n.Index(target=target, index=index):
            yield target
            yield index
        case n.Comprehension(element=element, iterable=iterable, condition=condition):
            yield iterable
            yield element
            if condition is not None:
                yield condition
        case n.Hole(expr=expr):
            yield expr
        case n.Template(parts=parts):
            yield from parts
        case n.Assign(value=value) | n.Return(value=value):
            yield value
        case n.Lookup(key=key, default=default):
            yield key
            if default is not None:
                yield default
        case n.Format(template=template):
            yield template
        case n.CallTool(args=args):
            yield from args
        case n.ToolArg(value=value):
            yield value
        case n.If(condition=condition, then=then, otherwise=otherwise):
            yield condition
            yield from then
            yield from otherwise
        case n.Param(default=default):
            if default is not None:
                yield default
        case n.Program(parameters=parameters, steps=steps):
            yield from parameters or ()
            yield from steps


def walk(node: n.Node) -> Iterator[n.Node]:
    """Every node of the tree, parents before children (iterative: no recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))
