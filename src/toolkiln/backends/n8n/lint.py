"""Linting an n8n workflow as n8n stores it (`toolkiln check workflow.json`).

Reports, at JSON paths such as `nodes[3].parameters.url`: duplicate node names, node types,
versions and parameters the node catalog does not know, connections to or from missing nodes
and outputs, nodes no trigger reaches, loops, `{{ }}` expressions without the leading `=`, and
secrets written in clear text. Only what n8n itself would run differently, or what leaks, is
reported, so workflows n8n runs as intended lint clean.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Protocol

from toolkiln.backends.n8n.catalog import Catalog, load_catalog
from toolkiln.backends.n8n.dataflow import data_flow
from toolkiln.backends.n8n.document import N8nInput, at
from toolkiln.check.workflow.digraph import MultiDigraph, descendants, strongly_connected_components
from toolkiln.check.workflow.releases import (
    POSITION_REQUIRED_FROM,
    UNIQUE_NAMES_REQUIRED_FROM,
    position_required,
    release,
    shown,
)
from toolkiln.check.workflow.wiring import LOOP_NODE, node_findings
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic

STICKY_NOTE = "n8n-nodes-base.stickyNote"
# Parameters that hold program text, where `{{` means nothing to n8n.
CODE_PARAMETERS = frozenset({"jsCode", "pythonCode", "functionCode", "functionItemCode", "code"})
EXPRESSION = re.compile(r"\{\{\s*\$.*?\}\}", re.DOTALL)
SECRET_VALUE = re.compile(
    r"(?i:bearer)\s+[A-Za-z0-9._~+/-]{20,}=*|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}"
)
SECRET_KEY = re.compile(
    r"(?i)(x-)?(password|passwd|api[-_]?key|(access|auth|bearer)?[-_]?token|secret"
    r"|client[-_]?secret|authorization)"
)
# What a template's author leaves for the user to fill in, not a secret: an empty value after
# the scheme, a <bracketed>, [bracketed] or {braced} hint, a variable ($KEY, {{ key }}), words
# such as YOUR or HERE, a name in capitals (OPENAI_API_KEY, PWDVALUE) or a word, or a masked value.
AUTH_SCHEME = re.compile(r"(?i)^\s*(bearer|basic|token|apikey|api-key|bot)\b\s*")
PLACEHOLDER = re.compile(
    r"(?i)^[\s<\[{(\"'`$]|\{\{|\$\{|your|here|enter|example|placeholder|dummy|change[-_ ]?me|insert|replace"
    r"|undefined|null|censored|redacted|xxx|\*\*\*|token|api[-_ ]?key|secret|passw|\s"
)
# A name in capitals (OPENAI_API_KEY) or a plain lowercase word (`Apikey api`): no key is either.
NAME_LIKE = re.compile(r"[A-Z][A-Z_]*|[a-z]+")
# Parameters n8n reads without evaluating `{{ }}` as an n8n expression: the HTML node renders
# its template itself, and resource locators cache a URL for the editor only.
RESOLVED_BY_N8N = {"n8n-nodes-base.html": frozenset({"html"})}
_CATALOG_CODES = {
    "unchecked": codes.UNCHECKED_NODE_TYPE,
    "type": codes.NODE_NOT_IN_CATALOG,
    "version": codes.NODE_NOT_IN_CATALOG,
    "parameter": codes.NODE_PARAMETER_UNKNOWN,
    "removed": codes.NODE_TYPE_REMOVED,
    "deprecated": codes.NODE_TYPE_DEPRECATED,
}


class _Report(Protocol):
    """How the checks below report a finding (lint_n8n's `report`)."""

    def __call__(self, code: codes.Code, message: str, path: str, hint: str | None = None) -> None: ...


def lint_n8n(workflow: N8nInput, *, n8n_version: str | None = None) -> list[Diagnostic]:
    """Every finding for an n8n workflow that `read_n8n` accepted, located and sorted; nodes
    are checked against the catalog of `n8n_version` (default: the pinned release)."""
    data = workflow.data
    nodes: list[dict[str, Any]] = data["nodes"]
    catalog = load_catalog(n8n_version)
    found: list[Diagnostic] = []

    def report(code: codes.Code, message: str, path: str, hint: str | None = None) -> None:
        found.append(Diagnostic.of(code, message, at(path), hint))

    first: dict[str, int] = {}
    for index, node in enumerate(nodes):
        if node["name"] in first:
            _report_duplicate(catalog.n8n_version, node["name"], first[node["name"]], index, report)
        first.setdefault(node["name"], index)
        version = type_version(catalog, node)
        if "typeVersion" not in node:
            _report_no_version(catalog, node, index, version, report)
        for kind, message, hint, parameter in _findings(
            catalog, node["type"], version, tuple(node.get("parameters", {}))
        ):
            where = f"nodes[{index}].parameters.{parameter}" if parameter else f"nodes[{index}].type"
            report(_CATALOG_CODES[kind], message, where, hint)
        if not _has_position(node):
            _report_position(catalog.n8n_version, node["name"], index, report)
        if node["type"] != STICKY_NOTE:
            resolved = RESOLVED_BY_N8N.get(node["type"], frozenset())
            parameters = {k: v for k, v in node.get("parameters", {}).items() if k not in resolved}
            for path, code, message, hint in _values(parameters, f"nodes[{index}].parameters"):
                report(code, message, path, hint)
    graph = _main_graph(data, first, catalog, report)
    _reachability(graph, nodes, first, catalog, report)
    _loops(graph, nodes, first, report)
    if len(first) == len(nodes):  # with two nodes of one name, a name does not say which
        for code, message, path, hint in data_flow(data, first, graph):
            report(code, message, path, hint)
    return workflow.locate(found)


@lru_cache(maxsize=4096)
def _findings(
    catalog: Catalog, type_: str, version: int | float, parameters: tuple[str, ...]
) -> tuple[tuple[str, str, str | None, str | None], ...]:
    """The catalog's findings, once per kind of node (a large export repeats the same nodes)."""
    return tuple(node_findings(catalog, type_, version, dict.fromkeys(parameters)))


def type_version(catalog: Catalog, node: dict[str, Any]) -> int | float:
    """The node's typeVersion; for a node without one, the version n8n runs: its type's default
    (n8n-workflow's VersionedNodeType.getNodeType), 1 for a type the catalog does not know."""
    version: int | float | None = node.get("typeVersion")
    if version is not None:
        return version
    return catalog.node_type(node["type"]).default_version if node["type"] in catalog else 1


def _report_no_version(catalog: Catalog, node: dict[str, Any], index: int, runs: int | float, report: _Report) -> None:
    known = node["type"] in catalog
    what = f"version {runs} of `{node['type']}`, its default" if known else "the node type's default version"
    n8n = catalog.n8n_version
    if position_required(n8n):  # 2.x; 1.123.50 stored and activated such a webhook, but never registered it
        message = f"node `{node['name']}` has no typeVersion: n8n {n8n} stores it as it is and runs {what}"
    else:
        message = (
            f"node `{node['name']}` has no typeVersion: n8n {n8n} stores it as it is, but does not register "
            f"a webhook trigger without one when it activates the workflow; n8n 2.x runs {what}"
        )
    hint = f'write the version it runs, e.g. "typeVersion": {runs}' if known else "write the version it was made with"
    report(codes.TYPE_VERSION_MISSING, message, f"nodes[{index}]", hint)


def _report_duplicate(n8n_version: str, name: str, first: int, index: int, report: _Report) -> None:
    shared = f"nodes {first} and {index} are both called `{name}`"
    refusal = f"n8n {n8n_version} refuses this workflow (duplicate_node_name): {shared}"
    codes_ = (codes.DUPLICATE_NODE_NAME, codes.DUPLICATE_NODE_NAME_ACCEPTED)
    hint = "rename one of them, and its connections"
    _by_release(
        n8n_version, UNIQUE_NAMES_REQUIRED_FROM, codes_, (refusal, shared), f"nodes[{index}].name", hint, report
    )


def _by_release(
    n8n_version: str,
    since: tuple[int, ...],
    codes_: tuple[codes.Code, codes.Code],
    messages: tuple[str, str],
    where: str,
    hint: str,
    report: _Report,
) -> None:
    """An error (the first code, the refusal) for a release from `since`, which refuses the
    workflow; a warning naming `since` for one before it, which accepts it."""
    refusal, finding = messages
    if release(n8n_version) >= since:
        report(codes_[0], refusal, where, hint)
    else:
        report(
            codes_[1], f"{finding}: n8n {n8n_version} accepts it, n8n {shown(since)} and later refuse it", where, hint
        )


def _has_position(node: dict[str, Any]) -> bool:
    position = node.get("position")
    return (
        isinstance(position, list)
        and len(position) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in position)
    )


