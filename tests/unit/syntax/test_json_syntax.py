import json

import pytest

import toolkiln
from toolkiln.ast import compute as n
from toolkiln.syntax.json_front import parse_json_document
from toolkiln.syntax.loader import parse_string

SHIPPING = {
    "steps": [
        {"op": "math", "expression": "weight_kg * 2.50 + 5.00", "output": "base_cost"},
        {
            "op": "condition",
            "if": "weight_kg > 10",
            "then": [{"op": "math", "expression": "base_cost * 0.9", "output": "base_cost"}],
        },
        {"op": "format", "template": "Shipping cost: ${{base_cost}}", "output": "message"},
        {"op": "return", "value": "base_cost"},
    ]
}


def codes_and_paths(document):
    program, diagnostics, _ = parse_json_document(document)
    assert program is None
    return [(d.code, d.span.path) for d in diagnostics]


def test_issue_example_parses_to_the_expected_steps():
    program, diagnostics, _ = parse_json_document(SHIPPING)
    assert diagnostics == []
    kinds = [type(step) for step in program.steps]
    assert kinds == [n.Assign, n.If, n.Format, n.Return]
    assert program.parameters is None  # bare logic: parameters are inferred


def test_every_structural_problem_is_reported_with_its_path():
    document = {
        "steps": [
            {"op": "calc", "expression": "1", "output": "a"},
            {"op": "math", "expresion": "1", "output": "a"},
            {"op": "condition", "if": "x > 1", "then": [{"op": "math", "expression": "1 +", "output": "b"}]},
            {"op": "return"},
            "not a step",
            {"op": "math", "expression": 5, "output": "1bad"},
        ]
    }
    found = codes_and_paths(document)
    assert ("E0107", "steps[0].op") in found
    assert ("E0108", "steps[1]") in found  # missing `expression`
    assert ("E0109", "steps[1].expresion") in found
    assert ("E0101", "steps[2].then[0].expression") in found
    assert ("E0108", "steps[3]") in found
    assert ("E0106", "steps[4]") in found
    assert ("E0110", "steps[5].output") in found


def test_unknown_field_suggests_the_right_one():
    _, diagnostics, _ = parse_json_document({"steps": [{"op": "math", "expresion": "1", "output": "a"}]})
    assert any(d.hint == "did you mean `expression`?" for d in diagnostics)


def test_json_scalars_stand_for_literals():
    program, diagnostics, _ = parse_json_document(
        {
            "steps": [
                {"op": "lookup", "table": "t", "key": "k", "default": 0, "output": "v"},
                {"op": "return", "value": True},
            ]
        }
    )
    assert diagnostics == []
    assert isinstance(program.steps[0].default, n.NumberLit)
    assert program.steps[1].value.value is True


