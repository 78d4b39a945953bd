"""The data-flow check (backends/n8n/dataflow.py) on a workflow compiled from `.wf` text,
located in the text.

The DSL checks its own `step.field` reads when it compiles (E0720); what it cannot check is
the raw n8n parameters of its `node` steps and triggers (`$json.x`, `$('Node').item.json.y`).
So the check runs on the n8n JSON the text compiles to, and keeps the findings inside those
raw parameters, each pointed at the value in the `.wf` text that holds the expression.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from toolkiln.ast import workflow as w
from toolkiln.ast.spans import LineIndex, Span
from toolkiln.backends.n8n.dataflow import Fields, data_flow
from toolkiln.check.workflow.digraph import MultiDigraph
from toolkiln.check.workflow.graph import WorkflowGraph
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.syntax.json_positions import value_offsets

# `nodes[3].parameters.a.b[0]` -> 3, `a.b[0]`
PARAMETER_PATH = re.compile(r"nodes\[(\d+)\]\.parameters\.?(.*)", re.DOTALL)
# The node spec up to its parameters' `{` (comments may sit between its words).
_GAP = r"(?:\s|#[^\n]*\n)*"
SPEC_HEAD = re.compile(
    rf"""node{_GAP}(?:[A-Za-z_]\w*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'){_GAP}type{_GAP}"""
    rf"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'){_GAP}version{_GAP}[0-9][0-9.eE+-]*{_GAP}(?=\{{)"""
)
# A JSON string (which may hold braces) or a brace.
JSON_BRACE = re.compile(r'"(?:[^"\\]|\\.)*"|[{}]')


def compiled_data_flow(graph: WorkflowGraph, n8n: dict[str, Any], text: str) -> list[Diagnostic]:
    """The data-flow findings in the raw parameters of `node` steps and triggers (with the output
    fields `returns {...}` declares), at their place in `text` (the source of `graph`, `n8n`)."""
    specs = dict(_node_specs(graph))
    if not specs:
        return []
    nodes = n8n["nodes"]
    names = {node["name"]: index for index, node in enumerate(nodes)}
    if len(names) != len(nodes):
        return []  # two nodes of one name: a name does not say which (the compiler refused it)
    index = LineIndex(text)
    found = []
    declared = {name: _fields(shape) for name in names if (shape := graph.declared(name)) is not None}
    trigger = graph.workflow.trigger
    bodies = {graph.trigger: _fields(trigger.body)} if isinstance(trigger, w.WebhookTrigger) and trigger.body else {}
    for code, message, path, hint in data_flow(n8n, names, _main_graph(n8n, names), declared, bodies):
        parsed = PARAMETER_PATH.fullmatch(path)
        spec = specs.get(nodes[int(parsed.group(1))]["name"]) if parsed else None
        if parsed is not None and spec is not None:
            found.append(Diagnostic.of(code, message, _value_span(spec, parsed.group(2), text, index), hint))
    return found


def _node_specs(graph: WorkflowGraph) -> Iterator[tuple[str, w.NodeSpec]]:
    trigger = graph.workflow.trigger
    if isinstance(trigger, w.NodeTrigger):
        yield graph.trigger, trigger.node
    for name, step in graph.steps.items():
        if isinstance(step, w.NodeStep):
            yield name, step.node


def _fields(shape: w.Shape) -> Fields:
    """The fields a declared shape gives an item, with those of the objects declared in it."""
    return {field.name: None if field.type.shape is None else _fields(field.type.shape) for field in shape.fields}


def _main_graph(n8n: dict[str, Any], names: dict[str, int]) -> MultiDigraph:
    """The compiled workflow's main connections (a header's `with {"connections": ...}` too)."""
    graph = MultiDigraph()
    graph.add_nodes_from(names)
    for source, kinds in n8n.get("connections", {}).items():
        outputs = kinds.get("main") if isinstance(kinds, dict) else None
        for targets in outputs if isinstance(outputs, list) else ():
            for target in targets if isinstance(targets, list) else ():
                node = target.get("node") if isinstance(target, dict) else None
                if source in names and node in names:
                    graph.add_edge(source, node, kind="main")
    return graph


def _value_span(spec: w.NodeSpec, parameter: str, text: str, index: LineIndex) -> Span:
    """The span of the parameter value in the node spec's JSON; the spec's if it is not found."""
    head = SPEC_HEAD.match(text, spec.span.start)
    if head is None:
        return spec.span
    start = head.end()
    offsets = value_offsets(_json_object(text, start))
    if parameter not in offsets:
        return spec.span
    offset, raw = offsets[parameter]
    return index.span(start + offset, start + offset + (len(raw) if raw else 1))


def _json_object(text: str, start: int) -> str:
    """The brace-balanced JSON object that starts at `start` (its strings may hold braces)."""
    depth = 0
    for match in JSON_BRACE.finditer(text, start):
        if match.group() == "{":
            depth += 1
        elif match.group() == "}":
            depth -= 1
            if depth == 0:
                return text[start : match.end()]
    return text[start:]
