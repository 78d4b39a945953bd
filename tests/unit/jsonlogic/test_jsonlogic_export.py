"""toolkiln.export_jsonlogic and `toolkiln export --to jsonlogic`: the way back. A property:
for generated rules and data, import(export(t)) answers as t does (the same value, or a
failure with the same code)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonlogic_suites import same

import toolkiln
from toolkiln.cli import main
from toolkiln.errors import CompileError, RunError

KEYS = ["a", "b", "c"]
NUMBERS = st.integers(-4, 4) | st.sampled_from([Decimal("0.5"), Decimal("1.25"), Decimal("0.1")])
SCALARS = NUMBERS | st.sampled_from(["", "a", "3", "abc", True, False, None])
BINARY = ["+", "-", "*", "/", "%", "==", "===", "!=", "!==", "<", "<=", ">", ">=", "in", "cat", "max", "min"]


def _rules(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        pair = st.lists(inner, min_size=2, max_size=3)
        return st.one_of(
            st.tuples(st.sampled_from(BINARY), pair).map(lambda op: {op[0]: op[1]}),
            pair.map(lambda items: {"and": items}),
            pair.map(lambda items: {"or": items}),
            inner.map(lambda item: {"!": [item]}),
            inner.map(lambda item: {"!!": item}),
            st.tuples(inner, inner, inner).map(lambda parts: {"if": list(parts)}),
            pair.map(lambda items: {"??": items}),
            pair.map(lambda items: {"merge": items}),
        )

    return st.recursive(leaves, extend, max_leaves=6)


ITEM_RULES = _rules(SCALARS | st.just({"var": ""}))
CURRENT_RULES = _rules(SCALARS | st.just({"var": "current"}))
RULES = st.recursive(
    _rules(SCALARS | st.sampled_from(KEYS).map(lambda key: {"var": key})),
    lambda inner: st.one_of(
        ITEM_RULES.map(lambda body: {"map": [{"var": "xs"}, body]}),
        ITEM_RULES.map(lambda body: {"filter": [{"var": "xs"}, body]}),
        st.tuples(st.sampled_from(["all", "some", "none"]), ITEM_RULES).map(lambda q: {q[0]: [{"var": "xs"}, q[1]]}),
        st.tuples(st.sampled_from(["+", "*", "max", "cat"]), NUMBERS).map(
            lambda f: {"reduce": [{"var": "xs"}, {f[0]: [{"var": "accumulator"}, {"var": "current"}]}, f[1]]}
        ),
        st.tuples(CURRENT_RULES, SCALARS).map(lambda r: {"reduce": [{"var": "xs"}, r[0], r[1]]}),
        st.lists(st.sampled_from(KEYS), max_size=3).map(lambda keys: {"missing": keys}),
        st.lists(inner, min_size=1, max_size=2).map(lambda items: {"cat": items}),
    ),
    max_leaves=4,
)
DATA = st.fixed_dictionaries(
    dict.fromkeys(KEYS, SCALARS), optional={"xs": st.lists(NUMBERS | st.sampled_from(["2", None]), max_size=4)}
)


def answer(tool: toolkiln.Tool, data: Any) -> tuple[str, Any]:
    try:
        return "value", tool.run({"data": data})
    except RunError as error:
        return "error", error.code


def agree(first: tuple[str, Any], second: tuple[str, Any]) -> bool:
    return first[0] == second[0] and (first[1] == second[1] if first[0] == "error" else same(first[1], second[1], "x"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule=RULES, numbers=st.sampled_from(["exact", "float"]), data=st.lists(DATA, min_size=1, max_size=4))
def test_an_exported_rule_imported_again_answers_as_the_tool(rule, numbers, data):
    try:
        tool = toolkiln.import_jsonlogic(rule, numbers=numbers)
    except CompileError:  # a generated rule the import refuses ({"in": [a, b, c]}): no tool
        assume(False)
    again = toolkiln.import_jsonlogic(toolkiln.export_jsonlogic(tool), numbers=numbers)
    for case in data:
        assert agree(answer(tool, case), answer(again, case)), (rule, toolkiln.export_jsonlogic(tool), case)


SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "c": {"type": "string"}},
    "required": ["a", "b", "c"],
}
TYPED_LEAVES = NUMBERS | st.sampled_from([{"var": "a"}, {"var": "b"}])
TYPED_RULES = st.recursive(
    TYPED_LEAVES,
    lambda inner: st.tuples(st.sampled_from(["+", "-", "*", "<", "<=", ">", ">=", "==", "!="]), inner, inner).map(
        lambda t: {t[0]: [t[1], t[2]]}
    ),
    max_leaves=5,
)
TYPED_DATA = st.fixed_dictionaries({"a": NUMBERS, "b": NUMBERS, "c": st.sampled_from(["x", "3"])})


@settings(max_examples=150, deadline=None)
@given(rule=TYPED_RULES, data=st.lists(TYPED_DATA, min_size=1, max_size=4))
def test_a_typed_tool_exports_its_operators_and_answers_the_same(rule, data):
    tool = toolkiln.import_jsonlogic(rule, SCHEMA)
    again = toolkiln.import_jsonlogic(toolkiln.export_jsonlogic(tool))
    for case in data:
        assert agree(answer(tool, case), answer(again, case)), (rule, case)


def test_the_typed_export_reads_the_fields():
    tool = toolkiln.import_jsonlogic({">": [{"var": "a"}, 18]}, SCHEMA)
    assert toolkiln.to_text(tool.program).count("js_") == 0
    assert toolkiln.export_jsonlogic(tool) == {">": [{"var": "a"}, Decimal(18)]}


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ('return upper("x")', "upper"),
        ("tool t(s: string)\n{\n  return s + s\n}\n", "`+`"),
        ("tool t(xs: array)\n{\n  return [len(xs) for x in xs]\n}\n", "len"),
    ],
)
def test_what_does_not_map_onto_jsonlogic_is_e1006(source, what):
    source = source.replace("\n{", '\ndescription "d"\n{')
    with pytest.raises(CompileError) as refused:
        toolkiln.export_jsonlogic(toolkiln.compile(source))
    diagnostic = refused.value.diagnostics[0]
    assert diagnostic.code == "E1006" and what in diagnostic.message and diagnostic.span is not None


def test_a_tool_of_several_parameters_reads_them_from_the_rules_data():
    tool = toolkiln.compile('tool t(a: number, b: number)\ndescription "d"\n{\n  return a * b + 1\n}\n')
    rule = toolkiln.export_jsonlogic(tool)
    assert rule == {"+": [{"*": [{"var": "a"}, {"var": "b"}]}, Decimal(1)]}
    assert toolkiln.import_jsonlogic(rule).run({"data": {"a": 3, "b": 4}}) == 13


def test_the_export_command_writes_the_rule(tmp_path, capsys):
    rule = {"if": [{"<": [{"var": "temp"}, 0]}, "freezing", "liquid"]}
    source = tmp_path / "water.tk"
    source.write_text(toolkiln.to_text(toolkiln.import_jsonlogic(rule, name="water").program))
    assert main(["export", "--to", "jsonlogic", str(source)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert toolkiln.import_jsonlogic(exported).run({"data": {"temp": -1}}) == "freezing"
    source.write_text('return upper("x")')
    assert main(["export", "--to", "jsonlogic", str(source)]) == 1
    assert "E1006" in capsys.readouterr().err
