"""A new node kind must break every pass that does not handle it.

A `match` that names every kind of a node union is a dispatch: it must end with
`case _: assert_never(...)`, so that mypy points at it when a kind is added. The per-type
tables (chosen where a `match` costs too much per node) must list every kind: a missing
kind would be a KeyError at best, and a silently wrong answer at worst.
"""

from __future__ import annotations

import ast
import inspect
import typing
from pathlib import Path

import pytest

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.visitor import _CHILDREN
from toolkiln.optimize.rewrite import _REBUILD

SRC = Path(__file__).resolve().parents[3] / "src" / "toolkiln"
PASSES = ("check", "interpret", "optimize")


def _kinds(union: object) -> frozenset[str]:
    """The class names of a union `A | B | ...` (the compute AST's and the workflow AST's)."""
    return frozenset(kind.__name__ for kind in typing.get_args(union))


UNIONS = {
    "compute Expr": _kinds(n.Expr),
    "compute Step": _kinds(n.Step),
    "compute TemplatePart": _kinds(n.TemplatePart),
    "workflow Step": _kinds(w.Step),
    "workflow Trigger": _kinds(w.Trigger),
}


def _named_classes(match: ast.Match) -> set[str]:
    """The classes that the patterns of `match` name (`n.Assign(...)` names Assign)."""
    names = set()
    for case in match.cases:
        for node in ast.walk(case.pattern):
            if isinstance(node, ast.MatchClass) and isinstance(node.cls, ast.Attribute):
                names.add(node.cls.attr)
    return names


def _ends_in_assert_never(match: ast.Match) -> bool:
    last = match.cases[-1]
    is_wildcard = isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None and last.guard is None
    call = last.body[0].value if len(last.body) == 1 and isinstance(last.body[0], ast.Expr) else None
    return (
        is_wildcard
        and isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "assert_never"
    )


def _dispatches() -> list[tuple[str, str, ast.Match]]:
    """(place, union, match) for every match in the passes that names every kind of a union."""
    found = []
    for package in PASSES:
        for path in sorted((SRC / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Match):
                    continue
                named = _named_classes(node)
                for union, kinds in UNIONS.items():
                    if kinds <= named:
                        found.append((f"{path.relative_to(SRC)}:{node.lineno}", union, node))
    return found


def test_the_scan_finds_the_known_dispatches():
    places = {place.split(":")[0] for place, _, _ in _dispatches()}
    assert {
        "check/checker.py",
        "check/expressions.py",
        "check/scope.py",
        "check/workflow/validate.py",
        "interpret/expressions.py",
        "interpret/program.py",
        "optimize/propagate_copies.py",
        "optimize/remove_unused.py",
        "optimize/rewrite.py",
    } <= places


@pytest.mark.parametrize(
    ("place", "union", "match"), [pytest.param(*found, id=f"{found[0]} {found[1]}") for found in _dispatches()]
)
def test_every_dispatch_over_all_kinds_ends_in_assert_never(place, union, match):
    assert _ends_in_assert_never(match), f"{place}: a match over every {union} kind must end in assert_never"


def test_the_rebuild_table_lists_every_expression_kind():
    assert {kind.__name__ for kind in _REBUILD} == UNIONS["compute Expr"]


def test_the_children_table_lists_every_compute_node():
    nodes = {cls for _, cls in inspect.getmembers(n, inspect.isclass) if issubclass(cls, n.Node) and cls is not n.Node}
    assert set(_CHILDREN) == nodes
