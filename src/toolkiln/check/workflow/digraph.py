"""A directed graph of named nodes with data on each edge, and the few questions the workflow
passes ask of one: what a path reaches, loops, dominators and the layers of a layout.

The workflow checker, the n8n linter, the data-flow check and the emitter's layout used
networkx for this: importing it was half the start-up of `toolkiln check x.wf`, for graphs of
tens of nodes. This keeps networkx's iteration orders (nodes in the order they were added, an
edge's neighbours in the order they were first wired, several edges between two nodes in the
order they were added), so diagnostics and layouts come out as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import reduce
from graphlib import TopologicalSorter
from typing import Any

Edge = tuple[str, str, dict[str, Any]]  # source, target, the edge's data


class MultiDigraph:
    """Nodes in the order they were added; any number of edges between two nodes."""

    def __init__(self, edges: Iterable[tuple[str, str]] = ()) -> None:
        self._succ: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self._pred: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for source, target in edges:
            self.add_edge(source, target)

    def add_node(self, node: str) -> None:
        if node not in self._succ:
            self._succ[node] = {}
            self._pred[node] = {}

    def add_nodes_from(self, nodes: Iterable[str]) -> None:
        for node in nodes:
            self.add_node(node)

    def add_edge(self, source: str, target: str, **data: Any) -> None:
        self.add_node(source)
        self.add_node(target)
        self._succ[source].setdefault(target, []).append(data)
        self._pred[target].setdefault(source, []).append(data)

    def __contains__(self, node: object) -> bool:
        return node in self._succ

    def __iter__(self) -> Iterator[str]:
        return iter(self._succ)

    def successors(self, node: str) -> Iterator[str]:
        return iter(self._succ[node])

    def predecessors(self, node: str) -> Iterator[str]:
        return iter(self._pred[node])

    def has_edge(self, source: str, target: str) -> bool:
        return target in self._succ.get(source, {})

    def in_degree(self, node: str) -> int:
        """How many edges end at `node`."""
        return sum(len(edges) for edges in self._pred[node].values())

    def out_edges(self, node: str) -> Iterator[Edge]:
        for target, edges in self._succ[node].items():
            for data in edges:
                yield node, target, data

    def in_edges(self, node: str) -> Iterator[Edge]:
        for source, edges in self._pred[node].items():
            for data in edges:
                yield source, node, data

    def edges(self) -> Iterator[Edge]:
        for node in self._succ:
            yield from self.out_edges(node)


def descendants(graph: MultiDigraph, start: str) -> set[str]:
    """The nodes a path from `start` reaches (not `start` itself, even on a loop)."""
    return _reached(graph.successors, start)


def ancestors(graph: MultiDigraph, end: str) -> set[str]:
    """The nodes from which a path reaches `end` (not `end` itself, even on a loop)."""
    return _reached(graph.predecessors, end)


def _reached(neighbours: Any, start: str) -> set[str]:
    seen = {start}
    stack = [start]
    while stack:
        for node in neighbours(stack.pop()):
            if node not in seen:
                seen.add(node)
                stack.append(node)
    seen.discard(start)
    return seen


def strongly_connected_components(graph: MultiDigraph) -> list[set[str]]:
    """The loops of the graph, each node in one component (a node on no loop is one alone), in
    the order Tarjan's algorithm completes them. Iterative: a chain of thousands of nodes
    does not reach Python's recursion limit."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, graph.successors(root))]
        while work:
            node, pending = work[-1]
            child = next((c for c in pending if c not in index or c in on_stack), None)
            if child is not None and child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, graph.successors(child)))
                continue
            if child is not None:
                low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                components.append(_pop_component(stack, on_stack, node))
    return components


def _pop_component(stack: list[str], on_stack: set[str], root: str) -> set[str]:
    component = set()
    while True:
        node = stack.pop()
        on_stack.discard(node)
        component.add(node)
        if node == root:
            return component


def immediate_dominators(graph: MultiDigraph, start: str) -> dict[str, str]:
    """Each node a path from `start` reaches, with the last node other than itself that every
    such path passes through (`start` itself is left out). Cooper, Harvey and Kennedy's
    iterative algorithm, as networkx computes it."""
    order = _postorder(graph, start)
    number = {node: i for i, node in enumerate(order)}
    idom: dict[str, str] = {start: start}

    def intersect(a: str, b: str) -> str:
        while a != b:
            while number[a] < number[b]:
                a = idom[a]
            while number[a] > number[b]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for node in reversed(order[:-1]):
            new = reduce(intersect, (p for p in graph.predecessors(node) if p in idom))
            if idom.get(node) != new:
                idom[node] = new
                changed = True
    del idom[start]
    return idom


def _postorder(graph: MultiDigraph, start: str) -> list[str]:
    """The nodes `start` reaches, each after every node a depth-first walk reaches from it."""
    order: list[str] = []
    seen = {start}
    work = [(start, graph.successors(start))]
    while work:
        node, pending = work[-1]
        child = next((c for c in pending if c not in seen), None)
        if child is None:
            work.pop()
            order.append(node)
        else:
            seen.add(child)
            work.append((child, graph.successors(child)))
    return order


def layers(graph: MultiDigraph) -> dict[str, int]:
    """Each node's layer: 0 for what nothing feeds, then one more than the deepest node that
    feeds it; the nodes of a loop share a layer (networkx's topological generations of the
    graph's condensation)."""
    components = strongly_connected_components(graph)
    component_of = {node: i for i, component in enumerate(components) for node in component}
    sorter: TopologicalSorter[int] = TopologicalSorter(dict.fromkeys(range(len(components)), ()))
    for source, target, _ in graph.edges():
        if component_of[source] != component_of[target]:
            sorter.add(component_of[target], component_of[source])
    sorter.prepare()
    layer_of: dict[int, int] = {}
    layer = 0
    while sorter.is_active():
        ready = sorter.get_ready()
        layer_of.update(dict.fromkeys(ready, layer))
        sorter.done(*ready)
        layer += 1
    return {node: layer_of[component_of[node]] for node in graph}
