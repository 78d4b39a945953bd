import pytest

import toolkiln
from toolkiln.check import check_program
from toolkiln.syntax.loader import parse_source


def diagnostics_of(source):
    return [(d.code, d.span.line if d.span else None) for d in toolkiln.check(source)]


def codes_of(source):
    return [d.code for d in toolkiln.check(source)]


def inferred(source):
    parsed = parse_source(source)
    return {p.name: str(p.type) for p in check_program(parsed.program).parameters}


def test_parameters_are_inferred_from_use():
    assert inferred(
        'x = a * 2\nif vip { x = x + 1 }\nm = format "{{name}}"\n'
        "n = len(items)\ns = upper(city)\nreturn x + n + number(m + s)"
    ) == {"a": "number", "vip": "boolean", "name": "any", "items": "any", "city": "string"}


def test_inferred_parameter_used_as_two_types_is_e0306():
    assert "E0306" in codes_of("x = a * 2\ny = upper(a)\nreturn x")


def test_declared_parameter_contradicted_by_use_is_e0306():
    source = 'tool t(qty: string)\ndescription "t"\n{\n  return qty * 2\n}'
    assert diagnostics_of(source) == [("E0306", 4)]


def test_declared_parameters_are_all_of_them():
    source = 'tool t(a: number)\ndescription "t"\n{\n  return a + b\n}'
    [diagnostic] = toolkiln.check(source)
    assert diagnostic.code == "E0201" and "declare it" in diagnostic.hint


def test_unknown_variable_suggests_a_close_name():
    [diagnostic] = toolkiln.check('tool t(total: number)\ndescription "t"\n{\n  return totl\n}')
    assert diagnostic.code == "E0201" and diagnostic.hint == "did you mean `total`?"


@pytest.mark.parametrize(
    "source, expected",
    [
        ("y = x\nx = 1\nreturn y", [("E0202", 1)]),
        ("if a > 1 { d = 1 }\nreturn d", [("E0203", 2)]),
        ("if a > 1 { d = 1 } else { d = 2 }\nreturn d", []),
        ("if a > 1 { return 1 } else { d = 2 }\nreturn d", []),
        ("return foo(1)", [("E0204", 1)]),
        ("return round(1, 2, 3)", [("E0205", 1)]),
        ("x = 1\nif a > 1 { return x }", [("E0207", 2)]),
        ("return 1\nx = 2", [("W0208", 2), ("W0209", 2)]),
        ("x = 1\nreturn 2", [("W0209", 1)]),
        ('return "a" * 2', [("E0301", 1)]),
        ('return 1 == "1"', [("E0301", 1)]),
        ("if 1 { return 1 }\nreturn 2", [("E0302", 1)]),
        ("return 1 if 2 else 3", [("E0302", 1)]),
        ("return upper(3)", [("E0303", 1)]),
        ("return 3.x", [("E0304", 1)]),
        ("return true[0]", [("E0305", 1)]),
        ("return sum(x for x in 3)", [("E0308", 1)]),
        ("m = format \"{{'a':.2f}}\"\nreturn m", [("E0309", 1)]),
        ("return true and 1", [("E0301", 1)]),
        ("return -true", [("E0301", 1)]),
        ('return 1 in "abc"', [("E0301", 1)]),
    ],
)
def test_checks(source, expected):
    assert diagnostics_of(source) == expected


def test_duplicate_parameters_tables_and_bad_defaults():
    source = (
        'tool t(a: number, a: number, b: string = 3, c: number = 1 + 1)\ndescription "t"\n'
        "table r: number\ntable r: string\n{\n  return a\n}"
    )
    found = codes_of(source)
    assert found.count("E0210") == 2
    assert found.count("E0307") == 2


def test_unknown_table_only_when_tables_are_declared():
    assert codes_of("x = lookup rates[k] default 0\nreturn x") == []
    declared = 'tool t(k: string)\ndescription "t"\ntable zones: number\n{\n  x = lookup rates[k]\n  return x\n}'
    [diagnostic] = toolkiln.check(declared)
    assert diagnostic.code == "E0206"


def test_lookup_default_must_match_the_table_type():
    source = 'tool t(k: string)\ndescription "t"\ntable zones: number\n{\n  x = lookup zones[k] default "none"\n  return x\n}'
    assert codes_of(source) == ["E0307"]


def test_errors_are_collected_not_stopped_at_the_first():
    found = codes_of('a = "x" * 2\nb = upper(1)\nc = foo()\nreturn zz if 1 else 2')
    assert {"E0301", "E0303", "E0204", "E0302"} <= set(found)


def test_comprehension_variable_is_scoped():
    assert codes_of("t = sum(i.price for i in items)\nreturn t") == []
    assert inferred("t = sum(i.price for i in items)\nreturn t") == {"items": "array"}


def test_every_type_of_result_is_known():
    parsed = parse_source('if a > 1 { return "big" }\nreturn "small"')
    assert str(check_program(parsed.program).result_type) == "string"


def test_a_string_in_an_untyped_parameter_leaves_its_type_open():
    source = 'x = "vip" in customer\ny = customer.tier\nreturn x'
    assert [d.code for d in toolkiln.check(source) if d.is_error] == []
    assert inferred(source)["customer"] == "object"
    assert inferred("return 3 in xs") == {"xs": "array"}
