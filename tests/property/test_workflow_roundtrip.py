"""The workflow printer over generated workflow ASTs: parsing the printed text gives the same
AST (spans aside), and printing that again gives the same text.

The ASTs are drawn directly (not parsed from text), with every trigger and step kind, nested
if/switch blocks, `after` wiring, `with {...}` properties, generic nodes with random JSON
parameters and quoted labels. Compute expressions come from `strategies` (the valid-program
generator's expressions, plus field access on step outputs), turned into AST nodes by the
compute expression parser.

Generated n8n exports (any node order, missing ids, names and settings, nulls, unknown keys)
import and come back exactly, as JSON and through their DSL text.
"""

from __future__ import annotations

import copy

import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.ast import workflow as w
from toolkiln.ast.spans import LineIndex
from toolkiln.backends.workflow_printer import print_workflow
from toolkiln.syntax.builder import parse_expression_with_lark
from toolkiln.syntax.expressions import ParseContext, parse_expression, parse_template
from toolkiln.syntax.workflow_text import parse_workflow
from toolkiln.workflow import compile_workflow, import_n8n

ROUNDTRIP = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

# --- leaves ---------------------------------------------------------------------------------

# Step outputs an expression may read (`priced.total`): names of every type, and `body`.
ENV = S.Env(vars={"x": S.NUM, "qty": S.NUM, "label": S.STR, "flag": S.BOOL, "body": S.ANYV}, used=set())
# The workflow grammar's words are names like any other where a name is expected.
WORDS = (
    "after",
    "nothing",
    "with",
    "case",
    "node",
    "set",
    "switch",
    "respond",
    "http",
    "merge",
    "wait",
    "body",
    "query",
    "headers",
    "credentials",
    "type",
    "version",
    "on",
    "webhook",
    "workflow",
)
step_names = S.identifiers | st.sampled_from(WORDS)
labels = step_names | st.text(min_size=1, max_size=12).filter(lambda text: text.strip() != "")  # any text
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=3)


def _parsed_expression(text: str):
    ctx = ParseContext(LineIndex(text), fallback=parse_expression_with_lark)
    expr = parse_expression(text, ctx)
    assert expr is not None and not ctx.diagnostics, (text, ctx.diagnostics)
    return expr


@st.composite
def expressions(draw):
    """A compute expression's AST: the property generator's expressions, or a field of a step."""
    if S.chance(draw, 4):
        text = f"{draw(step_names)}.{draw(step_names)}"
    else:
        text = S.render_expr(S.gen_value(draw, ENV, draw(st.integers(0, 2)))[1])
    return _parsed_expression(text)


@st.composite
def templates(draw):
    """A URL template: text and `{{expression}}` holes, as the text DSL writes it (escaped)."""
    raw = S._template_text(S.gen_template(draw, ENV))[1:-1]
    ctx = ParseContext(LineIndex(raw), fallback=parse_expression_with_lark)
    template = parse_template(raw, ctx, escaped=True)
    assert template is not None and not ctx.diagnostics, (raw, ctx.diagnostics)
    return template


def fields(names):
    return st.lists(
        st.builds(w.SetField, name=names, value=expressions()), max_size=3, unique_by=lambda field: field.name
    ).map(tuple)


credentials = st.none() | st.builds(w.Credentials, type=step_names, name=st.text(max_size=8))
versions = st.integers(0, 10**6) | st.floats(0, 1e20, allow_nan=False).filter(lambda v: not v.is_integer())
node_specs = st.builds(
    w.NodeSpec,
    name=labels,
    type=st.text(max_size=20),
    version=versions,
    parameters=json_objects,
    credentials=credentials,
)
extras = st.just({}) | json_objects
wires = st.builds(w.Wire, source=labels | step_names, output=st.integers(0, 3), input=st.integers(0, 3))

# --- triggers -------------------------------------------------------------------------------

_segment = st.text(alphabet="abcXYZ019_-", min_size=1, max_size=5)
webhook_paths = (
    st.lists(st.builds(lambda colon, name: colon + name, st.sampled_from(["", ":"]), _segment), min_size=1, max_size=3)
    .map("/".join)
    .flatmap(lambda path: st.sampled_from([path, "/" + path, path + "/", "/" + path + "/"]))
)
clock_times = st.builds("{:02d}:{:02d}".format, st.integers(0, 23), st.integers(0, 59))
cron_texts = st.lists(st.sampled_from(["*", "0", "9", "1-5", "*/15", "MON"]), min_size=5, max_size=6).map(" ".join)
timezones = st.none() | st.sampled_from(["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires"])

triggers = st.one_of(
    st.builds(
        w.WebhookTrigger,
        method=st.sampled_from(w.HTTP_METHODS),
        path=webhook_paths,
        respond_with_node=st.booleans(),
        extra=extras,
    ),
    st.builds(w.ManualTrigger, extra=extras),
    st.builds(w.ScheduleTrigger, rule=st.just("daily"), at=clock_times, timezone=timezones, extra=extras),
    st.builds(
        w.ScheduleTrigger,
        rule=st.just("every"),
        interval=st.integers(1, 500),
        unit=st.sampled_from(w.SCHEDULE_UNITS),
        timezone=timezones,
        extra=extras,
    ),
    st.builds(w.ScheduleTrigger, rule=st.just("cron"), cron=cron_texts, timezone=timezones, extra=extras),
    st.builds(w.NodeTrigger, node=node_specs, extra=extras),
)

# --- steps ----------------------------------------------------------------------------------

common = {"name": step_names, "after": st.none() | st.lists(wires, max_size=3).map(tuple), "extra": extras}


