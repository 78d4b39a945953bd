"""The static cost bound (toolkiln.check.cost): its form, and that it holds: every run of the
shipped examples and of the JsonLogic corpus, and runs of programs over every builtin that
declares a cost with generated arguments, are charged at most the bound at their sizes."""

from __future__ import annotations

import inspect

import pytest
from cost_cases import SUITES, corpus_runs, example_runs, operations
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkiln
from toolkiln.check.cost import NoBound, cost_bound
from toolkiln.check.cost.builtins import BUILDS, BUILT, RESULT, WORK
from toolkiln.errors import RunError
from toolkiln.semantics import builtin_registry
from toolkiln.semantics.builtins import BUILTINS


def compiled(source: str, **kwargs) -> toolkiln.Tool:
    """`tool name(params) { body }` with a description added."""
    header, body = source.split(" {", 1)
    return toolkiln.compile(f'{header}\ndescription "A test."\n{{{body}', **kwargs)


def bound_of(tool: toolkiln.Tool):
    return cost_bound(tool.program, tool.checked, callees=tool.tools.get)


def test_a_comprehension_multiplies_its_elements_cost_by_its_lists_length():
    tool = compiled("tool t(items: array[number]) { return sum(x * 2 for x in items) }")
    bound = bound_of(tool)
    assert [str(size) for size in bound.sizes()] == ["len(items)"]
    assert bound.at({"items": []}) == operations(tool, {"items": []})
    per_item = bound.at({"items": [1]}) - bound.at({"items": []})
    assert per_item > 0 and bound.at({"items": [1] * 10}) == bound.at({"items": []}) + 10 * per_item


def test_nested_comprehensions_multiply():
    tool = compiled("tool t(rows: array[array[number]]) { return [sum(x for x in r) for r in rows] }")
    text = str(bound_of(tool))
    assert "len(rows)·len(rows[*])" in text, text


def test_a_call_adds_the_callees_bound_at_the_arguments_it_passes():
    double = compiled("tool double(xs: array[number]) { return [x * 2 for x in xs] }")
    caller = compiled(
        "tool twice(ys: array[number]) {\n  a = call double(xs = ys)\n  return len(a)\n}", tools={"double": double}
    )
    bound = bound_of(caller)
    assert [str(size) for size in bound.sizes()] == ["len(ys)"]
    args = {"ys": list(range(50))}
    alone = bound_of(double).at({"xs": args["ys"]})
    assert operations(caller, args) <= bound.at(args) and bound.at(args) > alone


def test_a_call_of_a_tool_not_given_has_no_bound():
    double = compiled("tool double(x: number) { return x * 2 }")
    caller = compiled("tool c(y: number) {\n  a = call double(x = y)\n  return a\n}", tools={"double": double})
    with pytest.raises(NoBound, match="double"):
        cost_bound(caller.program, caller.checked)


def test_every_builtin_that_declares_its_own_cost_has_a_model():
    generic = {builtin_registry.first_size, builtin_registry.all_sizes, builtin_registry.constant_work}
    missing = []
    for name, function in BUILTINS.items():
        if function.work is not None and function.work not in generic and name not in WORK:
            missing.append(f"{name}: work")
        if function.builds is not None and name not in BUILDS:
            missing.append(f"{name}: builds")
        if function.built not in (None, builtin_registry.result_text_work) and name not in BUILT:
            missing.append(f"{name}: built")
    assert not missing
    assert all(inspect.isfunction(model) for model in RESULT.values())


@pytest.mark.parametrize("run", list(example_runs()), ids=lambda run: run.id)
def test_every_example_run_is_within_its_bound(run):
    measured, bound = operations(run.tool, run.args, run.tables), bound_of(run.tool).at(run.args, run.tables)
    assert measured <= bound, f"{run.id}: {measured} > {bound} ({bound_of(run.tool)})"


@pytest.mark.skipif(not SUITES.is_dir(), reason=f"the JsonLogic suites are not at {SUITES}")
def test_every_corpus_run_is_within_its_bound():
    runs, over = 0, []
    for run in corpus_runs():
        runs += 1
        measured, bound = operations(run.tool, run.args, run.tables), bound_of(run.tool).at(run.args, run.tables)
        if measured > bound:
            over.append(f"{run.id}: {measured} > {bound} ({bound_of(run.tool)})")
    assert runs > 1_000 and not over, "\n".join(over)


# Programs over the builtins that charge by size, and the operators that do; run with
# generated texts and lists, each run is charged at most the bound at its arguments' sizes.
PROGRAMS = [
    "tool p(s: string, t: string) { return [upper(s), lower(t), trim(s), title(t), capitalize(s)] }",
    "tool p(s: string, t: string) { return join(split(s, t), t) }",
    "tool p(s: string, t: string) { return [replace(s, t, s), s + t, contains(s, t), starts_with(s, t)] }",
    "tool p(s: string, t: string) { return [url_encode(s), base64_encode(t), sha256(s), len(s + t)] }",
    'tool p(s: string, t: string) {\n  m = format "{{s}} and {{t}}: {{len(s)}}"\n  return m\n}',
    "tool p(xs: array[number], ys: array[number]) { return [sort(xs), unique(ys), zip(xs, ys), xs == ys] }",
    "tool p(xs: array[number], ys: array[number]) { return [x for x in xs if x in ys] }",
    "tool p(xs: array[number], ys: array[number]) { return flatten([xs, ys, [count(xs, 1)]]) }",
    "tool p(xs: array[number], ys: array[number]) { return group_by(xs, [y > 0 for y in xs]) }",
    "tool p(xs: array[number], ys: array[number]) { return [[x * y for y in ys] for x in xs] }",
    'tool p(xs: array[number], ys: array[number]) { return join([text(x) for x in xs], ",") }',
    "tool p(xs: array[number], ys: array[number]) { return slice(xs, 1, len(ys)) }",
    "tool p(s: string, t: string) { return [slugify(s), camel_case(t), snake_case(s), kebab_case(t), truncate(s, 50)] }",
    "tool p(s: string, t: string) { return [count_words(t), remove_diacritics(s), is_json(s), is_uuid(t)] }",
    'tool p(s: string, t: string) { return [to_json(split(s, t), 2), parse_csv(s), parse_csv(t, ";")] }',
    "tool p(xs: array[number], ys: array[number]) { return [chunk(xs, 3), parse_json(to_json(ys))] }",
]
TEXTS = st.text(max_size=300)
NUMBERS = st.lists(st.integers(-5, 5) | st.decimals(-100, 100, places=3), max_size=60)


@pytest.mark.parametrize("source", PROGRAMS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_generated_runs_are_within_the_bound(source, data):
    tool = compiled(source)
    texts = "s: string" in source
    args = (
        {"s": data.draw(TEXTS), "t": data.draw(TEXTS)}
        if texts
        else {"xs": data.draw(NUMBERS), "ys": data.draw(NUMBERS)}
    )
    try:
        measured = operations(tool, args)
    except RunError:
        return  # the bound is of runs that succeed
    assert measured <= bound_of(tool).at(args), (args, str(bound_of(tool)))
