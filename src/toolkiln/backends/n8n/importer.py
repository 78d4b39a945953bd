"""n8n workflow JSON -> workflow DSL, losslessly (docs/workflow-import.md).

Every node becomes a step. A node of a type the DSL models (set, if, switch, http, ...) becomes
that step only if the emitter, given the step, writes the node's parameters back exactly;
anything else is a generic `node` step with its parameters and credentials as they are. Node
properties the emitter would write differently (id, position, notes, disabled, ...) go into the
step's `with {...}`, workflow properties into the header's, and connections into `after`
clauses where the step before would not give them. Connections `after` cannot say (an AI
agent's `ai_tool` and `ai_languageModel`, ones that name missing nodes) stay raw in the
header's `with {"connections": ...}`, which the emitter merges in.

The importer proves each reading: it emits the workflow it built and compares it with the input,
and keeps as generic whatever does not come back the same.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast import workflow as w
from toolkiln.ast.spans import Span
from toolkiln.backends.n8n.catalog import load_catalog
from toolkiln.backends.n8n.decompile import Resolver
from toolkiln.backends.n8n.document import at, read_n8n
from toolkiln.backends.n8n.emit import INDEX, OMIT, emit_workflow
from toolkiln.backends.n8n.lint import lint_n8n, type_version
from toolkiln.backends.n8n.modeled import NotModeled, need, read_step, read_trigger
from toolkiln.backends.workflow_printer import is_plain_name
from toolkiln.backends.workflow_result import WorkflowResult
from toolkiln.check.workflow.graph import WorkflowGraph, build_graph
from toolkiln.check.workflow.validate import validate
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError

DESCRIPTION = "Imported from n8n"
# The DSL name of a workflow without one (the editor copies workflows without a name); the
# header's `with {"toolkiln:omit": ["name"]}` keeps it out of the n8n JSON.
UNNAMED = "unnamed"
_MISSING = object()


@dataclasses.dataclass(frozen=True)
class ImportedWorkflow(WorkflowResult):
    """An imported n8n workflow: `to_text()` is its DSL, `to_n8n()` the workflow again, and
    `diagnostics` what the linter found (warnings and errors that do not stop the import).

    A workflow with two nodes of one name has no text (`to_text()` raises E0732): its `ast`
    reads the later ones as `Name (2)`, ..., and `to_n8n()` gives the file back unchanged."""

    text_refused: tuple[Diagnostic, ...] = ()

    def to_text(self) -> str:
        if self.text_refused:
            raise CompileError(list(self.text_refused))
        return super().to_text()


def import_n8n(data: Any, file: str | None = None, *, n8n_version: str | None = None) -> ImportedWorkflow:
    """Import an n8n workflow (a dict or JSON text); the diagnostics say what the n8n release
    `n8n_version` (default: the pinned one) does with it. Raises CompileError only for what is
    not an n8n workflow at all, or has no nodes."""
    source = read_n8n(data, file)  # checked before it is copied: no copy of data nested too deep
    if isinstance(data, dict):  # the AST keeps parts of it: the caller's dict is left alone
        source = dataclasses.replace(source, data=copy.deepcopy(source.data))
    diagnostics = lint_n8n(source, n8n_version=n8n_version)
    fatal: list[Diagnostic] = []
    if not source.data["nodes"]:
        fatal = source.locate(
            [
                Diagnostic.of(
                    codes.NOT_A_WORKFLOW,
                    "the workflow has no nodes to import",
                    at("nodes"),
                    "a workflow needs at least its trigger",
                )
            ]
        )
    reserved = _reserved_key(source.data)
    if reserved is not None and not fatal:  # its `with {...}` would say something else
        message = f"`{reserved[1]}` is toolkiln's own key, not an n8n property"
        fatal = source.locate([Diagnostic.of(codes.NOT_A_WORKFLOW, message, at(reserved[0]))])
    if fatal:
        raise CompileError(fatal)
    shared = [d for d in diagnostics if d.code in _SHARED_NAME_CODES]
    if shared:
        ast, _ = _Importer(_renamed(source.data), n8n_version).run()
        refused = tuple(dataclasses.replace(d, **_no_text(d)) for d in shared)
        return ImportedWorkflow(ast, copy.deepcopy(source.data), tuple(diagnostics), refused)
    ast, emitted = _Importer(source.data, n8n_version).run()
    return ImportedWorkflow(ast, emitted, tuple(diagnostics))


_SHARED_NAME_CODES = frozenset({codes.DUPLICATE_NODE_NAME.code, codes.DUPLICATE_NODE_NAME_ACCEPTED.code})


_SHARED_NAME = re.compile(r"nodes \d+ and \d+ are both called `.*`")


def _no_text(shared: Diagnostic) -> dict[str, Any]:
    """E0732 where the linter reported two nodes of one name (E0722 or W0731)."""
    found = _SHARED_NAME.search(shared.message)
    return {
        "code": codes.NO_TEXT_FORM.code,
        "severity": codes.NO_TEXT_FORM.severity,
        "message": f"no DSL text: {found.group(0) if found else shared.message}",
        "hint": "rename one of them (and its connections) and import again; the JSON is kept as it is",
    }


def _renamed(data: dict[str, Any]) -> dict[str, Any]:
    """The workflow with each later node of a shared name renamed `Name (2)`, `Name (3)`, ...
    (connections still name the first): what the AST of a workflow without text reads."""
    taken = {node["name"] for node in data["nodes"]}
    seen: set[str] = set()
    following: dict[str, int] = {}  # the next number to try per name: linear in the nodes
    nodes = []
    for node in data["nodes"]:
        name = node["name"]
        if name in seen:
            number = following.get(name, 2)
            while f"{name} ({number})" in taken:
                number += 1
            following[name] = number + 1
            node = {**node, "name": f"{name} ({number})"}
            taken.add(node["name"])
        seen.add(name)
        nodes.append(node)
    return {**data, "nodes": nodes}


class _Importer:
    def __init__(self, data: dict[str, Any], n8n_version: str | None) -> None:
        self.data = data
        self.catalog = load_catalog(n8n_version)
        self.nodes: dict[str, dict[str, Any]] = {node["name"]: node for node in data["nodes"]}
        name = data.get("name")
        self.name = name if isinstance(name, str) and name.strip() else UNNAMED
        trigger = _pick_trigger(data["nodes"])
        self.order = [trigger, *(name for name in self.nodes if name != trigger)]  # the steps keep their order
        # Steps are marked with their place in `order` (+1), so that a diagnostic leads to its node.
        self.spans = {name: Span(start=i + 1, end=i + 1) for i, name in enumerate(self.order)}
        self.inputs: dict[str, list[w.Wire]] = {name: [] for name in self.nodes}
        self._read_connections()

    def _read_connections(self) -> None:
        """Wire the `main` connections `after` can say; the header keeps the rest raw."""
        for source, kinds in (self.data.get("connections") or {}).items():
            outputs = kinds.get("main") if source in self.nodes and isinstance(kinds, dict) else None
            for output, targets in enumerate(outputs if isinstance(outputs, list) else ()):
                for target in targets if isinstance(targets, list) else ():
                    if _plain_target(target) and target["node"] in self.nodes and target["node"] != self.order[0]:
                        self.inputs[target["node"]].append(
                            w.Wire(source=source, output=output, input=target["index"], span=self.spans[source])
                        )

    # --- building and proving -----------------------------------------------------------------

    def run(self) -> tuple[w.Workflow, dict[str, Any]]:
        # A node without a typeVersion stays generic: `with {"toolkiln:omit": ["typeVersion"]}`.
        modeled = {name for name in self.order if "typeVersion" in self.nodes[name]}
        while True:
            built = self._attempt(modeled)
            if isinstance(built, set):
                if not modeled:  # generic nodes always validate; this would be a bug
                    raise AssertionError(f"generic nodes did not validate: {sorted(built)}")
                modeled -= built or modeled
                continue
            workflow, emitted = built
            if emitted == self.data or not modeled:
                return workflow, emitted
            modeled = set()  # not expected: the readings were proved one by one

    def _attempt(self, modeled: set[str]) -> set[str] | tuple[w.Workflow, dict[str, Any]]:
        """The workflow with `modeled` nodes read as DSL steps, or the nodes that failed."""
        failed: set[str] = set()
        placeholder = self._assemble(modeled, lambda name: lambda source, names: n.NullLit(), failed)
        if failed:
            return failed
        graph = build_graph(placeholder)
        workflow = self._assemble(modeled, lambda name: self._resolver(graph, name), failed)
        if failed:
            return failed
        emitted, bad = self._emit(workflow)
        if bad:
            return bad & modeled
        nodes = {node["name"]: node for node in emitted["nodes"]}
        failed = {name for name in modeled if not self._reproduced(nodes[name], self.nodes[name])}
        if failed:
            return failed
        workflow = self._finish(workflow, emitted)
        final, _ = self._emit(workflow)
        return workflow, final

    def _emit(self, workflow: w.Workflow) -> tuple[dict[str, Any], set[str]]:
        """The emitted workflow, or the nodes whose steps do not validate."""

        validation = validate(workflow, catalog=load_catalog, lint=True)
        errors = [d for d in validation.diagnostics if d.is_error]
        if errors:
            return {}, {self.order[d.span.start - 1] for d in errors if d.span is not None and d.span.start}
        emitted, problems = emit_workflow(validation)
        if emitted is None:
            return {}, {self.order[d.span.start - 1] for d in problems if d.span is not None and d.span.start}
        return emitted, set()

    def _assemble(self, modeled: set[str], resolver: Callable[[str], Resolver], failed: set[str]) -> w.Workflow:
        name = self.name
        trigger_name = self.order[0]
        trigger = None
        if trigger_name in modeled:
            try:
                trigger = dataclasses.replace(read_trigger(self.nodes[trigger_name]), span=self.spans[trigger_name])
            except (NotModeled, AttributeError, TypeError, ValueError):
                failed.add(trigger_name)
        if trigger is None:
            trigger = w.NodeTrigger(node=self._spec(trigger_name), span=self.spans[trigger_name])
        steps = []
        for step_name in self.order[1:]:
            step = None
            if step_name in modeled:
                try:
                    step = read_step(self.nodes[step_name], name, resolver, self.spans[step_name])
                except NotModeled:
                    failed.add(step_name)
            if step is None:
                step = w.NodeStep(name=step_name, node=self._spec(step_name), span=self.spans[step_name])
            steps.append(step)
        workflow = w.Workflow(name=name, trigger=trigger, steps=tuple(steps), description=DESCRIPTION)
        return workflow if failed else self._wired(workflow)  # a failed attempt is thrown away

    def _wired(self, workflow: w.Workflow) -> w.Workflow:
        """`after` on each step whose inputs the step before it would not give."""
        implicit = build_graph(workflow).graph
        steps = []
        for step in workflow.steps:
            wires = self.inputs[step.name]
            given = sorted((a, d["output"], d["input"]) for a, _, d in implicit.in_edges(step.name))
            if given != sorted((wire.source, wire.output, wire.input) for wire in wires):
                step = dataclasses.replace(step, after=tuple(wires))
            steps.append(step)
        return dataclasses.replace(workflow, steps=tuple(steps))

    def _resolver(self, graph: WorkflowGraph, step: str) -> Resolver:
        def resolve(source: str | None, names: list[str]) -> n.Expr:
            span = self.spans[step]
            origin = graph.input_source(step) if source is None else source
            need(origin is not None)
            if origin == graph.trigger:
                need(bool(names) and names[0] in graph.roots)
                expr: n.Expr = n.Name(name=names[0], span=span)
                names = names[1:]
            else:
                need(origin in graph.steps and is_plain_name(origin))
                assert origin is not None  # (need() said so)
                expr = n.Name(name=origin, span=span)
            for field in names:
                expr = n.Field_(target=expr, name=field, span=span)
            return expr

        return resolve

    def _spec(self, name: str) -> w.NodeSpec:
        node = self.nodes[name]
        credentials = node.get("credentials")
        named = None
        if isinstance(credentials, dict) and len(credentials) == 1:
            ((type_, value),) = credentials.items()
            if (
                is_plain_name(type_)
                and isinstance(value, dict)
                and set(value) == {"name"}
                and isinstance(value["name"], str)
            ):
                named = w.Credentials(type=type_, name=value["name"], span=self.spans[name])
        return w.NodeSpec(
            name=name,
            type=node["type"],
            version=type_version(self.catalog, node),  # for a node without one: what n8n runs
            parameters=node.get("parameters", {}),
            credentials=named,
            span=self.spans[name],
        )

    @staticmethod
    def _reproduced(emitted: dict[str, Any], original: dict[str, Any]) -> bool:
        """Whether a modeled node came back as it was (`with {...}` sets or omits the rest)."""
        return (emitted["type"], emitted["typeVersion"], emitted["parameters"]) == (
            original["type"],
            original["typeVersion"],
            original.get("parameters", _MISSING),
        )

    def _finish(self, workflow: w.Workflow, emitted: dict[str, Any]) -> w.Workflow:
        """Add `with {...}`: the properties the emitter writes differently or not at all, those it
        writes that the export lacks (`toolkiln:omit`), the trigger's place among the nodes
        (`toolkiln:index`) and the raw connections."""
        nodes = {node["name"]: node for node in emitted["nodes"]}
        trigger = dataclasses.replace(workflow.trigger, extra=self._extra(self.order[0], nodes))
        index = next(i for i, node in enumerate(self.data["nodes"]) if node["name"] == self.order[0])
        if index:
            trigger = dataclasses.replace(trigger, extra={**trigger.extra, INDEX: index})
        steps = tuple(dataclasses.replace(step, extra=self._extra(step.name, nodes)) for step in workflow.steps)
        header = self._header(emitted)
        return dataclasses.replace(
            workflow, trigger=trigger, steps=steps, extra=header, description=None if header else DESCRIPTION
        )

    def _extra(self, name: str, nodes: dict[str, Any]) -> dict[str, Any]:
        return _difference(nodes[name], self.nodes[name])

    def _header(self, emitted: dict[str, Any]) -> dict[str, Any]:
        generated = {key: value for key, value in emitted.items() if key != "nodes"}
        wanted = {key: value for key, value in self.data.items() if key != "nodes"}
        header = _difference(generated, wanted)  # a name the DSL cannot say, too
        if isinstance(header.get("settings"), dict) and isinstance(generated["settings"], dict):
            header["settings"] = _difference(generated["settings"], header["settings"])
        if "connections" in header:
            header["connections"] = self._raw_connections(generated["connections"])
        return header

    def _raw_connections(self, generated: dict[str, Any]) -> dict[str, Any]:
        """What the header's `connections` must say, per node and connection type, so that the
        emitter, merging it into what the `after` clauses give, writes the export's."""
        raw: dict[str, Any] = {}
        for source, kinds in self.data["connections"].items():
            if generated.get(source, _MISSING) == kinds:
                continue
            if isinstance(kinds, dict):
                given = generated.get(source, {})
                raw[source] = {kind: value for kind, value in kinds.items() if given.get(kind, _MISSING) != value}
            else:
                raw[source] = kinds
        return copy.deepcopy(raw)


