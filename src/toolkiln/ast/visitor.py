"""Generic traversal: the children of a node, and a walk over a whole tree.

Passes that care about every node kind dispatch with `match` themselves; these helpers are
for questions that do not (which names are read, how many nodes, how deep).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from toolkiln.ast import compute as n

_LEAF: tuple[n.Node, ...] = ()

# One small function per node type, found by the node's exact type: every pass walks trees,
# and a `match` over all node kinds cost several times more per node.
_CHILDREN: dict[type, Callable[..., tuple[n.Node, ...]]] = {
    n.NumberLit: lambda node: _LEAF,
    n.StringLit: lambda node: _LEAF,
    n.BoolLit: lambda node: _LEAF,
    n.NullLit: lambda node: _LEAF,
    n.Name: lambda node: _LEAF,
    n.TextPart: lambda node: _LEAF,
    n.TableDecl: lambda node: _LEAF,
    n.Unary: lambda node: (node.operand,),
    n.Binary: lambda node: (node.left, node.right),
    n.Conditional: lambda node: (node.test, node.then, node.otherwise),
    n.Call: lambda node: node.args,
    n.ListExpr: lambda node: node.items,
    n.RecordExpr: lambda node: node.entries,
    n.RecordEntry: lambda node: (node.value,),
    n.Field_: lambda node: (node.target,),
    n.Index: lambda node: (node.target, node.index),
    n.Comprehension: lambda node: (
        (node.iterable, node.element) if node.condition is None else (node.iterable, node.element, node.condition)
    ),
    n.Try: lambda node: (node.body, node.handler),
    n.Hole: lambda node: (node.expr,),
    n.Template: lambda node: node.parts,
    n.Assign: lambda node: (node.value,),
    n.Return: lambda node: (node.value,),
    n.Lookup: lambda node: (node.key,) if node.default is None else (node.key, node.default),
    n.Format: lambda node: (node.template,),
    n.CallTool: lambda node: node.args,
    n.ToolArg: lambda node: (node.value,),
    n.If: lambda node: (node.condition, *node.then, *node.otherwise),
    n.Param: lambda node: _LEAF if node.default is None else (node.default,),
    n.Program: lambda node: (*(node.parameters or ()), *node.steps),
}


def children(node: n.Node) -> tuple[n.Node, ...]:
    """The direct child nodes of `node`, in source order."""
    return _CHILDREN[type(node)](node)


def walk(node: n.Node) -> Iterator[n.Node]:
    """Every node of the tree, parents before children (iterative: no recursion limit)."""
    stack = [node]
    pop, extend, table = stack.pop, stack.extend, _CHILDREN
    while stack:
        current = pop()
        yield current
        extend(reversed(table[type(current)](current)))


def left_chain(expr: n.Binary) -> tuple[n.Expr, list[n.Binary]]:
    """A left-deep chain `((a + b) - c) * d` as its bottom operand `a` and its binaries,
    innermost first. A flat sum of 10,000 terms is a tree 10,000 deep: passes fold over this
    list in a loop instead of recursing once per term."""
    chain: list[n.Binary] = []
    node: n.Expr = expr
    while type(node) is n.Binary:
        chain.append(node)
        node = node.left
    chain.reverse()
    return node, chain
