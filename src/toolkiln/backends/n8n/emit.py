"""Workflow AST -> n8n workflow JSON, for n8n 2.41.1 and 1.123.50.

Node types and parameter shapes are those the captured workflows in
tests/integration/fixtures/ show n8n 1.123.50 storing, which n8n 2.41.1 runs the same (the
integration tests run on either; the unit tests check them against both node catalogs):
webhook 2, manualTrigger 1, set 3.4, if 2.2, respondToWebhook 1.1. Node ids are uuid5 of the
workflow and node name (made by hand: see `stable_id`), so the same source gives the same JSON.

The input must have passed `toolkiln.check.workflow.validate`; expressions that cannot be
translated are returned as E0706 diagnostics (and no workflow).
"""

from __future__ import annotations

import copy
from hashlib import sha1
from typing import Any, assert_never

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.spans import Span
from toolkiln.ast.types import Type
from toolkiln.backends.n8n.expressions import Untranslatable, js_string, to_js
from toolkiln.backends.n8n.layout import layered_positions
from toolkiln.check.workflow.graph import WorkflowGraph
from toolkiln.check.workflow.validation import Validation
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic

# The namespace of the ids, uuid.uuid5(uuid.NAMESPACE_URL, "https://toolkiln.dev/n8n"), as bytes.
NAMESPACE = bytes.fromhex("b5348d55919155b28a9eb5b7677e3d06")
NODE_TYPES: dict[str, tuple[str, float | int]] = {
    "webhook": ("n8n-nodes-base.webhook", 2),
    "manual": ("n8n-nodes-base.manualTrigger", 1),
    "schedule": ("n8n-nodes-base.scheduleTrigger", 1.2),
    "set": ("n8n-nodes-base.set", 3.4),
    "if": ("n8n-nodes-base.if", 2.2),
    "switch": ("n8n-nodes-base.switch", 3.2),
    "respond": ("n8n-nodes-base.respondToWebhook", 1.1),
    "http": ("n8n-nodes-base.httpRequest", 4.2),
    "merge": ("n8n-nodes-base.merge", 3),
    "wait": ("n8n-nodes-base.wait", 1.1),
}
# Credential types the HTTP Request node takes as "generic" auth; any other type is one of
# n8n's predefined service credentials (hubspotApi, ...).
GENERIC_AUTH = frozenset(
    {"httpBasicAuth", "httpHeaderAuth", "httpQueryAuth", "httpDigestAuth", "httpCustomAuth", "oAuth1Api", "oAuth2Api"}
)
CONDITION_OPTIONS = {"caseSensitive": True, "leftValue": "", "typeValidation": "strict", "version": 2}
# Compute types -> the types of n8n Set assignments. A field of unknown type (read from an HTTP
# answer or a generic node) is "any": Set 3.4 turns every "string" field into a string
# (String(7) is "7"), but a type it does not validate is passed through as it is.
SET_TYPES = {
    "number": "number",
    "integer": "number",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
    "null": "any",
    "any": "any",
    "date": "string",  # ISO 8601 text (date_expressions.py); datetimes are not translated
    "datetime": "string",
}


# Keys of a `with {...}` that are toolkiln's, not n8n's: with them an import gives back an
# export exactly (docs/workflow-import.md).
OMIT = "toolkiln:omit"  # properties toolkiln writes that this node, workflow or settings lacks
INDEX = "toolkiln:index"  # the trigger node's place among the nodes (default 0: first)


