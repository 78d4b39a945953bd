"""The AST helpers the compile path leans on: the visitor's table of children, and nodes
made without validation."""

from pathlib import Path

import pytest

from toolkiln.ast import compute as n
from toolkiln.ast.construct import unvalidated
from toolkiln.ast.spans import LineIndex, Span
from toolkiln.ast.visitor import _CHILDREN, walk
from toolkiln.syntax.builder import parse_expression_with_lark
from toolkiln.syntax.expression_parser import try_parse_expression
from toolkiln.syntax.expressions import ParseContext
from toolkiln.syntax.loader import parse_file, parse_source
from toolkiln.syntax.statement_parser import try_parse_program


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


EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
_EVERY_STEP = """tool every_step(w: number = 2 "weight", items: array[{"price": number}]?) description "d"
  table rates: object "the rates"
{
  cost = call shipping_cost(weight_kg = w * 2, express = true)
  rate = lookup rates["a"] default 1
  note = format "{{w:.2f}} kg of {{rate}}"
  if w > 1 {
    cost = cost + 1
  } else if w < 0 {
    return null
  } else {
    cost = [1, "a", true]
  }
  return cost
}
"""


@pytest.mark.parametrize(
    "source", [*sorted(str(path) for path in EXAMPLES.glob("*.tk")), *sorted(str(p) for p in EXAMPLES.glob("*.json"))]
)
def test_parsed_programs_equal_their_validated_copies(source):
    """The parsers build statements, templates and JSON literals without validating them
    (issue 34: the first validation builds every schema); what they build is what validation
    would have made."""
    program = parse_file(Path(source)).program
    assert program is not None
    assert program == n.Program.model_validate(program.model_dump())


def test_every_kind_of_step_parsed_by_hand_equals_its_validated_copy():
    program = try_parse_program(_EVERY_STEP, ParseContext(LineIndex(_EVERY_STEP), fallback=parse_expression_with_lark))
    assert program is not None  # the statement parser's own, not Lark's (whose builder validates)
    steps = [{"op": "return", "value": [1, "a", None, True, 2.5]}]
    document = {"name": "literal", "description": "d", "parameters": {}, "logic": {"steps": steps}}
    literal = parse_source(document).program
    assert literal is not None and isinstance(literal.steps[0], n.Return)
    for parsed in (program, literal):
        assert parsed == n.Program.model_validate(parsed.model_dump())