def _report_position(n8n_version: str, name: str, index: int, report: _Report) -> None:
    messages = (
        f"n8n {n8n_version} refuses node `{name}`: it has no position [x, y]",
        f"node `{name}` has no position [x, y]",
    )
    codes_ = (codes.POSITION_REQUIRED, codes.POSITION_MISSING)
    hint = 'give it one, e.g. "position": [0, 0]'
    _by_release(n8n_version, POSITION_REQUIRED_FROM, codes_, messages, f"nodes[{index}]", hint, report)


# --- parameter values -------------------------------------------------------------------------


def _values(parameters: dict[str, Any], root: str) -> Iterator[tuple[str, codes.Code, str, str]]:
    """Unwrapped expressions and literal secrets among the parameter values (walked without
    recursion: parameters can nest deeply)."""
    stack: list[tuple[Any, str, str]] = [(parameters, root, "")]
    while stack:
        value, path, key = stack.pop()
        if isinstance(value, dict):
            pair_name = value.get("name")
            for child_key, child in value.items():
                if child_key.startswith("cachedResult"):
                    continue  # the editor's cache of a resource locator: n8n never evaluates it
                # {"name": "Authorization", "value": "..."}: headers, query and body entries.
                named = pair_name if child_key == "value" and isinstance(pair_name, str) else child_key
                stack.append((child, f"{path}.{child_key}", named))
        elif isinstance(value, list):
            stack.extend((child, f"{path}[{i}]", key) for i, child in enumerate(value))
        elif isinstance(value, str) and not value.startswith("="):
            if key not in CODE_PARAMETERS and EXPRESSION.search(value):
                yield (
                    path,
                    codes.UNWRAPPED_EXPRESSION,
                    "this value holds `{{ }}` but does not start with `=`, so n8n sends it as plain text",
                    "start the value with `=` to make it an expression",
                )
            if _is_secret(key, value):
                yield (
                    path,
                    codes.LITERAL_SECRET,
                    f"`{key}` holds a secret in clear text",
                    "store it as an n8n credential and select that on the node",
                )


