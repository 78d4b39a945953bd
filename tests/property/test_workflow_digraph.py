"""The workflow graph (check/workflow/digraph.py) answers as networkx did, on generated graphs:
edges in the same order, the same reached sets, loops in the same order, the same dominators
and the same layout layers. The checker, linter, data-flow check and layout moved off networkx
to keep it out of `toolkiln check x.wf`; their diagnostics and positions depend on these."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.check.workflow.digraph import (
    MultiDigraph,
    ancestors,
    descendants,
    immediate_dominators,
    layers,
    strongly_connected_components,
)

NAMES = [f"n{i}" for i in range(9)]
# Several edges between two nodes, self-loops and nodes without edges all occur.
GRAPHS = st.tuples(
    st.lists(st.sampled_from(NAMES), max_size=9, unique=True),
    st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.integers(0, 2)), max_size=24),
)


def both(nodes: list[str], edges: list[tuple[str, str, int]]) -> tuple[MultiDigraph, nx.MultiDiGraph]:
    ours, theirs = MultiDigraph(), nx.MultiDiGraph()
    for node in nodes:
        ours.add_node(node)
        theirs.add_node(node)
    for source, target, output in edges:
        ours.add_edge(source, target, output=output)
        theirs.add_edge(source, target, output=output)
    return ours, theirs


@settings(max_examples=examples(300), deadline=None)
@given(GRAPHS)
def test_nodes_edges_and_neighbours_come_in_networkx_order(graph: tuple[list[str], list[tuple[str, str, int]]]) -> None:
    ours, theirs = both(*graph)
    assert list(ours) == list(theirs)
    assert list(ours.edges()) == list(theirs.edges(data=True))
    for node in theirs:
        assert list(ours.out_edges(node)) == list(theirs.out_edges(node, data=True))
        assert list(ours.in_edges(node)) == list(theirs.in_edges(node, data=True))
        assert list(ours.predecessors(node)) == list(theirs.predecessors(node))
        assert list(ours.successors(node)) == list(theirs.successors(node))
        assert ours.in_degree(node) == theirs.in_degree(node)
        assert [ours.has_edge(node, other) for other in NAMES] == [theirs.has_edge(node, other) for other in NAMES]


@settings(max_examples=examples(300), deadline=None)
@given(GRAPHS)
def test_reach_loops_and_dominators_are_networkx_answers(graph: tuple[list[str], list[tuple[str, str, int]]]) -> None:
    ours, theirs = both(*graph)
    assert strongly_connected_components(ours) == list(nx.strongly_connected_components(theirs))
    for node in theirs:
        assert descendants(ours, node) == nx.descendants(theirs, node)
        assert ancestors(ours, node) == nx.ancestors(theirs, node)
        assert immediate_dominators(ours, node) == nx.immediate_dominators(theirs, node)


@settings(max_examples=examples(300), deadline=None)
@given(GRAPHS)
def test_layers_are_the_generations_of_the_condensation(graph: tuple[list[str], list[tuple[str, str, int]]]) -> None:
    ours, theirs = both(*graph)
    condensed = nx.condensation(theirs)
    expected = {
        member: layer
        for layer, components in enumerate(nx.topological_generations(condensed))
        for component in components
        for member in condensed.nodes[component]["members"]
    }
    assert layers(ours) == expected


def test_a_long_chain_needs_no_recursion() -> None:
    chain = MultiDigraph((f"n{i}", f"n{i + 1}") for i in range(5000))
    chain.add_edge("n5000", "n0")
    assert strongly_connected_components(chain) == [{f"n{i}" for i in range(5001)}]
    assert len(descendants(chain, "n0")) == 5000
