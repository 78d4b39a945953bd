"""Fields that flow between the nodes of an n8n workflow (docs/workflow-import.md#data-flow).

Each node's output fields are inferred where n8n fixes them (a Set node's assignments, a
Webhook's request, nodes that pass their input on); every other node's output is unknown
(a Manual Trigger's too: a fixture that runs on n8n reads `$json.x` after one), and so is a
node with pinned data. Then each expression in the nodes' parameters is
checked against what reaches it: `$json.x` against the union of the node's inputs (W0733 when
every input is known and none has `x`), `$('Node').item.json.y` against that node's output,
and `$('Node')` / `$node["Node"]` against the graph: a node that does not exist (E0734), or one
no path leads from while `.item` asks n8n to follow the items back to it (E0735), fails when
n8n evaluates the expression. Unknown shapes stay silent: only what is certain is reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from toolkiln.check.workflow.digraph import MultiDigraph, ancestors
from toolkiln.diagnostics import codes

# The fields an item holds, each with the fields of the object it holds where they are known
# (None: unknown, or not an object: nothing is reported below it).
Fields = Mapping[str, "Fields | None"]
# What the node's output item holds; None: unknown (nothing is reported against it).
Shape = Fields | None

WEBHOOK_FIELDS: Fields = dict.fromkeys(("headers", "params", "query", "body", "webhookUrl", "executionMode"))
# Nodes whose output items are their input items (a subset, or routed to one output).
PASS_THROUGH = frozenset(
    f"n8n-nodes-base.{name}" for name in ("if", "filter", "switch", "noOp", "wait", "limit", "sort", "splitInBatches")
)
CODE_PARAMETERS = frozenset({"jsCode", "pythonCode", "functionCode", "functionItemCode", "code"})
STICKY_NOTE = "n8n-nodes-base.stickyNote"
TEMPLATE_PART = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
# An expression that allows for a missing field: a fallback, optional chaining, a type test.
GUARDED = re.compile(r"\|\||\?\?|\?\.|\btypeof\b|\bhasOwnProperty\b|\bisEmpty\(|\bin\s+\$json\b")
_NAME = r"""(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)")"""
# `$json.x` or `$json["x"]`, not a method such as `$json.isEmpty()`.
JSON_FIELD = re.compile(
    r"""(?<![\w.])\$json(?:\.([A-Za-z_$][\w$]*)(?![\w$]|\s*\()|\[\s*(?:'([^']*)'|"([^"]*)")\s*\])"""
)
NODE_REFERENCE = re.compile(
    rf"""\$\(\s*{_NAME}\s*\)(?:\s*\.\s*(item|first\(\)|last\(\)|all\(\)|itemMatching\(|pairedItem\(\)))?"""
    rf"""|\$node\[\s*{_NAME}\s*\]"""
)
FIELD_AFTER = re.compile(r"""\s*\.\s*json(?:\.([A-Za-z_$][\w$]*)(?![\w$]|\s*\()|\[\s*(?:'([^']*)'|"([^"]*)")\s*\])""")
# A field of the field before it: `.x` or `["x"]` (`$json.customer.id`).
NESTED_FIELD = re.compile(r"""\.([A-Za-z_$][\w$]*)(?![\w$]|\s*\()|\[\s*(?:'([^']*)'|"([^"]*)")\s*\]""")
# The accessors that follow an item back through the inputs (n8n-workflow's WorkflowDataProxy
# checks that the node is among the active node's main parents, else "No path back to
# referenced node").
PAIRED = ("item", "pairedItem()", "itemMatching(")

Finding = tuple[codes.Code, str, str, str | None]  # code, message, path, hint


def data_flow(
    data: dict[str, Any],
    names: dict[str, int],
    graph: MultiDigraph,
    declared: dict[str, Fields] | None = None,
    bodies: dict[str, Fields] | None = None,
) -> Iterator[Finding]:
    """The findings for a workflow whose node names are unique (`names`: name -> index) and
    whose main connections are `graph`'s edges of kind "main". `declared`: the output fields
    the DSL declares for some nodes (`returns {...}` of a Code or HTTP Request node);
    `bodies`: the fields of a webhook's posted JSON it declares (`body {...}`), by node name."""
    main = MultiDigraph()
    main.add_nodes_from(names)
    for source, target, edge in graph.edges():
        if edge.get("kind") == "main":
            main.add_edge(source, target)
    shapes = _Shapes(data, names, main, declared or {}, bodies or {})
    nodes = data["nodes"]
    for name, index in names.items():
        node = nodes[index]
        if node["type"] == STICKY_NOTE or not main.in_degree(name):
            continue  # triggers and AI sub-nodes (run inside their agent) read no main input
        for path, text in _expressions(node.get("parameters", {}), f"nodes[{index}].parameters"):
            yield from _check(text, path, name, shapes, names)


