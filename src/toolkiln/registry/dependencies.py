"""The dependency graph of registered tools (an edge from each caller to each tool it calls),
with networkx: refusing cycles at save time, and finding the callers a change affects.

Imported only by the operations that change tools, so that loading a registry does not load
networkx.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import networkx as nx


def call_graph(calls: Mapping[str, Iterable[str]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(calls)
    graph.add_edges_from((caller, callee) for caller, callees in calls.items() for callee in callees)
    return graph


def cycle_through(calls: Mapping[str, Iterable[str]], name: str, new_calls: Iterable[str]) -> list[str] | None:
    """The cycle `name -> ... -> name` that giving `name` the callees `new_calls` would make
    (the shortest, as a list of names that starts and ends with `name`), or None."""
    graph = call_graph({**calls, name: new_calls})
    for callee in sorted(new_calls):
        if callee == name:
            return [name, name]
        if callee in graph and nx.has_path(graph, callee, name):
            return [name, *nx.shortest_path(graph, callee, name)]
    return None


def callers_in_order(calls: Mapping[str, Iterable[str]], name: str) -> list[str]:
    """Every tool that calls `name`, directly or through others, callees before their callers."""
    graph = call_graph(calls)
    if name not in graph:
        return []
    affected = graph.subgraph(nx.ancestors(graph, name))
    try:
        return list(reversed(list(nx.topological_sort(affected))))
    except nx.NetworkXUnfeasible:  # a cycle made by hand-edited files: any order will do
        return sorted(affected)
