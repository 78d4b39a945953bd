"""Regressions from a hostile-input sweep of the CLI and the public API: each input here once
escaped as a Python exception (an "internal error" from the CLI) instead of a diagnostic."""

import json
from pathlib import Path
from typing import Any

import pytest

import toolkiln
from toolkiln.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def codes_of(source) -> list[str]:
    return [d.code for d in toolkiln.check(source)]


def run_cli(capsys, *argv) -> tuple[int, str]:
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("op", [[], {}, ["math"], {"op": "math"}])
def test_step_op_of_a_json_container_is_an_unknown_op(op):
    assert codes_of({"steps": [{"op": op}, {"op": "return", "value": "1"}]}) == ["E0107"]


def n8n_workflow(type_version) -> dict:
    return {
        "name": "w",
        "connections": {},
        "nodes": [
            {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": type_version, "parameters": {}}
        ],
    }


@pytest.mark.parametrize("type_version", [10**400, -(10**400)], ids=["huge", "huge-negative"])
def test_n8n_type_version_beyond_any_float_is_not_a_workflow(type_version):
    assert [d.code for d in toolkiln.check_workflow(n8n_workflow(type_version))] == ["E0724"]
    with pytest.raises(toolkiln.CompileError) as raised:
        toolkiln.import_n8n(n8n_workflow(type_version))
    assert [d.code for d in raised.value.diagnostics] == ["E0724"]


BIG = "9" * 5000  # int() refuses more than 4,300 digits


@pytest.mark.parametrize(
    "header, step",
    [
        ("on manual", f"wait pause {BIG} seconds"),
        (f"on schedule every {BIG} minutes", "set s { a = 1 }"),
        ("on manual", f"set s {{ a = 1 }}\nafter s[{BIG}] set t {{ b = 1 }}"),
        ("on manual", f"set s {{ a = 1 }}\nafter s -> {BIG} set t {{ b = 1 }}"),
    ],
    ids=["wait", "every", "output", "input"],
)
def test_workflow_count_or_index_of_5000_digits_is_literal_too_large(header, step):
    source = f'workflow w\ndescription "d"\n{header}\n{step}\n'
    assert "E0403" in [d.code for d in toolkiln.check_workflow(source)]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_workflow_node_parameters_refuse_what_json_cannot_hold(value):
    """Python's json reads these; the n8n workflow JSON written from them would not parse."""
    source = (
        f'workflow w\ndescription "d"\non manual\nnode "X" type "n8n-nodes-acme.thing" version 1 {{"a": {value}}}\n'
    )
    assert [(d.code, d.hint) for d in toolkiln.check_workflow(source)] == [("E0105", None)]  # quotes are not it


LONE = "\\ud800"  # a JSON escape of half a surrogate pair: json.loads gives "\ud800", no character


def test_tool_json_with_a_lone_surrogate_is_invalid_escape(tmp_path, capsys):
    source = f'{{"name": "t", "description": "{LONE}", "logic": {{"steps": [{{"op": "return", "value": "1"}}]}}}}'
    assert codes_of(source) == ["E0103"]
    assert codes_of({"steps": [{"op": "return", "value": '"\ud800"'}]}) == ["E0103"]
    tool = tmp_path / "t.json"
    tool.write_text(source)
    code, output = run_cli(capsys, "tools", "create", tool, "--registry", tmp_path / "reg")
    assert code == 1 and "E0103" in output and "internal error" not in output


def test_n8n_export_with_a_lone_surrogate_is_not_a_workflow(tmp_path, capsys):
    text = json.dumps(n8n_workflow(1)).replace('"Start"', f'"{LONE}"')
    assert [d.code for d in toolkiln.check_workflow(text)] == ["E0724"]
    export = tmp_path / "w.json"
    export.write_text(text)
    code, output = run_cli(capsys, "workflow", "import", export)
    assert code == 1 and "E0724" in output and "internal error" not in output


def test_workflow_node_json_with_a_lone_surrogate_is_invalid_json(tmp_path, capsys):
    source = tmp_path / "w.wf"
    source.write_text(
        f'workflow w\ndescription "d"\non manual\nnode "X" type "n8n-nodes-acme.thing" version 1 {{"a": "{LONE}"}}\n'
    )
    code, output = run_cli(capsys, "fmt", source)
    assert code == 1 and "E0105" in output and "internal error" not in output


def test_workflow_parentheses_nested_1000_deep_are_too_deep():
    """They checked clean, and Lark took about 5 s for 30,000 of them and a minute for 100,000."""
    source = f'workflow w\ndescription "d"\non manual\nset s {{ a = {"(" * 1000}1{")" * 1000} }}\n'
    assert [d.code for d in toolkiln.check_workflow(source)] == ["E0402"]


@pytest.mark.parametrize(
    "args",
    ['{"weight_kg": ' + "9" * 5000 + "}", '{"weight_kg": ' + "[" * 100_000 + "]" * 100_000 + "}"],
    ids=["5000-digits", "nested-100000"],
)
@pytest.mark.parametrize("tools", [False, True], ids=["run", "tools-run"])
def test_run_args_json_beyond_what_python_reads_is_a_usage_error(tools, args, tmp_path, capsys):
    command = (
        ["tools", "run", "shipping_cost", "--registry", tmp_path] if tools else ["run", EXAMPLES / "shipping_cost.json"]
    )
    code, output = run_cli(capsys, *command, "--args", args)
    assert code == 2 and "--args cannot be read" in output and "internal error" not in output


@pytest.mark.parametrize(
    "source", ['return "a\ud800"\n', '{"steps": [{"op": "return", "value": "\udc80"}]}'], ids=["text", "json-text"]
)
def test_a_source_string_holding_a_surrogate_is_refused_where_it_is(source, tmp_path):
    """A Python str can hold one, a UTF-8 file cannot: compiled, it made a tool the registry
    then failed to write (a bare UnicodeEncodeError)."""
    with pytest.raises(toolkiln.CompileError) as caught:
        toolkiln.compile(source)
    first = caught.value.diagnostics[0]
    assert first.code == "E0100" and first.span.line == 1 and source[first.span.column - 1] in "\ud800\udc80"
    registry = toolkiln.Registry(tmp_path / "registry")
    with pytest.raises(toolkiln.CompileError):
        registry.create('tool t()\ndescription "d\ud800"\n{\n  return 1\n}\n', created_by="user")
    assert registry.list() == []


def test_a_workflow_source_holding_a_surrogate_is_refused():
    diagnostics = toolkiln.check_workflow('workflow w\ndescription "\udc80"\non manual\n')
    assert [(d.code, d.span.line, d.span.column) for d in diagnostics] == [("E0100", 2, 14)]


def _nested(depth: int) -> Any:
    value: Any = "x"
    for level in range(depth):
        value = {"a": value} if level % 2 else [value]
    return value


def _export_holding(place: str, value: Any) -> dict[str, Any]:
    node = {"name": "n", "type": "n8n-nodes-base.set", "typeVersion": 3, "position": [0, 0], "parameters": {}}
    export: dict[str, Any] = {"name": "w", "nodes": [node], "connections": {}}
    if place == "parameters":
        node["parameters"] = {"deep": value}
    elif place == "pinData":
        export["pinData"] = {"n": [{"json": value}]}
    else:
        export["connections"] = {"n": {"main": value}}
    return export


@pytest.mark.parametrize("place", ["parameters", "pinData", "connections"])
@pytest.mark.parametrize("depth", [600, 100_000])
@pytest.mark.parametrize("as_text", [False, True])
def test_n8n_exports_nested_past_the_depth_limit_are_too_deep(place, depth, as_text):
    """A 600-deep parameter raised RecursionError through import_n8n (copy.deepcopy, the
    importer, the emitter); now the document is measured, without recursion, before any of them."""
    export = _export_holding(place, _nested(depth))
    source = json.dumps(export) if as_text and depth < 1000 else export  # json.dumps recurses too
    with pytest.raises(toolkiln.CompileError) as raised:
        toolkiln.import_n8n(source)
    assert [d.code for d in raised.value.diagnostics] == ["E0402"]
    assert "E0402" in [d.code for d in toolkiln.check_workflow(source)]


def test_n8n_parameters_nested_within_the_limit_round_trip():
    export = _export_holding("parameters", _nested(190))
    imported = toolkiln.import_n8n(export)
    assert toolkiln.compile_workflow(imported.to_text()).to_n8n() == imported.to_n8n() == export


@pytest.mark.parametrize(
    "source, hint",
    [
        ("return ٣ + 1", "digits"),  # Arabic-Indic three: parsed as 3, so `٣ + 1` was 4
        ("return １２", "digits"),  # fullwidth digits parsed as 12
        ("return 1٣", "digits"),
        ("ａ = 1\nreturn ａ", "letters"),
        ({"name": "t", "description": "d", "parameters": {}, "logic": {"steps": [{"op": "return", "value": "٣"}]}}, ""),
    ],
)
def test_numbers_and_names_are_ascii_only(source, hint):
    """Digits of other scripts parsed as numbers (visual spoofing: `٣ + 1` is 4)."""
    found = toolkiln.check(source)
    assert [d.code for d in found] == ["E0101"]
    assert hint in (found[0].hint or "")


def test_workflow_numbers_are_ascii_only():
    found = toolkiln.check_workflow('workflow w\ndescription "d"\non schedule every ٣ minutes\n{\n}\n')
    assert [(d.code, d.hint) for d in found] == [("E0101", "numbers are written with the ASCII digits 0-9 only")]


@pytest.mark.parametrize("key", [None, (1,), 2.5])
def test_an_n8n_dict_with_a_key_json_cannot_hold_is_located_not_a_crash(key):
    """Found by benchmarks/fuzz_sources.py: a lone surrogate under a top-level None key raised
    TypeError while its path was written (json_path joined the key as a string)."""
    node = {"name": "a", "type": "t", "typeVersion": 1, "parameters": {}}
    found = toolkiln.check_workflow({"nodes": [node], key: "\ud800"})
    assert {d.code for d in found} == {"E0724"}
    assert repr(key) in {d.span.path for d in found}


def test_a_workflow_expression_of_more_than_40000_tokens_is_too_many_tokens():
    """As one expression of a tool: a flat chain is not deep, so only its length bounds the work
    (100,000 terms took 10 s to check and passed)."""
    terms = "+".join(["1"] * 15_000)  # 29,999 tokens
    source = (
        'workflow w\ndescription "d"\n\non webhook POST "/x" respond with node\n\nset priced {{\n  total = {},\n}}\n'
    )
    assert toolkiln.check_workflow(source.format(terms) + "respond r priced\n") == []
    found = toolkiln.check_workflow(source.format(terms + "+" + terms) + "respond r priced\n")
    assert [(d.code, d.span.line) for d in found] == [("E0404", 7)]
