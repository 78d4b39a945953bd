from decimal import Decimal

import pytest

from toolkiln.ast import compute as n
from toolkiln.syntax.text import parse_text


def parse_ok(text):
    program, diagnostics = parse_text(text)
    assert diagnostics == [], [d.message for d in diagnostics]
    return program


def parse_error(text):
    program, diagnostics = parse_text(text)
    assert program is None and diagnostics
    return diagnostics[0]


def test_bare_logic_steps_and_spans():
    program = parse_ok("total = price * 2\nreturn total\n")
    assign, ret = program.steps
    assert isinstance(assign, n.Assign) and assign.target == "total"
    assert isinstance(assign.value, n.Binary) and assign.value.op == "*"
    assert assign.value.right == n.NumberLit(value=Decimal("2"), span=assign.value.right.span)
    assert (assign.value.span.line, assign.value.span.column, assign.value.span.end_column) == (1, 9, 18)
    assert isinstance(ret, n.Return) and ret.span.line == 2


def test_tool_header_params_tables_risk():
    program = parse_ok("""
tool late_fee(
  amount: number "Invoice amount",
  days: integer = 0,
  tags: array[string] = [],
)
description "Late fee"
risk high
table rates: number "Rates"
{
  return amount
}""")
    assert program.name == "late_fee" and program.description == "Late fee" and program.risk_level == "high"
    assert [p.name for p in program.parameters] == ["amount", "days", "tags"]
    assert str(program.parameters[2].type) == "array[string]"
    assert program.parameters[0].description == "Invoice amount"
    assert program.tables[0].name == "rates" and str(program.tables[0].type) == "number"


def test_header_words_are_not_reserved_in_the_body():
    program = parse_ok(
        'tool t()\ndescription "d"\n{\n  description = 1\n  risk = description\n  table = risk\n  return table\n}'
    )
    assert [s.target for s in program.steps[:3]] == ["description", "risk", "table"]


def test_if_else_if_else_with_newlines_before_else():
    program = parse_ok("if a > 1 {\n  x = 1\n}\nelse if a > 0 { x = 2 }\nelse {\n  x = 3\n}\nreturn x")
    outer = program.steps[0]
    assert isinstance(outer, n.If) and len(outer.otherwise) == 1
    inner = outer.otherwise[0]
    assert isinstance(inner, n.If) and isinstance(inner.otherwise[0], n.Assign)


def test_lookup_format_comprehension_conditional_and_newlines_in_brackets():
    program = parse_ok(
        "rate = lookup zones[zone] default 0\n"
        'msg = format "Total: {{total:.2f}} ({{len(items)}} items)"\n'
        "total = sum(i.price * i.qty\n   for i in items if i.qty > 0)\n"
        "return rate if ok else -1"
    )
    lookup, fmt, total, ret = program.steps
    assert isinstance(lookup, n.Lookup) and lookup.table == "zones" and lookup.default is not None
    holes = [p for p in fmt.template.parts if isinstance(p, n.Hole)]
    assert [h.spec for h in holes] == [".2f", None]
    assert isinstance(total.value, n.Call) and isinstance(total.value.args[0], n.Comprehension)
    assert isinstance(ret.value, n.Conditional)


def test_template_hole_spans_point_into_the_file():
    program = parse_ok('msg = format "Hi {{nme}}"')
    hole = program.steps[0].template.parts[1]
    assert (hole.expr.span.line, hole.expr.span.column) == (1, 20)  # the `n` of nme


@pytest.mark.parametrize(
    "text, code, column, hint_part",
    [
        ("x = 1 +", "E0101", 8, "expected"),
        ("x = a ^ 2", "E0101", 7, "**"),
        ("x = a && b", "E0101", 7, "and"),
        ("x = 'abc", "E0102", 5, "'"),
        ("x = a = b", "E0101", 7, "=="),
        ("if a < b < c { return 1 }", "E0101", 10, "chain"),
        ('x = "\\q"', "E0103", 6, "escapes"),
        ('x = format "{{a:.2}}"', "E0104", 17, "{{"),
        ('x = format "{{a"', "E0104", 13, None),
        ("x = 1" + "0" * 200, "E0403", 5, None),
    ],
)
def test_syntax_errors_have_codes_positions_and_hints(text, code, column, hint_part):
    diagnostic = parse_error(text)
    assert diagnostic.code == code
    assert diagnostic.span.column == column
    if hint_part:
        assert hint_part in diagnostic.hint


def test_deep_nesting_is_a_diagnostic_not_a_crash():
    diagnostic = parse_error("x = " + "-" * 5000 + "1\nreturn x")
    assert diagnostic.code == "E0402"
    program = parse_ok("return " + "(" * 10_000 + "1" + ")" * 10_000)  # parentheses add no depth
    assert isinstance(program.steps[0].value, n.NumberLit)


def test_source_size_limit():
    diagnostic = parse_error("x = 1\n" * 200_000)
    assert diagnostic.code == "E0401"