def test_full_definition_with_declared_parameters():
    program, diagnostics, _ = parse_json_document(
        {
            "name": "late_fee",
            "description": "Late fee",
            "riskLevel": "low",
            "parameters": {
                "amount": {"type": "number", "description": "Amount", "default": 10},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "tables": {"rates": {"type": "number"}},
            "logic": {"steps": [{"op": "return", "value": "amount"}]},
        }
    )
    assert diagnostics == []
    assert [p.name for p in program.parameters] == ["amount", "tags"]
    assert str(program.parameters[1].type) == "array[string]"
    assert program.tables[0].name == "rates"


def test_definition_field_problems():
    found = codes_and_paths(
        {
            "name": "Bad Name",
            "description": 3,
            "riskLevel": "extreme",
            "parameters": {"x": {"type": "float"}},
            "logic": {"steps": []},
            "extra": 1,
        }
    )
    assert ("E0110", "name") in found
    assert ("E0106", "description") in found
    assert ("E0111", "riskLevel") in found
    assert ("E0111", "parameters.x.type") in found
    assert ("E0109", "extra") in found


def nested_conditions(depth):
    step = {"op": "return", "value": "1"}
    for _ in range(depth):
        step = {"op": "condition", "if": "true", "then": [step]}
    return step


@pytest.mark.parametrize(
    "text, code",
    [
        ('{"steps": [', "E0105"),
        ("[1, 2]", "E0106"),
        ('{"steps": 3}', "E0106"),
        (json.dumps({"steps": [nested_conditions(250)]}), "E0402"),
        ("[" * 100_000 + "]" * 100_000, "E0402"),
    ],
    ids=["truncated", "list", "steps-number", "deep-conditions", "deep-json"],
)
def test_bad_json_documents(text, code):
    parsed = parse_string(text)
    assert parsed.program is None
    assert code in {d.code for d in parsed.diagnostics}


def test_json_text_diagnostics_point_at_file_lines():
    text = '{\n  "steps": [\n    {"op": "return", "value": "a +"}\n  ]\n}\n'
    [diagnostic] = toolkiln.check(text)
    assert diagnostic.code == "E0101"
    assert diagnostic.span.in_file and diagnostic.span.line == 3
    assert diagnostic.snippet == '    {"op": "return", "value": "a +"}'
    assert diagnostic.span.column == len('    {"op": "return", "value": "a +') + 1


def _eleven_steps_reading_unknown_names() -> dict:
    steps = [{"op": "math", "expression": f"missing_{i} + 1", "output": f"v{i}"} for i in range(11)]
    # `parameters: {}` declares none (without the key they would be inferred).
    logic = {"steps": steps + [{"op": "return", "value": "1"}]}
    return {"name": "t", "description": "d", "parameters": {}, "logic": logic}


def test_diagnostics_of_a_json_file_come_in_line_order():
    text = json.dumps(_eleven_steps_reading_unknown_names(), indent=2)
    diagnostics = [d for d in toolkiln.check(text) if d.code == "E0201"]
    assert len(diagnostics) == 11
    lines = [d.span.line for d in diagnostics]
    assert lines == sorted(lines)
    assert [d.message for d in diagnostics][:3] == [f"unknown variable `missing_{i}`" for i in range(3)]


def test_diagnostics_of_a_dict_come_in_document_order():
    diagnostics = [d for d in toolkiln.check(_eleven_steps_reading_unknown_names()) if d.code == "E0201"]
    assert [d.span.path for d in diagnostics] == [f"logic.steps[{i}].expression" for i in range(11)]


def test_a_definition_without_parameters_infers_them_as_bare_logic_does():
    definition = {"name": "t", "description": "d", "logic": {"steps": [{"op": "return", "value": "price * qty"}]}}
    tool = toolkiln.compile(definition)
    assert [(p.name, str(p.type)) for p in tool.signature.parameters] == [("price", "number"), ("qty", "number")]
    assert tool.run({"price": 2, "qty": 3}) == 6
    assert "parameters" not in toolkiln.to_json(definition)  # left to inference, as written
    assert toolkiln.to_text(definition).startswith("tool t(\n  price: number,\n  qty: number,\n)")
    declared_none = {**definition, "parameters": {}}
    assert {d.code for d in toolkiln.check(declared_none)} == {"E0201"}


@pytest.mark.parametrize(
    ("fields", "hint"),
    [
        ({"language": "bash", "script": "echo hi"}, 'this looks like a script tool: add "kind": "script"'),
        ({"runtime": "python", "body": "print(1)"}, 'this looks like a script tool: add "kind": "script"'),
        ({"path": "/usr/local/bin/quote"}, 'this looks like an executable tool: add "kind": "executable"'),
    ],
)
def test_a_program_definition_without_kind_is_told_which_kind_it_looks_like(fields, hint):
    """On main: "missing the field `logic`" with a hint listing a compute tool's fields."""
    document = {"name": "echo_text", "description": "Echo", "parameters": {}, **fields}
    [missing] = [d for d in toolkiln.check(json.dumps(document)) if d.code == "E0108"]
    assert "`logic`" in missing.message and missing.hint.startswith(hint)