def _check(text: str, path: str, name: str, shapes: _Shapes, names: dict[str, int]) -> Iterator[Finding]:
    guarded = GUARDED.search(text) is not None  # `$json.a || $json.b`: a missing field is expected
    for match in JSON_FIELD.finditer(text):
        field = match.group(1) or match.group(2) or match.group(3)
        shape = None if guarded else shapes.input_of(name)
        if field and shape is not None:
            yield from _fields_read(text, match.end(), field, shape, f"the input of `{name}`", path)
    for match in NODE_REFERENCE.finditer(text):
        quoted = next(
            group for group in (match.group(1), match.group(2), match.group(4), match.group(5)) if group is not None
        )
        referenced = _unquoted(quoted)
        accessor = match.group(3)
        if referenced not in names:
            import difflib  # (only for a misspelt name: not loaded by every check)

            close = difflib.get_close_matches(referenced, list(names), n=1)
            hint = f"did you mean `{close[0]}`?" if close else "name a node of this workflow"
            yield codes.UNKNOWN_NODE_REFERENCE, f"`{name}` reads node `{referenced}`, which is no node", path, hint
            continue
        if accessor and accessor.startswith(PAIRED) and referenced not in shapes.upstream(name):
            message = (
                f"`{name}` reads `$('{referenced}').{accessor}`, but no connection leads from "
                f"`{referenced}` to `{name}`: n8n cannot find the item it came from"
            )
            hint = f"connect `{referenced}` before `{name}`, or read `$('{referenced}').first()`"
            yield codes.UNCONNECTED_NODE_REFERENCE, message, path, hint
            continue
        after = FIELD_AFTER.match(text, match.end())
        field = after and (after.group(1) or after.group(2) or after.group(3))
        shape = None if guarded else shapes.output_of(referenced)
        if after and field and shape is not None:
            yield from _fields_read(text, after.end(), field, shape, f"`{referenced}`'s output", path)


def _fields_read(text: str, end: int, field: str, shape: Fields, where: str, path: str) -> Iterator[Finding]:
    """The read of `field` of an item of `shape` and of the fields after it in `text` (from
    `end`: `.customer.id`), each against the fields known at its level."""
    read = [field]
    while True:
        if read[-1] not in shape:
            yield _unknown_field(read, shape, where, path)
            return
        inner = shape[read[-1]]
        following = NESTED_FIELD.match(text, end)
        if inner is None or following is None:
            return
        shape, end = inner, following.end()
        read.append(following.group(1) or following.group(2) or following.group(3) or "")


def _unknown_field(read: list[str], shape: Fields, where: str, path: str) -> Finding:
    import difflib  # (only for a misspelt name: not loaded by every check)

    fields = sorted(shape)
    close = difflib.get_close_matches(read[-1], fields, n=1)
    owner = ".".join(read[:-1])
    listed = ", ".join(f"`{f}`" for f in fields[:12]) + (", ..." if len(fields) > 12 else "")
    if owner:
        message = f"no field `{owner}.{read[-1]}` in {where}: " + (
            f"`{owner}` has {listed}" if fields else f"`{owner}` is declared empty"
        )
    else:
        message = f"no field `{read[-1]}` in {where}: " + (f"it has {listed}" if fields else "its items are empty")
    prefix = f"{owner}." if owner else ""
    hint = f"did you mean `{prefix}{close[0]}`?" if close else ("read one of its fields" if fields else None)
    return codes.UNKNOWN_INPUT_FIELD, message, path, hint


