"""The workflow as a graph of n8n nodes (networkx), and the questions passes ask of it.

Nodes are named like the n8n nodes they become: the trigger (`Webhook`, `Manual Trigger`) and
one node per step. An edge `a -> b` with `output=i` means output `i` of `a` feeds `b` (an IF
has output 0 for true and 1 for false). A MultiDiGraph, because an `if` whose two branches
are both empty sends both outputs to the same next step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from toolkiln.ast import workflow as w

TRIGGER_NODE = {"webhook": "Webhook", "manual": "Manual Trigger"}
# The names through which expressions read the trigger's output item.
TRIGGER_ROOTS = {"webhook": ("body", "query", "headers"), "manual": ()}


@dataclass
class WorkflowGraph:
    workflow: w.Workflow
    graph: nx.MultiDiGraph
    trigger: str
    steps: dict[str, w.Step]            # the first step of each name
    order: list[str]                    # trigger first, then steps in source order
    _idom: dict[str, str] | None = field(default=None, repr=False)

    @property
    def roots(self) -> tuple[str, ...]:
        return TRIGGER_ROOTS[self.workflow.trigger.kind]

    def dominates(self, a: str, b: str) -> bool:
        """Whether every path from the trigger to `b` passes through `a` (a != b)."""
        if self._idom is None:
            self._idom = nx.immediate_dominators(self.graph, self.trigger)
        node = b
        while node != self.trigger and node in self._idom:
            node = self._idom[node]
            if node == a:
                return True
        return False

    def produces_fields(self, name: str) -> bool:
        return name == self.trigger or isinstance(self.steps.get(name), w.SetStep)

    def input_source(self, name: str) -> str | None:
        """The node whose output item is `$json` in node `name`, if there is a single one: IF
        and respond nodes pass their input through. None where branches join."""
        parents = set(self.graph.predecessors(name))
        if len(parents) != 1:
            return None
        (parent,) = parents
        return self.output_source(parent)

    def output_source(self, name: str) -> str | None:
        if self.produces_fields(name):
            return name
        return self.input_source(name)

    def outputs(self, name: str) -> list[list[str]]:
        """The targets of each main output of node `name`, by output index, in source order."""
        width = 2 if isinstance(self.steps.get(name), w.IfStep) else 1
        outs: list[list[str]] = [[] for _ in range(width)]
        for _, target, index in self.graph.out_edges(name, data="output"):
            outs[index].append(target)
        rank = {node: i for i, node in enumerate(self.order)}
        return [sorted(targets, key=rank.__getitem__) for targets in outs]


def build_graph(workflow: w.Workflow) -> WorkflowGraph:
    graph = nx.MultiDiGraph()
    trigger = TRIGGER_NODE[workflow.trigger.kind]
    graph.add_node(trigger)
    steps: dict[str, w.Step] = {}
    order = [trigger]

    def wire(block: tuple[w.Step, ...], preds: list[tuple[str, int]]) -> list[tuple[str, int]]:
        for step in block:
            if step.name not in steps and step.name != trigger:
                steps[step.name] = step
                order.append(step.name)
                graph.add_node(step.name)
            for parent, index in preds:
                graph.add_edge(parent, step.name, output=index)
            if isinstance(step, w.IfStep):
                preds = wire(step.then, [(step.name, 0)]) + wire(step.otherwise, [(step.name, 1)])
            else:
                preds = [(step.name, 0)]
        return preds

    wire(workflow.steps, [(trigger, 0)])
    return WorkflowGraph(workflow, graph, trigger, steps, order)