def _difference(generated: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """The `with {...}` that makes the emitter write `wanted` where it would write `generated`:
    the properties it writes differently, and `toolkiln:omit` for those `wanted` lacks."""
    extra = {key: copy.deepcopy(value) for key, value in wanted.items() if generated.get(key, _MISSING) != value}
    omitted = [key for key in generated if key not in wanted]
    if omitted:
        extra[OMIT] = omitted
    return extra


def _reserved_key(data: dict[str, Any]) -> tuple[str, str] | None:
    """Where the export holds a key of toolkiln's own (`toolkiln:omit`, ...), and which."""
    settings = data.get("settings")
    places = [("", data), ("settings.", settings if isinstance(settings, dict) else {})]
    places += [(f"nodes[{index}].", node) for index, node in enumerate(data["nodes"])]
    for prefix, properties in places:
        for key in (OMIT, INDEX):
            if key in properties:
                return prefix + key, key
    return None


def _pick_trigger(nodes: list[dict[str, Any]]) -> str:
    """The DSL's trigger: the first trigger node, else the first node that is no sticky note."""
    catalog = load_catalog()

    def is_trigger(node: dict[str, Any]) -> bool:
        if node["type"] in catalog:
            return catalog.node_type(node["type"]).trigger
        return "trigger" in node["type"].lower()

    for test in (is_trigger, lambda node: node["type"] != "n8n-nodes-base.stickyNote", lambda node: True):
        for node in nodes:
            if test(node):
                name: str = node["name"]  # read_n8n refuses a node without a string name
                return name
    raise AssertionError("no nodes")  # import_n8n refuses a workflow without nodes


def _plain_target(target: Any) -> bool:
    return (
        isinstance(target, dict)
        and set(target) == {"node", "type", "index"}
        and target["type"] == "main"
        and isinstance(target["node"], str)
        and isinstance(target["index"], int)
        and not isinstance(target["index"], bool)
        and target["index"] >= 0
    )
