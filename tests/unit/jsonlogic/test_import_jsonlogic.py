"""toolkiln.import_jsonlogic and `toolkiln import --from jsonlogic`: what a rule becomes, its
JavaScript semantics through named builtins, typed data, both number modes, and the
diagnostics of what cannot be imported."""

from __future__ import annotations

import json
import sys
from decimal import Decimal

import pytest

import toolkiln
from toolkiln.cli import main
from toolkiln.errors import CompileError, RunError

AGE_SCHEMA = {"type": "object", "properties": {"age": {"type": "number"}}, "required": ["age"]}


def run(rule, data=None, **options):
    return toolkiln.import_jsonlogic(rule, **options).run({"data": data})


def test_an_untyped_rule_says_where_javascript_rules_apply():
    tool = toolkiln.import_jsonlogic({">": [{"var": "age"}, 18]}, name="adult")
    text = toolkiln.to_text(tool.program)
    assert 'js_compare(18, js_var(data, "age")) < 0' in text
    assert run({">": [{"var": "age"}, 18]}, {"age": "21"}) is True  # "21" > 18, as JavaScript


def test_a_data_schema_types_data_and_drops_the_coercions():
    tool = toolkiln.import_jsonlogic({">": [{"var": "age"}, 18]}, AGE_SCHEMA, name="adult")
    text = toolkiln.to_text(tool.program)
    assert "data.age > 18" in text and "js_" not in text
    assert tool.parameters["properties"]["data"]["properties"]["age"] == {"type": "number"}
    assert tool.run({"data": {"age": 20}}) is True
    with pytest.raises(RunError) as refused:  # typed: text is no longer taken for a number
        tool.run({"data": {"age": "20"}})
    assert refused.value.code == "E0508"


def test_numbers_are_exact_by_default_and_javascripts_floats_on_request():
    rule = {"+": [Decimal("0.1"), Decimal("0.2")]}
    assert run(rule) == Decimal("0.3")
    assert run(rule, numbers="float") == Decimal("0.30000000000000004")
    assert run({"/": [1, 3]}, numbers="float") == Decimal("0.3333333333333333")


def test_and_or_give_values_and_evaluate_each_operand_once():
    assert run({"or": [0, "", {"var": "x"}]}, {"x": "found"}) == "found"
    assert run({"and": [1, 0, 2]}) == 0
    text = toolkiln.to_text(toolkiln.import_jsonlogic({"and": [{"+": [{"var": "a"}, 1]}, "b"]}, name="r").program)
    assert text.count("js_add(") == 1


def test_iterators_read_the_item_as_their_data():
    rule = {"filter": [{"var": "items"}, {">=": [{"var": "qty"}, 2]}]}
    assert run(rule, {"items": [{"qty": 1}, {"qty": 3}]}) == [{"qty": Decimal(3)}]
    rule = {"reduce": [{"var": "xs"}, {"+": [{"var": "accumulator"}, {"var": "current.price"}]}, 10]}
    assert run(rule, {"xs": [{"price": 1}, {"price": 2}]}) == Decimal(13)
    let = {"reduce": [[[{"var": "a"}, 2]], {"*": [{"var": "current.0"}, {"var": "current.1"}]}, 0]}
    assert run(let, {"a": 21}) == Decimal(42)  # reduce over one item as a "let"


@pytest.mark.parametrize(
    ("rule", "code", "path"),
    [
        ({"and": [True, {"frobnicate": [1, 2]}]}, "E1001", "rule.and[1].frobnicate"),
        ({"if": [{"frobnicate": [1]}, 1, 2]}, "E1001", "rule.if[0].frobnicate"),
        ({"reduce": [[1], {"-": [{"var": "accumulator"}, {"var": "current"}]}, 0]}, "E1001", "rule.reduce"),
        ({"<": 5}, "E1002", "rule.<"),
        ({"==": [1, 1], "!=": [1, 2]}, "E1005", "rule"),
    ],
)
def test_what_cannot_be_imported_is_a_located_diagnostic_naming_the_operator(rule, code, path):
    with pytest.raises(CompileError) as refused:
        toolkiln.import_jsonlogic(rule)
    diagnostic = refused.value.diagnostics[0]
    assert (diagnostic.code, diagnostic.span.path) == (code, path)
    if code == "E1001":
        assert path.rsplit(".", 1)[-1] in diagnostic.message


def test_a_rule_nested_too_deep_is_refused_with_a_code():
    rule: object = 1
    for _ in range(sys.getrecursionlimit()):
        rule = {"!": [rule]}
    with pytest.raises(CompileError) as refused:
        toolkiln.import_jsonlogic(rule)
    assert refused.value.diagnostics[0].code == "E1005"


@pytest.mark.parametrize(
    ("rule", "data", "code"),
    [
        ({"+": ["Hey", 1]}, None, "E1003"),
        ({"/": [1, {"var": "x"}]}, {"x": 0}, "E1003"),
        ({"max": [1, {"var": "x"}]}, {"x": "2"}, "E1002"),
        ({"if": [{"var": "admin"}, "ok", {"throw": "Not an admin"}]}, {"admin": False}, "E1004"),
    ],
)
def test_javascript_failures_are_run_errors_with_codes(rule, data, code):
    with pytest.raises(RunError) as failed:
        run(rule, data)
    assert failed.value.code == code


