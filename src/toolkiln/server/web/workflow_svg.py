"""A workflow tool's graph as SVG, drawn on the server from the compiled n8n workflow.

The compiler already lays the nodes out in layers (toolkiln.backends.n8n.layout: a column per
layer of the graph, branches spread above and below); this draws that layout as boxes and
arrows. Each box says what it is in words (trigger, branch, step) and by its shape, so colour
is never the only signal; each branch output is labelled (true/false, case 1, ...).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

BOX_WIDTH, BOX_HEIGHT = 170, 52
COLUMN, ROW = 230, 80  # pixels per layer, per step of the layout's vertical offset
MARGIN = 24
TRIGGER_TYPES = ("webhook", "manualTrigger", "scheduleTrigger")
BRANCH_TYPES = ("if", "switch")


def _role(node_type: str) -> str:
    short = node_type.rsplit(".", 1)[-1]
    if short in TRIGGER_TYPES or short.endswith("Trigger"):
        return "trigger"
    return "branch" if short in BRANCH_TYPES else "step"


def _output_label(node_type: str, index: int, outputs: int) -> str:
    if outputs < 2:
        return ""
    short = node_type.rsplit(".", 1)[-1]
    if short == "if":
        return "true" if index == 0 else "false"
    return f"case {index + 1}" if short == "switch" else f"out {index + 1}"


def workflow_svg(n8n: dict[str, Any], title: str) -> Markup:
    """The SVG of an n8n workflow's nodes and connections (every text escaped)."""
    nodes = n8n.get("nodes", [])
    if not nodes:
        return Markup("")
    xs = [node["position"][0] for node in nodes]
    ys = [node["position"][1] for node in nodes]
    x_step = min((b - a for a, b in zip(sorted(set(xs)), sorted(set(xs))[1:])), default=1) or 1
    y_step = min((b - a for a, b in zip(sorted(set(ys)), sorted(set(ys))[1:])), default=1) or 1
    place = {
        node["name"]: (
            MARGIN + (node["position"][0] - min(xs)) / x_step * COLUMN,
            MARGIN + (node["position"][1] - min(ys)) / y_step * ROW,
        )
        for node in nodes
    }
    types = {node["name"]: node["type"] for node in nodes}
    width = max(x for x, _ in place.values()) + BOX_WIDTH + MARGIN
    height = max(y for _, y in place.values()) + BOX_HEIGHT + MARGIN
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="workflow-graph" role="img" aria-labelledby="graph-title" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}">',
        f'<title id="graph-title">{escape(title)}</title>',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head"/></marker></defs>',
    ]
    for source, by_kind in n8n.get("connections", {}).items():
        outputs = by_kind.get("main", [])
        for index, targets in enumerate(outputs):
            label = _output_label(types.get(source, ""), index, len(outputs))
            for target in targets:
                parts.append(_edge(place[source], place[target["node"]], label))
    for node in nodes:
        parts.append(_box(node["name"], node["type"], place[node["name"]]))
    parts.append("</svg>")
    return Markup("".join(parts))


def _edge(start: tuple[float, float], end: tuple[float, float], label: str) -> str:
    x1, y1 = start[0] + BOX_WIDTH, start[1] + BOX_HEIGHT / 2
    x2, y2 = end[0], end[1] + BOX_HEIGHT / 2
    middle = (x1 + x2) / 2
    curve = f"M {x1:.0f} {y1:.0f} C {middle:.0f} {y1:.0f} {middle:.0f} {y2:.0f} {x2:.0f} {y2:.0f}"
    path = f'<path class="edge" d="{curve}" marker-end="url(#arrow)"/>'
    if not label:
        return path
    lx, ly = x1 + 8, (y1 + (y2 - y1) * 0.25) - 4
    return path + f'<text class="edge-label" x="{lx:.0f}" y="{ly:.0f}">{escape(label)}</text>'


def _box(name: str, node_type: str, at: tuple[float, float]) -> str:
    role = _role(node_type)
    x, y = at
    short = node_type.rsplit(".", 1)[-1]
    corner = 18 if role == "trigger" else (2 if role == "branch" else 8)
    shown = name if len(name) <= 22 else name[:21] + "\u2026"
    return (
        f'<g class="node node-{role}"><title>{escape(name)} ({escape(role)}: {escape(short)})</title>'
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{BOX_WIDTH}" height="{BOX_HEIGHT}" rx="{corner}"/>'
        f'<text class="node-name" x="{x + 10:.0f}" y="{y + 21:.0f}">{escape(shown)}</text>'
        f'<text class="node-kind" x="{x + 10:.0f}" y="{y + 40:.0f}">{escape(role)} \u00b7 {escape(short)}</text></g>'
    )
