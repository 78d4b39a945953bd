"""Reading n8n nodes back as the DSL steps the emitter writes them from (for the importer).

Each reader takes an n8n node and returns the step (or trigger) it could have come from, or
raises NotModeled. Readers are loose on purpose: the importer re-emits every step it read and
keeps it only if the emitter gives back the node's parameters exactly. What goes into a node
of the AST is checked here first (a method, a unit, a name): the AST's dataclasses take what
they are given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.spans import Span
from toolkiln.backends.n8n.decompile import (
    NotDecompilable,
    Resolver,
    decompile,
    decompile_object,
    decompile_template,
)
from toolkiln.backends.n8n.emit import NODE_TYPES, stable_id
from toolkiln.backends.workflow_printer import is_plain_name
from toolkiln.check.workflow.graph import TRIGGER_NODE
from toolkiln.syntax.workflow_values import CRON, WEBHOOK_PATH

KIND_OF_TYPE = {(type_, version): kind for kind, (type_, version) in NODE_TYPES.items()}


class NotModeled(Exception):
    pass


def need(condition: bool) -> None:
    if not condition:
        raise NotModeled


def _count(value: Any) -> bool:
    """A positive whole number, as the text DSL writes an interval or a wait (not true, not 2.0)."""
    return type(value) is int and value > 0


def _text(value: Any) -> str:
    need(isinstance(value, str))
    return str(value)


def read_trigger(node: dict[str, Any]) -> w.Trigger:
    kind = KIND_OF_TYPE.get((node["type"], node["typeVersion"]))
    need(kind in TRIGGER_NODE and node["name"] == TRIGGER_NODE[kind])
    p = node.get("parameters", {})
    if kind == "webhook":
        need(
            p.get("responseMode") in ("responseNode", "onReceived")
            and p.get("httpMethod") in w.HTTP_METHODS
            and isinstance(p.get("path"), str)
            and WEBHOOK_PATH.fullmatch("/" + p["path"]) is not None
        )
        return w.WebhookTrigger(
            method=p.get("httpMethod"), path="/" + p["path"], respond_with_node=p["responseMode"] == "responseNode"
        )
    if kind == "manual":
        return w.ManualTrigger()
    rules = p.get("rule", {}).get("interval") if isinstance(p.get("rule"), dict) else None
    if not (isinstance(rules, list) and len(rules) == 1 and isinstance(rules[0], dict)):
        raise NotModeled  # `need` inline, so that rules is known to be a list below
    rule = rules[0]
    field = rule.get("field")
    # Only what the text DSL can say: the front end refuses other crons, times and intervals.
    if field == "cronExpression":
        cron = rule.get("expression")
        need(isinstance(cron, str) and CRON.fullmatch(cron) is not None)
        return w.ScheduleTrigger(rule="cron", cron=cron)
    if "triggerAtHour" in rule:
        hour, minute = rule.get("triggerAtHour"), rule.get("triggerAtMinute")
        need(type(hour) is int and type(minute) is int and 0 <= hour < 24 and 0 <= minute < 60)
        return w.ScheduleTrigger(rule="daily", at=f"{hour:02d}:{minute:02d}")
    need(field in w.SCHEDULE_UNITS)
    interval = rule.get(f"{field}Interval")
    need(_count(interval))
    return w.ScheduleTrigger(rule="every", unit=field, interval=interval)


def read_step(node: dict[str, Any], workflow_name: str, resolver: Callable[[str], Resolver], span: Span) -> w.Step:
    """`resolver(step name)` says what `$json` is for that step (the graph knows)."""
    kind = KIND_OF_TYPE.get((node["type"], node["typeVersion"]))
    name = node["name"]
    need(kind is not None and kind not in TRIGGER_NODE and is_plain_name(name))
    p = node.get("parameters", {})
    resolve = resolver(name)

    def expr(text: Any) -> n.Expr:
        need(isinstance(text, str))
        return decompile(text, resolve, span)

    def condition(filter_: Any, label: str) -> n.Expr:
        need(
            isinstance(filter_, dict)
            and isinstance(filter_.get("conditions"), list)
            and len(filter_["conditions"]) == 1
        )
        only = filter_["conditions"][0]
        need(isinstance(only, dict) and only.get("id") == stable_id(workflow_name, name, label))
        return expr(only.get("leftValue"))

    try:
        match kind:
            case "set":
                assignments = p.get("assignments", {}).get("assignments")
                need(isinstance(assignments, list))
                fields = []
                for entry in assignments:
                    need(
                        isinstance(entry, dict)
                        and isinstance(entry.get("name"), str)
                        and is_plain_name(entry["name"])
                        and entry.get("id") == stable_id(workflow_name, name, "field", entry["name"])
                    )
                    fields.append(w.SetField(name=entry["name"], value=expr(entry.get("value")), span=span))
                return w.SetStep(name=name, fields=tuple(fields), span=span)
            case "if":
                return w.IfStep(name=name, condition=condition(p.get("conditions"), "condition"), then=(), span=span)
            case "switch":
                rules = p.get("rules", {}).get("values")
                need(isinstance(rules, list) and bool(rules))
                cases = tuple(
                    w.SwitchCase(condition=condition(rule.get("conditions"), f"case{index}"), steps=(), span=span)
                    for index, rule in enumerate(rules)
                )
                fallback = p.get("options", {}).get("fallbackOutput") == "extra"
                return w.SwitchStep(name=name, cases=cases, otherwise=() if fallback else None, span=span)
            case "respond":
                return w.RespondStep(name=name, body=expr(p.get("responseBody")), span=span)
            case "http":
                return _http(node, name, p, resolve, span)
            case "merge":
                return w.MergeStep(name=name, mode="position" if p.get("mode") == "combine" else "append", span=span)
            case "wait":
                need(_count(p.get("amount")) and p.get("unit") in w.WAIT_UNITS)
                return w.WaitStep(name=name, amount=p["amount"], unit=p.get("unit"), span=span)
    except (AttributeError, KeyError, TypeError, NotDecompilable):  # parameters of another shape
        raise NotModeled from None
    raise NotModeled


def _http(node: dict[str, Any], name: str, p: dict[str, Any], resolve: Resolver, span: Span) -> w.HttpStep:
    need(isinstance(p.get("url"), str) and p.get("method") in w.HTTP_METHODS)
    pairs = {}
    for clause, key in (("query", "queryParameters"), ("headers", "headerParameters")):
        entries = p.get(key, {}).get("parameters", []) if key in p else []
        pairs[clause] = tuple(
            w.SetField(name=_text(entry["name"]), value=decompile(entry["value"], resolve, span), span=span)
            for entry in entries
        )
    body = None
    if "jsonBody" in p:
        need(isinstance(p["jsonBody"], str))
        body = tuple(
            w.SetField(name=key, value=value, span=span)
            for key, value in decompile_object(p["jsonBody"], resolve, span)
        )
    credentials = None
    if "credentials" in node:
        need(isinstance(node["credentials"], dict) and len(node["credentials"]) == 1)
        ((type_, value),) = node["credentials"].items()
        need(is_plain_name(type_) and isinstance(value, dict) and isinstance(value.get("name"), str))
        credentials = w.Credentials(type=type_, name=value["name"], span=span)
    return w.HttpStep(
        name=name,
        method=p["method"],  # (one of HTTP_METHODS: needed above)
        url=decompile_template(p["url"], resolve, span),
        query=pairs["query"],
        headers=pairs["headers"],
        body=body,
        credentials=credentials,
        span=span,
    )
