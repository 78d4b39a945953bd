"""Node positions for the n8n editor: a layered layout of the workflow graph.

Layer = topological generation (the trigger is layer 0); x grows by layer, and the nodes of
one layer are stacked around y = 0 in source order. A loop (through Loop Over Items) is laid
out as one layer. Deterministic, so golden files are stable.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkiln.check.workflow.digraph import MultiDigraph, layers

X_STEP = 220
Y_STEP = 200


def layered_positions(graph: MultiDigraph, order: Sequence[str]) -> dict[str, list[int]]:
    rank = {name: i for i, name in enumerate(order)}
    positions: dict[str, list[int]] = {}
    layer_of = layers(graph)
    by_layer: dict[int, list[str]] = {}
    for name in graph:
        by_layer.setdefault(layer_of[name], []).append(name)
    for layer, nodes in sorted(by_layer.items()):
        ordered = sorted(nodes, key=rank.__getitem__)
        for i, name in enumerate(ordered):
            offset = i * 2 - (len(ordered) - 1)  # ..., -2, 0, 2, ... or -1, 1, ...
            positions[name] = [layer * X_STEP, offset * Y_STEP // 2]
    return positions