# --- connections ----------------------------------------------------------------------------


def _main_graph(data: dict[str, Any], names: dict[str, int], catalog: Catalog, report: _Report) -> MultiDigraph:
    """The main connections as a graph (node names), reporting those that dangle; connections of
    other types (an AI agent's tools and model) tie a sub-node to its parent: an edge
    parent -> sub-node, so that the sub-node counts as reached when its parent is."""
    graph = MultiDigraph()
    graph.add_nodes_from(names)
    nodes = data["nodes"]
    for source, kinds in (data.get("connections") or {}).items():
        where = f"connections.{source}"
        if source not in names:
            report(
                codes.DANGLING_CONNECTION,
                f"connections start at `{source}`, which is no node",
                where,
                "rename them to the node's current name, or delete them",
            )
            continue
        if not isinstance(kinds, dict):
            report(codes.DANGLING_CONNECTION, f"the connections of `{source}` are not an object", where)
            continue
        outputs_allowed = _width(catalog, nodes[names[source]], "outputs")
        for kind, outputs in kinds.items():
            for output, target, index, path in _targets(outputs, f"{where}.{kind}", report):
                if target not in names:
                    report(
                        codes.DANGLING_CONNECTION,
                        f"`{source}` connects to `{target}`, which is no node",
                        f"{path}.node",
                        "connect it to an existing node, or delete the connection",
                    )
                    continue
                if kind != "main":
                    graph.add_edge(target, source, kind=kind)
                    continue
                if outputs_allowed is not None and output >= outputs_allowed:
                    report(
                        codes.CONNECTION_PORT_MISSING,
                        f"`{source}` has no output {output}",
                        path,
                        f"its outputs are 0 to {outputs_allowed - 1}",
                    )
                inputs_allowed = _width(catalog, nodes[names[target]], "inputs")
                if inputs_allowed is not None and index >= inputs_allowed:
                    report(
                        codes.CONNECTION_PORT_MISSING,
                        f"`{target}` has no input {index}",
                        f"{path}.index",
                        f"its inputs are 0 to {inputs_allowed - 1}" if inputs_allowed else "it has no input",
                    )
                graph.add_edge(source, target, kind=kind)
    return graph


