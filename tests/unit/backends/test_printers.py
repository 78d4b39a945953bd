import dataclasses

import toolkiln

TEXT = """# Invoice total with tiers
tool invoice_total(
  items: array[object] "Line items",
  tax_rate: number = 0.2,
)
description "Invoice total"
risk low
table tiers: number "Discount by tier"
{
  subtotal = sum(i.price * i.qty for i in items if i.qty > 0)  # gross
  if subtotal >= 1000 {
    discount = 0.1
  } else if subtotal >= 500 {
    discount = 0.05
  } else {
    discount = lookup tiers["base"] default 0
  }
  total = round(subtotal * (1 - discount) * (1 + tax_rate), 2)
  note = format "Total: {{total:,.2f}} ({{upper('say \\u0022hi\\u0022')}}) {{-total ** 2}}"
  return note if total > 0 else "empty"
}
"""


def test_canonical_text_is_a_fixed_point_and_keeps_comments():
    assert toolkiln.to_text(TEXT) == TEXT
    assert "# gross" in toolkiln.to_text(TEXT)


def test_fmt_normalises_layout():
    messy = "x=1+2*3\nif x>3{y=(x)}\nelse{y=0}\nreturn   y"
    assert toolkiln.to_text(messy) == "x = 1 + 2 * 3\nif x > 3 {\n  y = x\n} else {\n  y = 0\n}\nreturn y\n"


def test_parentheses_are_kept_only_where_needed():
    cases = {
        "return (a + b) * c": "return (a + b) * c",
        "return a + (b * c)": "return a + b * c",
        "return a - (b - c)": "return a - (b - c)",
        "return (a ** b) ** c": "return (a ** b) ** c",
        "return a ** (b ** c)": "return a ** b ** c",
        "return -(a ** 2)": "return -a ** 2",
        "return (-a) ** 2": "return (-a) ** 2",
        "return not (a and b)": "return not (a and b)",
        "return (a if b else c) if d else e": "return (a if b else c) if d else e",
        "return (a < b) == c": "return (a < b) == c",
        "return (x.y)[0]": "return x.y[0]",
    }
    for source, expected in cases.items():
        assert toolkiln.to_text(source) == expected + "\n", source


def test_json_text_json_is_the_identity():
    canonical = toolkiln.to_json(TEXT)
    assert toolkiln.to_json(toolkiln.to_text(canonical)) == canonical
    assert canonical["parameters"]["tax_rate"] == {"type": "number", "default": 0.2}
    assert canonical["logic"]["steps"][1]["else"][0]["op"] == "condition"


def test_both_front_ends_build_the_same_ast():
    from toolkiln.syntax.loader import parse_source

    from_text = parse_source(TEXT).program
    from_json = parse_source(toolkiln.to_json(TEXT)).program
    strip = _without_spans
    assert strip(from_text)["steps"] != []
    assert strip(from_text) == strip(from_json)


def _without_spans(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _without_spans(v) for k, v in value.items() if k != "span"}
    if isinstance(value, (list, tuple)):
        return [_without_spans(v) for v in value]
    return value


def test_quotes_and_escapes_survive_round_trips():
    logic = {
        "steps": [
            {"op": "format", "template": 'He said "{{q}}" \\ {{"x\'y"}}\n', "output": "m"},
            {"op": "return", "value": "m"},
        ]
    }
    text = toolkiln.to_text(logic)
    canonical = toolkiln.to_json(logic)  # a constant hole is literal text
    assert canonical["steps"][0]["template"] == 'He said "{{q}}" \\ x\'y\n'
    assert toolkiln.to_json(text) == canonical
    assert toolkiln.compile(text).run({"q": "hi"}) == 'He said "hi" \\ x\'y\n'


def test_a_literal_double_brace_survives_both_forms():
    source = 'm = format "\\u007b\\u007bx}} is {{x}}"\nreturn m'
    assert toolkiln.compile(source).run({"x": 1}) == "{{x}} is 1"
    for printed in (toolkiln.to_text(source), toolkiln.to_json(source)):
        assert toolkiln.compile(printed).run({"x": 1}) == "{{x}} is 1"
