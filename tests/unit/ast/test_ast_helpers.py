"""The AST helpers the compile path leans on: the visitor's table of children, and nodes
made without validation."""

import pytest

from toolkiln.ast import compute as n
from toolkiln.ast.construct import unvalidated
from toolkiln.ast.spans import LineIndex, Span
from toolkiln.ast.visitor import _CHILDREN, walk
from toolkiln.syntax.builder import parse_expression_with_lark
from toolkiln.syntax.expression_parser import try_parse_expression
from toolkiln.syntax.expressions import ParseContext


def test_every_node_type_has_children_in_the_visitor():
    node_types = {cls for cls in vars(n).values() if isinstance(cls, type) and issubclass(cls, n.Node)}
    assert node_types - {n.Node} == set(_CHILDREN)


def test_walk_visits_parents_before_children_in_source_order():
    text = "f(a, b.c) + [x for x in y if x]"
    expr = try_parse_expression(text, ParseContext(LineIndex(text), fallback=parse_expression_with_lark).span)
    names = [node.name if isinstance(node, n.Name) else type(node).__name__ for node in walk(expr)]
    assert names == ["Binary", "Call", "a", "Field_", "b", "Comprehension", "y", "x", "x"]


def test_unvalidated_nodes_equal_validated_ones():
    span = unvalidated(Span)(start=1, end=2, line=1, column=2, end_line=1, end_column=3, path="p")
    assert span == Span(start=1, end=2, line=1, column=2, end_line=1, end_column=3, path="p")
    left = n.Name(name="a", span=span)
    built = unvalidated(n.Binary)(op="+", left=left, right=left, span=span)
    validated = n.Binary(op="+", left=left, right=left, span=span)
    assert built == validated and repr(built) == repr(validated) and hash(built) == hash(validated)
    assert built.model_dump() == validated.model_dump()
    assert built.model_copy(update={"op": "-"}).op == "-"


def test_unvalidated_refuses_a_missing_required_field():
    with pytest.raises(AssertionError):
        unvalidated(n.Binary)(op="+", left=n.NullLit())