def steps(depth: int) -> st.SearchStrategy[tuple[w.Step, ...]]:
    return st.lists(step(depth), max_size=3 if depth else 4).map(tuple)


def step(depth: int) -> st.SearchStrategy[w.Step]:
    leaves = [
        st.builds(w.SetStep, fields=fields(step_names), **common),
        st.builds(w.RespondStep, body=expressions(), **common),
        st.builds(
            w.HttpStep,
            method=st.sampled_from(w.HTTP_METHODS),
            url=templates(),
            query=fields(labels),
            headers=fields(labels),
            body=st.none() | fields(labels),
            credentials=credentials,
            **common,
        ),
        st.builds(w.MergeStep, mode=st.sampled_from(["append", "position"]), **common),
        st.builds(w.WaitStep, amount=st.integers(1, 1000), unit=st.sampled_from(w.WAIT_UNITS), **common),
        node_specs.flatmap(
            lambda spec: st.builds(
                w.NodeStep, name=st.just(spec.name), node=st.just(spec), after=common["after"], extra=extras
            )
        ),
    ]
    if depth >= 2:
        return st.one_of(leaves)
    inner = steps(depth + 1)
    return st.one_of(
        *leaves,
        st.builds(w.IfStep, condition=expressions(), then=inner, otherwise=inner, **common),
        st.builds(
            w.SwitchStep,
            cases=st.lists(st.builds(w.SwitchCase, condition=expressions(), steps=inner), min_size=1, max_size=3).map(
                tuple
            ),
            otherwise=st.none() | inner,
            **common,
        ),
    )


@st.composite
def workflows(draw):
    name = draw(S.tool_names.map(str.lower) | labels)
    description = draw(st.none() | st.text(max_size=12))
    extra = draw(json_objects.filter(bool) if description is None else extras)  # a header needs one of them
    return w.Workflow(name=name, description=description, trigger=draw(triggers), steps=draw(steps(0)), extra=extra)


# --- properties -----------------------------------------------------------------------------


def _parsed(text: str) -> w.Workflow:
    workflow, diagnostics = parse_workflow(text)
    assert workflow is not None, (text, [f"{d.code} {d.message} @ {d.span}" for d in diagnostics])
    return workflow


@pytest.mark.slow
@ROUNDTRIP
@given(workflows())
def test_print_then_parse_gives_the_same_ast(workflow):
    text = print_workflow(workflow)
    assert S.strip_spans(_parsed(text)) == S.strip_spans(workflow), text


@pytest.mark.slow
@ROUNDTRIP
@given(workflows())
def test_printing_is_idempotent(workflow):
    text = print_workflow(workflow)
    assert print_workflow(_parsed(text)) == text


# --- n8n exports: import, then JSON and DSL text back -------------------------------------

NODE_TYPES = [
    ("n8n-nodes-base.manualTrigger", 1),
    ("n8n-nodes-base.scheduleTrigger", 1.2),
    ("n8n-nodes-base.noOp", 1),
    ("n8n-nodes-base.set", 3.4),
    ("n8n-nodes-base.stickyNote", 1),
]
NODE_PROPERTIES = ("notes", "disabled", "onError", "webhookId", "color")
TRIGGER_NAMES = ("Manual Trigger", "Schedule Trigger", "Webhook")  # what the DSL's triggers are called
positions = st.lists(st.integers(-2000, 2000), min_size=2, max_size=2)


@st.composite
def export_nodes(draw):
    nodes = []
    for name in draw(st.lists(labels | st.sampled_from(TRIGGER_NAMES), min_size=1, max_size=5, unique=True)):
        type_, version = draw(st.sampled_from(NODE_TYPES))
        node = {"name": name, "type": type_, "typeVersion": version}
        for key, values in (("id", st.uuids().map(str)), ("position", positions), ("parameters", json_objects)):
            if draw(st.integers(0, 4)):  # mostly there, as in an export
                node[key] = draw(values)
        node.update(draw(st.dictionaries(st.sampled_from(NODE_PROPERTIES), json_values, max_size=2)))
        nodes.append(node)
    return nodes


@st.composite
def exports(draw):
    """Documents n8n's editor imports: any node order, ids and positions or not, a name or not,
    settings with nulls or none, unknown top-level keys, main and AI connections."""
    nodes = draw(export_nodes())
    names = [node["name"] for node in nodes]
    connections = {}
    for source in draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names))):
        targets = draw(st.lists(st.sampled_from(names), max_size=2))
        kinds = {"main": [[{"node": target, "type": "main", "index": 0} for target in targets]]}
        if draw(st.booleans()):
            kinds["ai_tool"] = [[{"node": draw(st.sampled_from(names)), "type": "ai_tool", "index": 0}]]
        connections[source] = kinds
    settings_ = st.dictionaries(
        st.sampled_from(["executionOrder", "errorWorkflow", "timezone", "callerPolicy"]),
        st.none() | st.sampled_from(["v1", "v0", "UTC"]),
    )
    optional = {
        "name": st.text(max_size=10) | st.none(),
        "connections": st.just(connections),
        "settings": settings_ | st.none(),
        "pinData": st.just({}),
        "meta": json_objects,
        "x-unknown": json_values,
    }
    document = {"nodes": nodes}
    for key in draw(st.lists(st.sampled_from(sorted(optional)), unique=True)):
        document[key] = draw(optional[key])
    return document


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(exports())
def test_an_export_comes_back_exactly_as_json_and_through_its_text(document):
    imported = import_n8n(copy.deepcopy(document))
    assert imported.to_n8n() == document
    assert compile_workflow(imported.to_text()).to_n8n() == document
