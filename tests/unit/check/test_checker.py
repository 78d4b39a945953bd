"""What the checker infers: parameter types from their use, the type of the result. The codes
it reports for a source are cases in tests/unit/check/data/*.test (test_check_cases.py)."""

import toolkiln
from toolkiln.check import check_program
from toolkiln.syntax.loader import parse_source


def inferred(source):
    parsed = parse_source(source)
    return {p.name: str(p.type) for p in check_program(parsed.program).parameters}


def test_parameters_are_inferred_from_use():
    assert inferred(
        'x = a * 2\nif vip { x = x + 1 }\nm = format "{{name}}"\n'
        "n = len(items)\ns = upper(city)\nreturn x + n + number(m + s)"
    ) == {"a": "number", "vip": "boolean", "name": "any", "items": "any", "city": "string"}


def test_a_comprehension_variable_is_no_parameter():
    assert inferred("t = sum(i.price for i in items)\nreturn t") == {"items": "array"}


def test_every_type_of_result_is_known():
    parsed = parse_source('if a > 1 { return "big" }\nreturn "small"')
    assert str(check_program(parsed.program).result_type) == "string"


def test_a_string_in_an_untyped_parameter_leaves_its_type_open():
    source = 'x = "vip" in customer\ny = customer.tier\nreturn x'
    assert [d.code for d in toolkiln.check(source) if d.is_error] == []
    assert inferred(source)["customer"] == "object"
    assert inferred("return 3 in xs") == {"xs": "array"}