def _targets(outputs: Any, where: str, report: _Report) -> Iterator[tuple[int, str, int, str]]:
    if not isinstance(outputs, list):
        report(codes.DANGLING_CONNECTION, "connections of one type are a list of outputs", where)
        return
    for output, targets in enumerate(outputs):
        if targets is None:  # n8n may write null for an output without connections
            continue
        if not isinstance(targets, list):
            report(codes.DANGLING_CONNECTION, "an output's connections are not a list", f"{where}[{output}]")
            continue
        for position, target in enumerate(targets):
            path = f"{where}[{output}][{position}]"
            if not (
                isinstance(target, dict)
                and isinstance(target.get("node"), str)
                and isinstance(target.get("index", 0), int)
            ):
                report(
                    codes.DANGLING_CONNECTION,
                    "a connection names no node",
                    path,
                    'write {"node": "Name", "type": "main", "index": 0}',
                )
                continue
            yield output, target["node"], target.get("index", 0), path


def _width(catalog: Catalog, node: dict[str, Any], side: str) -> int | None:
    """How many main inputs or outputs the node has (None when the catalog cannot say)."""
    number = type_version(catalog, node)
    if not catalog.has(node["type"], number):
        return None
    version = catalog.node_type(node["type"]).version(number)
    ends = getattr(version, side)
    if ends is None:
        return None
    count = sum(1 for end in ends if end == "main")
    # A node set to continue on error gets an error output after its own.
    return count + 1 if side == "outputs" and node.get("onError") == "continueErrorOutput" else count


def _starts(node: dict[str, Any], graph: MultiDigraph, catalog: Catalog) -> bool:
    """Triggers, sticky notes, nodes without a main input and nodes the catalog does not know
    that nothing feeds (they may be triggers) start a run, or need none."""
    number = type_version(catalog, node)
    if catalog.has(node["type"], number):
        node_type = catalog.node_type(node["type"])
        return node_type.trigger or node_type.version(number).inputs == ()
    return "trigger" in node["type"].lower() or graph.in_degree(node["name"]) == 0


def _reachability(
    graph: MultiDigraph, nodes: list[dict[str, Any]], names: dict[str, int], catalog: Catalog, report: _Report
) -> None:
    starts = [name for name, index in names.items() if _starts(nodes[index], graph, catalog)]
    reached: set[str] = set(starts)
    for start in starts:
        reached |= descendants(graph, start)
    for name, index in names.items():
        if name not in reached:
            report(
                codes.UNREACHABLE_NODE,
                f"no trigger reaches `{name}`, so n8n never runs it",
                f"nodes[{index}]",
                "connect it to a node that runs, or delete it",
            )


def _loops(graph: MultiDigraph, nodes: list[dict[str, Any]], names: dict[str, int], report: _Report) -> None:
    main = MultiDigraph((a, b) for a, b, data in graph.edges() if data.get("kind") == "main")
    for component in strongly_connected_components(main):
        if len(component) == 1 and not any(main.has_edge(name, name) for name in component):
            continue
        if any(nodes[names[name]]["type"] == LOOP_NODE for name in component):
            continue
        members = sorted(component, key=names.__getitem__)
        shown = ", ".join(f"`{name}`" for name in members[:6]) + (", ..." if len(members) > 6 else "")
        report(
            codes.NODE_CYCLE,
            f"these nodes feed each other in a loop: {shown}",
            f"nodes[{names[members[0]]}]",
            f"make sure a node on the loop stops it, or loop with Loop Over Items ({LOOP_NODE})",
        )


def _is_secret(key: str, value: str) -> bool:
    """A secret-shaped value (a bearer token, an sk- key...), or any value of a secret-named
    key, unless it is a placeholder for the user to fill in."""
    found = SECRET_VALUE.search(value)
    if found is None and not SECRET_KEY.fullmatch(key):
        return False
    secret = AUTH_SCHEME.sub("", found.group(0) if found else value).strip()
    return bool(secret) and not (PLACEHOLDER.search(secret) or NAME_LIKE.fullmatch(secret) or len(set(secret)) <= 2)
