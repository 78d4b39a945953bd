"""Structural checks of the workflow graph: `after` clauses that point nowhere, outputs and
inputs a node does not have, merges without branches, steps no trigger reaches, loops n8n
would not run, and generic nodes the node catalog does not know."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolkiln.ast import workflow as w
from toolkiln.check.workflow.digraph import descendants, strongly_connected_components
from toolkiln.check.workflow.releases import removal
from toolkiln.diagnostics import codes

if TYPE_CHECKING:
    from toolkiln.check.workflow.catalog import CatalogLoader, NodeCatalog
    from toolkiln.check.workflow.validation import Validation

# The one node type n8n runs in a loop (Loop Over Items).
LOOP_NODE = "n8n-nodes-base.splitInBatches"


def check_wiring(result: Validation, *, structure: bool = True) -> None:
    """`structure=False` skips the reachability and loop checks."""
    graph = result.graph
    for dangling in graph.dangling:
        result.report(
            codes.INVALID_WIRING,
            f"`{dangling.step.name}` comes after {dangling.problem}",
            dangling.wire.span,
            hint=_names_hint(graph.order),
        )
    for step in graph.steps.values():
        for wire in step.after or ():
            _check_ends(result, step, wire)
        if isinstance(step, w.MergeStep):
            inputs = {data["input"] for _, _, data in graph.graph.in_edges(step.name)}
            if len(inputs) < 2:
                result.report(
                    codes.INVALID_WIRING,
                    f"merge `{step.name}` has {len(inputs)} input(s) to join",
                    step.span,
                    hint="put the merge right after an `if` or `switch`, or give it `after a -> 0, b -> 1`",
                )
    if structure:
        _unreachable(result)
        _cycles(result)


def _check_ends(result: Validation, step: w.Step, wire: w.Wire) -> None:
    graph = result.graph
    source = graph.steps.get(wire.source)
    if source is not None and not isinstance(source, w.NodeStep):
        outputs = len(w.branches(source)) or 1
        if wire.output >= outputs:
            result.report(
                codes.INVALID_WIRING,
                f"`{wire.source}` has no output {wire.output}",
                wire.span,
                hint=f"its outputs are 0 to {outputs - 1}" if outputs > 1 else "it has output 0 only",
            )
    elif wire.source == graph.trigger and not isinstance(graph.workflow.trigger, w.NodeTrigger) and wire.output:
        result.report(
            codes.INVALID_WIRING, f"the trigger has no output {wire.output}", wire.span, hint="it has output 0 only"
        )
    if wire.input and not isinstance(step, w.MergeStep | w.NodeStep):
        result.report(
            codes.INVALID_WIRING,
            f"`{step.name}` has no input {wire.input}",
            wire.span,
            hint="only a merge (or a generic node) has more than input 0",
        )


def _unreachable(result: Validation) -> None:
    graph = result.graph
    # Another trigger (a generic trigger node) starts its own part of the workflow.
    starts = [graph.trigger, *(name for name, step in graph.steps.items() if _starts_on_its_own(step, result.catalog))]
    reached = set(starts)
    for start in starts:
        reached |= descendants(graph.graph, start)
    for name in graph.order:
        step = graph.steps.get(name)
        if name in reached or step is None or _starts_on_its_own(step, result.catalog):
            continue
        result.report(
            codes.DISCONNECTED_STEP,
            f"no path from the trigger reaches `{name}`",
            step.span,
            hint="wire it with `after STEP`, or delete it",
        )


def _starts_on_its_own(step: w.Step, catalog: CatalogLoader) -> bool:
    """A generic node that needs no input: another trigger, or a sticky note."""
    if not isinstance(step, w.NodeStep):
        return False
    known = catalog()
    if not known.has(step.node.type, step.node.version):
        return True  # reported as unknown; no second message
    node_type = known.node_type(step.node.type)
    return node_type.trigger or node_type.version(step.node.version).inputs == ()


def _cycles(result: Validation) -> None:
    """Only `after` can close a loop (a reused step name is reported as a duplicate instead)."""
    graph = result.graph
    if all(step.after is None for step in graph.steps.values()):
        return
    for component in strongly_connected_components(graph.graph):
        looped = len(component) > 1 or any(graph.graph.has_edge(node, node) for node in component)
        if not looped:
            continue
        steps = [graph.steps[name] for name in graph.order if name in component and name in graph.steps]
        if not steps or any(isinstance(step, w.NodeStep) and step.node.type == LOOP_NODE for step in steps):
            continue
        first = steps[0]
        result.report(
            codes.WORKFLOW_CYCLE,
            "these steps feed each other in a loop: " + ", ".join(f"`{step.name}`" for step in steps),
            first.span,
            hint=f"break the loop, or run it through a Loop Over Items node ({LOOP_NODE})",
        )


def check_nodes(workflow: w.Workflow, result: Validation) -> None:
    """Generic nodes (and a generic trigger) against the node catalog."""
    specs = [step.node for step in w.walk_steps(workflow.steps) if isinstance(step, w.NodeStep)]
    if isinstance(workflow.trigger, w.NodeTrigger):
        specs.insert(0, workflow.trigger.node)
    if not specs:
        return
    catalog = result.catalog()
    kinds = {
        "unchecked": codes.UNCHECKED_NODE_TYPE,
        "type": codes.UNKNOWN_NODE_TYPE,
        "version": codes.UNKNOWN_NODE_TYPE,
        "parameter": codes.UNKNOWN_PARAMETER,
        "removed": codes.NODE_TYPE_REMOVED,
        "deprecated": codes.NODE_TYPE_DEPRECATED,
    }
    for spec in specs:
        for kind, message, hint, _ in node_findings(catalog, spec.type, spec.version, spec.parameters):
            result.report(kinds[kind], message, spec.span, hint=hint)


def node_findings(
    catalog: NodeCatalog, type_: str, version: int | float, parameters: Mapping[str, Any]
) -> Iterator[tuple[str, str, str | None, str | None]]:
    """What the catalog says against a node: (kind, message, hint, parameter) with kind
    "unchecked" (a package the catalog does not describe), "type", "version", "parameter", or
    "removed" / "deprecated" (a node type the catalog's n8n release refuses / a later one will)."""
    # n8n makes an AI tool `xTool` of each node `x` usable as a tool, at run time.
    tool_variant = type_.endswith("Tool") and type_[: -len("Tool")] in catalog
    if type_ not in catalog and (tool_variant or "." in type_ and type_.rsplit(".", 1)[0] != catalog.package):
        yield (
            "unchecked",
            f"the node catalog does not describe `{type_}`; its version and parameters are not checked",
            "make sure its package is installed on the n8n server",
            None,
        )
        return
    if type_ not in catalog:
        yield "type", f"n8n {catalog.n8n_version} has no node type `{type_}`", _type_hint(catalog, type_), None
        return
    deprecated = removal(type_, catalog.n8n_version)
    if deprecated is not None:
        refused, message, hint = deprecated
        yield ("removed" if refused else "deprecated"), message, hint, None
    node_type = catalog.node_type(type_)
    if not node_type.has_version(version):
        versions = ", ".join(str(v) for v in node_type.versions)
        newer = bool(node_type.versions) and version > max(node_type.versions)
        yield (
            "version",
            f"`{type_}` version {version} is newer than the node catalog of n8n {catalog.n8n_version}"
            if newer
            else f"`{type_}` has no version {version} in the node catalog of n8n {catalog.n8n_version}",
            f"versions in n8n {catalog.n8n_version}: {versions}",
            None,
        )
        return
    accepted = node_type.version(version).parameter_names
    for parameter in sorted(set(parameters) - accepted):
        yield (
            "parameter",
            f"`{type_}` version {version} has no parameter `{parameter}`",
            _close(parameter, sorted(accepted)),
            parameter,
        )


def _type_hint(catalog: NodeCatalog, name: str) -> str:
    short = name.rsplit(".", 1)[-1].lower()
    close = [known for known in catalog.names() if known.rsplit(".", 1)[-1].lower() == short]
    return f"did you mean `{close[0]}`?" if close else _close(name, list(catalog.names()))


def _close(name: str, options: list[str]) -> str:
    import difflib

    match = difflib.get_close_matches(name, options, n=1)
    return f"did you mean `{match[0]}`?" if match else "see docs/n8n-catalog.md for the known names"


def _names_hint(names: list[str]) -> str:
    return "steps here: " + ", ".join(f"`{name}`" for name in names[:12])