def _expressions(parameters: dict[str, Any], root: str) -> Iterator[tuple[str, str]]:
    """The parameter values that are n8n expressions (`=...`), outside code parameters."""
    stack: list[tuple[Any, str]] = [(parameters, root)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend(
                (child, f"{path}.{key}")
                for key, child in value.items()
                if key not in CODE_PARAMETERS and not key.startswith("cachedResult")
            )
        elif isinstance(value, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(value))
        elif isinstance(value, str) and value.startswith("=") and "$" in value:
            # Only what n8n evaluates: the `{{ }}` parts (the rest is text, such as a page
            # function's `$('title')` sent to a scraper).
            code = " ".join(match.group(1) for match in TEMPLATE_PART.finditer(value))
            if "$" in code:
                yield path, code


class _Shapes:
    """Each node's output shape, inferred once (a node on a loop is unknown)."""

    def __init__(
        self,
        data: dict[str, Any],
        names: dict[str, int],
        main: MultiDigraph,
        declared: dict[str, Fields],
        bodies: dict[str, Fields],
    ) -> None:
        self.nodes = data["nodes"]
        self.declared = declared
        self.bodies = bodies
        self.names = names
        self.main = main
        pinned = data.get("pinData")
        self.pinned = pinned if isinstance(pinned, dict) else {}
        self.outputs: dict[str, Shape] = {}
        self.busy: set[str] = set()
        self.ancestors: dict[str, set[str]] = {}

    def upstream(self, name: str) -> set[str]:
        """The nodes a path of main connections leads from to `name` (n8n's parent nodes)."""
        if name not in self.ancestors:
            self.ancestors[name] = ancestors(self.main, name)
        return self.ancestors[name]

    def input_of(self, name: str) -> Shape:
        """The union of what the node's main inputs give; unknown if any of them is."""
        fields: Fields = {}
        for source in self.main.predecessors(name):
            shape = self.output_of(source)
            if shape is None:
                return None
            fields = _union(fields, shape)
        return fields

    @staticmethod
    def _may_fail(node: dict[str, Any]) -> bool:
        """A node that passes failed items on: they carry an `error` field."""
        return node.get("onError", "stopWorkflow") != "stopWorkflow" or node.get("continueOnFail") is True

    def output_of(self, name: str) -> Shape:
        if name not in self.outputs:
            if name in self.busy:
                return None  # a loop: its own output reaches it
            self.busy.add(name)
            self.outputs[name] = self._infer(self.nodes[self.names[name]])
            self.busy.discard(name)
        return self.outputs[name]

    def _infer(self, node: dict[str, Any]) -> Shape:
        name = node["name"]
        if name in self.pinned:
            return None  # an editor run reads the pinned sample, a production run the real output
        type_ = node["type"]
        if self._may_fail(node):
            return None  # a failed item carries an `error` field (on the error output, or the regular one)
        if name in self.declared and node.get("disabled") is not True:
            return self.declared[name]
        if node.get("disabled") is True or type_ in PASS_THROUGH:
            return self.input_of(name) if self.main.in_degree(name) else None
        parameters = node.get("parameters")
        parameters = parameters if isinstance(parameters, dict) else {}
        if type_ == "n8n-nodes-base.webhook":
            return {**WEBHOOK_FIELDS, "body": self.bodies.get(name)}
        if type_ == "n8n-nodes-base.set":
            return self._set(name, node.get("typeVersion"), parameters)
        return None

    def _set(self, name: str, version: Any, parameters: dict[str, Any]) -> Shape:
        """A Set (Edit Fields) node: the fields it assigns, and its input's when it keeps them."""
        assigned = _set_fields(version, parameters)
        if assigned is None:
            return None
        if not _keeps_input(version, parameters):
            return assigned
        given = self.input_of(name) if self.main.in_degree(name) else None
        return None if given is None else {**given, **assigned}


def _set_fields(version: Any, parameters: dict[str, Any]) -> Shape:
    if not isinstance(version, int | float) or isinstance(version, bool):
        return None
    if version >= 3:
        if parameters.get("mode", "manual") != "manual":
            return None  # raw JSON output: its keys are not known here
        if version >= 3.3:
            entries = _dig(parameters, "assignments", "assignments")
        else:
            entries = _dig(parameters, "fields", "values")
    else:
        values = parameters.get("values")
        if not isinstance(values, dict):
            return {} if values is None else None
        entries = [entry for group in values.values() if isinstance(group, list) for entry in group]
    if not isinstance(entries, list):
        return {} if entries is None else None
    fields = set()
    for entry in entries:
        field = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(field, str) or not field or field.startswith("="):
            return None  # a name computed by an expression
        fields.add(field.split(".", 1)[0].split("[", 1)[0])  # dot notation sets the top field
    return dict.fromkeys(fields)  # what a Set field holds is not known here


def _keeps_input(version: int | float, parameters: dict[str, Any]) -> bool:
    """Whether the Set node passes its input's fields on too (the catalog's defaults: from 3.3
    `includeOtherFields` false, 3.0 to 3.2 `include` "all", before 3 `keepOnlySet` false);
    keeping only some of them counts as keeping all (a field too many is silence)."""
    if version >= 3.3:
        return parameters.get("includeOtherFields", False) is not False
    if version >= 3:
        return bool(parameters.get("include", "all") != "none")
    return parameters.get("keepOnlySet", False) is not True


def _union(a: Fields, b: Fields) -> Fields:
    """The fields of an item of either shape (a field's own fields: known only when both know them)."""
    both = {field: _inner_union(a[field], b[field]) for field in a.keys() & b.keys()}
    return {**a, **b, **both}


def _inner_union(a: Fields | None, b: Fields | None) -> Fields | None:
    return None if a is None or b is None else _union(a, b)


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return value if value is None else "not a list"
        value = value.get(key)
    return value


def _unquoted(quoted: str) -> str:
    """A JavaScript string literal's text: `\\uXXXX` escapes (surrogate pairs too) and `\\x`."""
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), quoted)
    text = re.sub(r"\\(.)", r"\1", text)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
