"""The AST helpers the compile path leans on: the visitor's table of children, and nodes that
hold what their fields declare (they are dataclasses: nothing validates them when made)."""

import copy
import dataclasses
import inspect
import pickle
import types
import typing
from decimal import Decimal
from pathlib import Path

import pytest

from toolkiln.ast import compute as n
from toolkiln.ast.spans import LineIndex, Span, path_span
from toolkiln.ast.types import Type
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


def test_spans_made_by_the_front_ends_equal_spans_made_by_name():
    span = LineIndex("ab\ncd").span(3, 5, "p")
    assert span == Span(start=3, end=5, line=2, column=1, end_line=2, end_column=3, path="p")
    assert hash(span) == hash(Span(start=3, end=5, line=2, column=1, end_line=2, end_column=3, path="p"))
    assert path_span("x") == Span(line=0, column=0, end_line=0, end_column=0, path="x")


def test_nodes_are_frozen_slotted_and_equal_by_value():
    left = n.Name(name="a")
    node = n.Binary(op="+", left=left, right=left)
    assert node == n.Binary(op="+", left=n.Name(name="a"), right=n.Name(name="a"))
    assert hash(node) == hash(n.Binary(op="+", left=left, right=left))
    with pytest.raises(dataclasses.FrozenInstanceError):
        node.op = "-"  # type: ignore[misc]
    assert not hasattr(node, "__dict__")
    assert dataclasses.replace(node, op="-").op == "-" and node.op == "+"
    with pytest.raises(TypeError):
        n.Binary(op="+", left=left)  # type: ignore[call-arg]


NODE_TYPES = sorted(
    (cls for cls in vars(n).values() if isinstance(cls, type) and issubclass(cls, n.Node) and cls is not n.Node),
    key=lambda cls: cls.__name__,
)


@pytest.mark.parametrize("cls", NODE_TYPES, ids=lambda cls: cls.__name__)
def test_each_node_init_takes_its_fields_by_name_with_their_defaults(cls):
    """Every node writes its own __init__ (start-up, issue 34): it must take exactly the
    class's fields, keyword-only, with the fields' defaults, and set each one."""
    declared = [(f.name, f.default) for f in dataclasses.fields(cls)]
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [(p.name, p.default) for p in parameters] == [
        (name, inspect.Parameter.empty if default is dataclasses.MISSING else default) for name, default in declared
    ]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
    values = {name: object() for name, _default in declared}  # a distinct value per field
    node = cls(**values)
    assert all(getattr(node, name) is value for name, value in values.items())


def test_nodes_survive_pickling_and_copying_and_print_their_fields():
    node = n.Binary(op="+", left=n.Name(name="a"), right=n.NumberLit(value=Decimal("1.5")))
    again = pickle.loads(pickle.dumps(node))
    assert again == node and hash(again) == hash(node) and copy.deepcopy(node) == node
    with pytest.raises(dataclasses.FrozenInstanceError):
        del again.op
    assert repr(n.Name(name="a")) == f"Name(span={n.NO_SPAN!r}, kind='name', name='a')"
    assert node != n.Binary(op="-", left=node.left, right=node.right) and node != "Binary"


def _holds(value: object, declared: object) -> bool:
    """Whether `value` is of the type a node's field declares (the annotations the AST uses)."""
    origin, args = typing.get_origin(declared), typing.get_args(declared)
    if declared is type(None):
        return value is None
    if origin is typing.Literal:
        return value in args
    if origin in (typing.Union, types.UnionType):
        return any(_holds(value, arg) for arg in args)
    if origin is tuple:
        return type(value) is tuple and all(_holds(item, args[0]) for item in value)  # tuple[X, ...]
    assert isinstance(declared, type), declared
    return type(value) is declared or isinstance(value, declared) and declared in (n.Node, Type)


def ill_typed(node: n.Node) -> list[str]:
    """Every field of the tree that does not hold what it declares, as `Node.field = value`."""
    found = []
    for current in walk(node):
        hints = typing.get_type_hints(type(current), vars(n))
        for field in dataclasses.fields(current):
            value = getattr(current, field.name)
            if not _holds(value, hints[field.name]):
                found.append(f"{type(current).__name__}.{field.name} = {value!r}")
    return found


def test_the_field_check_finds_what_validation_found():
    assert ill_typed(n.ListExpr(items=[n.NullLit()])) == [
        "ListExpr.items = [NullLit(span=" + repr(Span()) + ", kind='null')]"
    ]  # type: ignore[arg-type]
    assert ill_typed(n.NumberLit(value=1)) == ["NumberLit.value = 1"]  # type: ignore[arg-type]
    assert ill_typed(n.Binary(op="=", left=n.NullLit(), right=n.NullLit())) == ["Binary.op = '='"]  # type: ignore[arg-type]
    assert ill_typed(n.NumberLit(value=Decimal(1))) == []


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
def test_parsed_programs_hold_what_their_fields_declare(source):
    """Nodes are not validated when made (issue 34: a pydantic AST was most of a command's
    start-up): every field the front ends fill holds its declared type."""
    program = parse_file(Path(source)).program
    assert program is not None
    assert ill_typed(program) == []


def test_every_kind_of_step_parsed_by_hand_holds_what_its_fields_declare():
    program = try_parse_program(_EVERY_STEP, ParseContext(LineIndex(_EVERY_STEP), fallback=parse_expression_with_lark))
    assert program is not None  # the statement parser's own, not Lark's
    steps = [{"op": "return", "value": [1, "a", None, True, 2.5]}]
    document = {"name": "literal", "description": "d", "parameters": {}, "logic": {"steps": steps}}
    literal = parse_source(document).program
    assert literal is not None and isinstance(literal.steps[0], n.Return)
    for parsed in (program, literal):
        assert ill_typed(parsed) == []