def test_a_bad_schema_or_mode_is_refused():
    with pytest.raises(CompileError) as refused:
        toolkiln.import_jsonlogic({"var": "a"}, {"type": "banana"})
    assert refused.value.diagnostics[0].code == "E1005"
    with pytest.raises(toolkiln.Error):
        toolkiln.import_jsonlogic({"var": "a"}, numbers="double")  # type: ignore[arg-type]


def test_the_command_writes_a_tool_that_runs_as_the_rule(tmp_path, capsys):
    rule = tmp_path / "Water state.json"
    rule.write_text(json.dumps({"if": [{"<": [{"var": "temp"}, 0]}, "freezing", "liquid"]}))
    assert main(["import", "--from", "jsonlogic", str(rule)]) == 0
    source = capsys.readouterr().out
    assert source.startswith("tool water_state(")
    assert toolkiln.compile(source).run({"data": {"temp": -3}}) == "freezing"
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]}))
    out = tmp_path / "tool.json"
    assert (
        main(["import", "--from", "jsonlogic", str(rule), "--schema", str(schema), "--to", "json", "-o", str(out)]) == 0
    )
    assert "data.temp < 0" in out.read_text()


def test_the_command_reports_what_it_refuses(tmp_path, capsys):
    rule = tmp_path / "bad.json"
    rule.write_text('{"frobnicate": [1]}')
    assert main(["import", "--from", "jsonlogic", str(rule), "--format", "json"]) == 1
    reported = json.loads(capsys.readouterr().err)
    assert reported[0]["code"] == "E1001" and reported[0]["path"] == "rule.frobnicate"
    rule.write_text("{not json")
    assert main(["import", "--from", "jsonlogic", str(rule)]) == 1
    assert "E1005" in capsys.readouterr().err


@pytest.mark.parametrize("numbers", ["exact", "float"])
def test_val_climbs_to_the_position_of_the_item_in_filter_and_nested_map(numbers):
    keep_after_first = {"filter": [{"val": "xs"}, {">": [{"val": [[1], "index"]}, 0]}]}
    outer_position = {"map": [["a", "b"], {"map": [[7, 8], {"val": [[3], "index"]}]}]}
    assert toolkiln.import_jsonlogic(keep_after_first, numbers=numbers).run({"data": {"xs": [5, 6, 7]}}) == [6, 7]
    assert toolkiln.import_jsonlogic(outer_position, numbers=numbers).run({"data": None}) == [[0, 0], [1, 1]]


def test_nested_float_arithmetic_is_one_call_with_javascripts_answer_and_stops_on_an_infinity():
    shipping = {"*": [{"+": [{"*": [{"var": "kg"}, 2.5]}, 5]}, 0.9]}
    tool = toolkiln.import_jsonlogic(shipping, numbers="float")
    text = toolkiln.to_text(tool.program)
    assert "js_f64(" in text and "js_mul_f64" not in text
    assert tool.run({"data": {"kg": 12.5}}) == Decimal(repr((12.5 * 2.5 + 5) * 0.9))
    tenths = toolkiln.import_jsonlogic({"+": [{"*": [0.1, 3]}, {"-": [0.2]}]}, numbers="float")
    assert tenths.run({"data": None}) == Decimal(repr(0.1 * 3 + -0.2))
    # 1e90 ** 4 is an infinity in floats: JsonLogic engines stop there, though 1 / it would be 0
    past_floats = toolkiln.import_jsonlogic({"/": [1, {"*": [{"var": "x"}, 1e90, 1e90, 1e90]}]}, numbers="float")
    with pytest.raises(RunError) as raised:
        past_floats.run({"data": {"x": 1e90}})
    assert raised.value.code == "E1003"
    written = {"*": [{"+": [{"*": [{"var": ["kg"]}, Decimal("2.5")]}, Decimal(5)]}, Decimal("0.9")]}
    assert toolkiln.export_jsonlogic(tool) == written


@pytest.mark.parametrize("numbers", ["exact", "float"])
def test_try_takes_the_next_alternative_reading_the_error_as_its_data(numbers):
    rule = {"try": [{"/": [1, {"var": "x"}]}, {"cat": ["failed: ", {"var": "type"}]}]}
    tool = toolkiln.import_jsonlogic(rule, numbers=numbers)
    assert tool.run({"data": {"x": 4}}) == Decimal("0.25")
    assert tool.run({"data": {"x": 0}}) == "failed: NaN"
    text = toolkiln.to_text(tool.program)
    assert "try " in text and "catch " in text and toolkiln.compile(text).run({"data": {"x": 0}}) == "failed: NaN"


def test_try_never_catches_a_budget():
    rule = {"try": [{"map": [{"var": "xs"}, {"*": [{"var": ""}, 2]}]}, "caught"]}
    tool = toolkiln.import_jsonlogic(rule)
    assert tool.run({"data": {"xs": [1]}}) == [Decimal(2)]
    with pytest.raises(RunError) as stopped:
        tool.run({"data": {"xs": list(range(5_000))}}, limits=toolkiln.Limits(max_operations=1_000))
    assert stopped.value.code == "E0503"