def stable_id(*parts: str) -> str:
    """`str(uuid.uuid5(NAMESPACE, "/".join(parts)))`, made as RFC 4122 says without the uuid
    module: importing it (and `platform` with it) was 20 M instructions of a workflow's check."""
    digest = bytearray(sha1(NAMESPACE + "/".join(parts).encode(), usedforsecurity=False).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # the RFC 4122 variant
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def emit_workflow(validation: Validation) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    emitter = _Emitter(validation)
    nodes = [emitter.step(validation.graph.steps[name]) for name in validation.graph.order[1:]]
    nodes.insert(emitter.trigger_index(len(nodes)), emitter.trigger())
    graph = validation.graph
    connections = {}
    for name in graph.order:
        outputs = graph.outputs(name)
        if any(outputs):
            connections[name] = {
                "main": [
                    [{"node": target, "type": "main", "index": index} for target, index in targets]
                    for targets in outputs
                ]
            }
    workflow = emitter.workflow(nodes, connections)
    if emitter.diagnostics:
        return None, emitter.diagnostics
    return workflow, []


class _Emitter:
    def __init__(self, validation: Validation) -> None:
        self.validation = validation
        self.graph: WorkflowGraph = validation.graph
        self.positions = layered_positions(self.graph.graph, self.graph.order)
        self.name = self.graph.workflow.name
        self.diagnostics: list[Diagnostic] = []

    def node(self, name: str, kind: str, parameters: dict[str, Any]) -> dict[str, Any]:
        type_, version = NODE_TYPES[kind]
        return self.n8n_node(name, type_, version, parameters)

    def n8n_node(self, name: str, type_: str, version: float | int, parameters: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": stable_id(self.name, name),
            "name": name,
            "type": type_,
            "typeVersion": version,
            "position": self.positions[name],
            "parameters": parameters,
        }

    def generic(self, spec: w.NodeSpec) -> dict[str, Any]:
        node = self.n8n_node(spec.name, spec.type, spec.version, copy.deepcopy(spec.parameters))
        if spec.credentials is not None:
            node["credentials"] = _credential(spec.credentials)
        return node

    def workflow(self, nodes: list[dict[str, Any]], connections: dict[str, Any]) -> dict[str, Any]:
        """The top level. The header's `with {...}` adds properties (pinData, tags, ...) as given,
        nulls too; its `settings` are merged into the generated ones, and its `connections`
        replace, per node and connection type, what the wiring gives: how an import keeps
        connections `after` cannot say (ai_tool, ...)."""
        workflow = self.graph.workflow
        settings: dict[str, Any] = {"executionOrder": "v1"}
        trigger = workflow.trigger
        if isinstance(trigger, w.ScheduleTrigger) and trigger.timezone is not None:
            settings["timezone"] = trigger.timezone
        extra = dict(workflow.extra)
        if isinstance(extra.get("settings"), dict):
            settings = self.merged(settings, extra.pop("settings"), workflow.span)
        if isinstance(extra.get("connections"), dict):
            for source, kinds in copy.deepcopy(extra.pop("connections")).items():
                if isinstance(kinds, dict) and isinstance(connections.get(source), dict):
                    connections[source].update(kinds)
                else:
                    connections[source] = kinds
        top = {"name": workflow.name, "nodes": nodes, "connections": connections, "settings": settings}
        return self.merged(top, extra, workflow.span)

    def merged(self, generated: dict[str, Any], given: dict[str, Any], span: Span) -> dict[str, Any]:
        """`generated` with the properties of a `with {...}` written over it, less those its
        `toolkiln:omit` lists."""
        given = copy.deepcopy(given)
        omit = given.pop(OMIT, [])
        if not (isinstance(omit, list) and all(isinstance(key, str) for key in omit)):
            self.report(f"`{OMIT}` is not a list of property names", span, f'e.g. "{OMIT}": ["id", "position"]')
            omit = []
        merged = {**generated, **given}
        for key in omit:
            merged.pop(key, None)
        return merged

    def trigger_index(self, steps: int) -> int:
        trigger = self.graph.workflow.trigger
        index = trigger.extra.get(INDEX, 0)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= steps:
            self.report(f"`{INDEX}` is not a node index from 0 to {steps}", trigger.span, f'e.g. "{INDEX}": 1')
            return 0
        return index

    def report(self, message: str, span: Span, hint: str) -> None:
        self.diagnostics.append(Diagnostic.of(codes.WRONG_JSON_TYPE, message, span, hint))

    def trigger(self) -> dict[str, Any]:
        trigger = self.graph.workflow.trigger
        extra = {key: value for key, value in trigger.extra.items() if key != INDEX}
        return self.merged(self.trigger_node(trigger), extra, trigger.span)

    def trigger_node(self, trigger: w.Trigger) -> dict[str, Any]:
        match trigger:
            case w.WebhookTrigger():
                node = self.node(
                    self.graph.trigger,
                    "webhook",
                    {
                        "httpMethod": trigger.method,
                        "path": trigger.path.strip("/"),
                        "responseMode": "responseNode" if trigger.respond_with_node else "onReceived",
                        "options": {},
                    },
                )
                node["webhookId"] = stable_id(self.name, self.graph.trigger, "webhook")
                return node
            case w.ManualTrigger():
                return self.node(self.graph.trigger, "manual", {})
            case w.ScheduleTrigger():
                return self.node(self.graph.trigger, "schedule", {"rule": {"interval": [_schedule_rule(trigger)]}})
            case w.NodeTrigger():
                return self.generic(trigger.node)
            case _:
                assert_never(trigger)

    def step(self, step: w.Step) -> dict[str, Any]:
        if INDEX in step.extra:
            self.report(f"`{INDEX}` places only the trigger", step.span, "steps are written in their order")
        return self.merged(self.step_node(step), step.extra, step.span)

    def step_node(self, step: w.Step) -> dict[str, Any]:
        match step:
            case w.SetStep():
                assignments = [
                    {
                        "id": stable_id(self.name, step.name, "field", f.name),
                        "name": f.name,
                        "value": self.expression(step, f.value),
                        "type": self.set_type(self.validation.field_types.get((step.name, f.name))),
                    }
                    for f in step.fields
                ]
                return self.node(
                    step.name,
                    "set",
                    {
                        "mode": "manual",
                        "assignments": {"assignments": assignments},
                        "includeOtherFields": False,
                        "options": {},
                    },
                )
            case w.IfStep():
                return self.node(
                    step.name, "if", {"conditions": self.condition(step, step.condition, "condition"), "options": {}}
                )
            case w.SwitchStep():
                rules = [
                    {"conditions": self.condition(step, case.condition, f"case{index}"), "renameOutput": False}
                    for index, case in enumerate(step.cases)
                ]
                options = {} if step.otherwise is None else {"fallbackOutput": "extra"}
                return self.node(step.name, "switch", {"rules": {"values": rules}, "options": options})
            case w.RespondStep():
                type_ = self.validation.respond_types.get(step.name)
                text = type_ is not None and type_.name == "string"
                return self.node(
                    step.name,
                    "respond",
                    {
                        "respondWith": "text" if text else "json",
                        "responseBody": self.expression(step, step.body),
                        "options": {},
                    },
                )
            case w.HttpStep():
                return self.http(step)
            case w.MergeStep():
                inputs = self.merge_inputs(step.name)
                parameters: dict[str, Any] = (
                    {} if step.mode == "append" else {"mode": "combine", "combineBy": "combineByPosition"}
                )
                if inputs > 2:
                    parameters["numberInputs"] = inputs
                parameters["options"] = {}
                return self.node(step.name, "merge", parameters)
            case w.WaitStep():
                node = self.node(step.name, "wait", {"amount": step.amount, "unit": step.unit})
                node["webhookId"] = stable_id(self.name, step.name, "webhook")
                return node
            case w.NodeStep():
                return self.generic(step.node)
            case _:
                assert_never(step)

    def merge_inputs(self, name: str) -> int:
        # An edge's data is untyped: its "input" is the input index the validator's graph set.
        highest: int = max(data["input"] for _, _, data in self.graph.graph.in_edges(name))
        return 1 + highest

    def condition(self, step: w.Step, expr: n.Expr, label: str) -> dict[str, Any]:
        """An n8n filter that holds when the (boolean) expression is true."""
        condition = {
            "id": stable_id(self.name, step.name, label),
            "leftValue": self.expression(step, expr),
            "rightValue": "",
            "operator": {"type": "boolean", "operation": "true", "singleValue": True},
        }
        return {"options": dict(CONDITION_OPTIONS), "conditions": [condition], "combinator": "and"}

    def http(self, step: w.HttpStep) -> dict[str, Any]:
        parameters: dict[str, Any] = {"method": step.method, "url": self.template(step, step.url)}
        credentials = step.credentials
        if credentials is not None:
            if credentials.type in GENERIC_AUTH:
                parameters.update(authentication="genericCredentialType", genericAuthType=credentials.type)
            else:
                parameters.update(authentication="predefinedCredentialType", nodeCredentialType=credentials.type)
        for flag, key, fields in (
            ("sendQuery", "queryParameters", step.query),
            ("sendHeaders", "headerParameters", step.headers),
        ):
            if fields:
                parameters[flag] = True
                parameters[key] = {
                    "parameters": [{"name": f.name, "value": self.expression(step, f.value)} for f in fields]
                }
        if step.body is not None:
            members = ", ".join(f"{js_string(f.name)}: {self.javascript(step, f.value)}" for f in step.body)
            parameters.update(sendBody=True, specifyBody="json", jsonBody="={{ JSON.stringify({ " + members + " }) }}")
        parameters["options"] = {}
        node = self.node(step.name, "http", parameters)
        if credentials is not None:
            node["credentials"] = _credential(credentials)
        return node

    def template(self, step: w.Step, template: n.Template) -> str:
        """A URL template as an n8n string with embedded `{{ }}` holes (plain text without)."""
        if not any(isinstance(part, n.Hole) for part in template.parts):
            return "".join(part.text for part in template.parts if isinstance(part, n.TextPart))
        pieces = []
        for part in template.parts:
            if isinstance(part, n.TextPart):
                # After "=", n8n evaluates every `{{ }}`: text with a brace goes in as a string.
                braced = "{" in part.text or "}" in part.text
                pieces.append("{{ " + js_string(part.text) + " }}" if braced else part.text)
            elif part.spec is not None:
                self.diagnostics.append(
                    Diagnostic.of(
                        codes.UNTRANSLATABLE,
                        "a format spec has no n8n translation",
                        part.span,
                        "compute the formatted text in a `set` step",
                    )
                )
            else:
                pieces.append("{{ " + self.javascript(step, part.expr) + " }}")
        return "=" + "".join(pieces)

    @staticmethod
    def set_type(type_: Type | None) -> str:
        return SET_TYPES[type_.name] if type_ is not None else "any"

    def expression(self, step: w.Step, expr: n.Expr) -> str:
        return "={{ " + self.javascript(step, expr) + " }}"

    def javascript(self, step: w.Step, expr: n.Expr) -> str:
        source = self.graph.input_source(step.name)

        def root(name: n.Name) -> str:
            if name.name in self.graph.roots:
                base = "$json" if source == self.graph.trigger else f"$({_js_quote(self.graph.trigger)}).item.json"
                return f"{base}.{name.name}"
            return "$json" if source == name.name else f"$({_js_quote(name.name)}).item.json"

        try:
            return to_js(expr, root)
        except Untranslatable as error:
            self.diagnostics.append(Diagnostic.of(codes.UNTRANSLATABLE, error.message, error.span, error.hint))
            return ""


def _credential(credentials: w.Credentials) -> dict[str, Any]:
    """A credential by name. The id must be null, not missing: n8n looks up by name and type
    only a null id; a missing one matches the first credential of that type, whatever its name."""
    return {credentials.type: {"id": None, "name": credentials.name}}


def _schedule_rule(trigger: w.ScheduleTrigger) -> dict[str, Any]:
    match trigger.rule:
        case "daily":
            hour, minute = (int(part) for part in (trigger.at or "00:00").split(":"))
            return {"field": "days", "triggerAtHour": hour, "triggerAtMinute": minute}
        case "every":
            unit = trigger.unit or "minutes"
            return {"field": unit, f"{unit}Interval": trigger.interval}
        case "cron":
            return {"field": "cronExpression", "expression": trigger.cron}
        case _:
            assert_never(trigger.rule)


def _js_quote(name: str) -> str:
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"
