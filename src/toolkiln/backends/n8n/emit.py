"""Workflow AST -> n8n workflow JSON, for n8n 1.123.50.

Node types and parameter shapes are those the captured workflows in
tests/integration/fixtures/ show n8n 1.123.50 storing (and that tests check against the node
catalog): webhook 2, manualTrigger 1, set 3.4, if 2.2, respondToWebhook 1.1. Node ids are
uuid5 of the workflow and node name, so the same source gives the same JSON.

The input must have passed `toolkiln.workflow.validate`; expressions that cannot be
translated are returned as E0706 diagnostics (and no workflow).
"""

from __future__ import annotations

import uuid
from typing import Any, assert_never

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.types import Type
from toolkiln.backends.n8n.expressions import Untranslatable, n8n_expression
from toolkiln.backends.n8n.layout import layered_positions
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.workflow.graph import WorkflowGraph
from toolkiln.workflow.validate import Validation

N8N_VERSION = "1.123.50"
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://toolkiln.dev/n8n")
NODE_TYPES: dict[str, tuple[str, float | int]] = {
    "webhook": ("n8n-nodes-base.webhook", 2),
    "manual": ("n8n-nodes-base.manualTrigger", 1),
    "set": ("n8n-nodes-base.set", 3.4),
    "if": ("n8n-nodes-base.if", 2.2),
    "respond": ("n8n-nodes-base.respondToWebhook", 1.1),
}
# Compute types -> the types of n8n Set assignments. `any` becomes "string": without
# "parseStrings" n8n keeps a string field's value as it is, whatever its JavaScript type.
SET_TYPES = {"number": "number", "integer": "number", "string": "string", "boolean": "boolean",
             "array": "array", "object": "object", "null": "string", "any": "string"}


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(parts)))


def emit_workflow(validation: Validation) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    emitter = _Emitter(validation)
    nodes = [emitter.trigger()] + [emitter.step(validation.graph.steps[name])
                                   for name in validation.graph.order[1:]]
    if emitter.diagnostics:
        return None, emitter.diagnostics
    graph = validation.graph
    positions = layered_positions(graph.graph, graph.order)
    for node in nodes:
        node["position"] = positions[node["name"]]
    connections = {}
    for name in graph.order:
        outputs = graph.outputs(name)
        if any(outputs):
            connections[name] = {"main": [[{"node": target, "type": "main", "index": 0} for target in targets]
                                          for targets in outputs]}
    workflow = {"name": graph.workflow.name, "nodes": nodes, "connections": connections,
                "settings": {"executionOrder": "v1"}}
    return workflow, []


class _Emitter:
    def __init__(self, validation: Validation) -> None:
        self.validation = validation
        self.graph: WorkflowGraph = validation.graph
        self.name = self.graph.workflow.name
        self.diagnostics: list[Diagnostic] = []

    def node(self, name: str, kind: str, parameters: dict[str, Any]) -> dict[str, Any]:
        type_, version = NODE_TYPES[kind]
        return {"id": stable_id(self.name, name), "name": name, "type": type_, "typeVersion": version,
                "position": [0, 0], "parameters": parameters}

    def trigger(self) -> dict[str, Any]:
        trigger = self.graph.workflow.trigger
        match trigger:
            case w.WebhookTrigger():
                node = self.node(self.graph.trigger, "webhook", {
                    "httpMethod": trigger.method,
                    "path": trigger.path.strip("/"),
                    "responseMode": "responseNode" if trigger.respond_with_node else "onReceived",
                    "options": {},
                })
                node["webhookId"] = stable_id(self.name, self.graph.trigger, "webhook")
                return node
            case w.ManualTrigger():
                return self.node(self.graph.trigger, "manual", {})
            case _:
                assert_never(trigger)

    def step(self, step: w.Step) -> dict[str, Any]:
        match step:
            case w.SetStep():
                assignments = [{
                    "id": stable_id(self.name, step.name, "field", f.name),
                    "name": f.name,
                    "value": self.expression(step, f.value),
                    "type": self.set_type(self.validation.field_types.get((step.name, f.name))),
                } for f in step.fields]
                return self.node(step.name, "set", {"mode": "manual",
                                                    "assignments": {"assignments": assignments},
                                                    "includeOtherFields": False, "options": {}})
            case w.IfStep():
                condition = {"id": stable_id(self.name, step.name, "condition"),
                             "leftValue": self.expression(step, step.condition), "rightValue": "",
                             "operator": {"type": "boolean", "operation": "true", "singleValue": True}}
                return self.node(step.name, "if", {"conditions": {
                    "options": {"caseSensitive": True, "leftValue": "", "typeValidation": "strict", "version": 2},
                    "conditions": [condition], "combinator": "and"}, "options": {}})
            case w.RespondStep():
                type_ = self.validation.respond_types.get(step.name)
                text = type_ is not None and type_.name == "string"
                return self.node(step.name, "respond", {"respondWith": "text" if text else "json",
                                                        "responseBody": self.expression(step, step.body),
                                                        "options": {}})
            case _:
                assert_never(step)

    @staticmethod
    def set_type(type_: Type | None) -> str:
        return SET_TYPES[type_.name] if type_ is not None else "string"

    def expression(self, step: w.Step, expr: n.Expr) -> str:
        source = self.graph.input_source(step.name)

        def root(name: n.Name) -> str:
            if name.name in self.graph.roots:
                base = "$json" if source == self.graph.trigger else f"$({_js_quote(self.graph.trigger)}).item.json"
                return f"{base}.{name.name}"
            return "$json" if source == name.name else f"$({_js_quote(name.name)}).item.json"

        try:
            return n8n_expression(expr, root)
        except Untranslatable as error:
            self.diagnostics.append(Diagnostic.of(codes.UNTRANSLATABLE, error.message, error.span, error.hint))
            return ""


def _js_quote(name: str) -> str:
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"
