"""The workflow as a graph of n8n nodes (digraph.MultiDigraph), and the questions passes ask of it.

Nodes are named like the n8n nodes they become: the trigger (`Webhook`, `Schedule Trigger`,
...) and one node per step. An edge `a -> b` with `output=i, input=j` means output `i` of `a`
feeds input `j` of `b` (an IF has output 0 for true and 1 for false; a switch one output per
case, then its `else`). A MultiDiGraph, because an `if` whose two branches are both empty
sends both outputs to the same next step.

Wiring: a step takes its input from the step before it (the end of each branch, after an `if`
or `switch`; branch i feeds input i of a `merge` that follows directly), unless it says
`after`, which lists its inputs exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkiln.ast import workflow as w
from toolkiln.check.workflow.digraph import MultiDigraph, immediate_dominators

TRIGGER_NODE = {"webhook": "Webhook", "manual": "Manual Trigger", "schedule": "Schedule Trigger"}
# The names through which expressions read the trigger's output item.
TRIGGER_ROOTS = {"webhook": ("body", "query", "headers"), "manual": (), "schedule": (), "node": ()}
# Steps whose output item is their input item (expressions read the step before them).
PASS_THROUGH = (w.IfStep, w.SwitchStep, w.RespondStep, w.WaitStep)


@dataclass(frozen=True)
class Dangling:
    """An `after` that names no node, or an output/input the node does not have."""

    step: w.Step
    wire: w.Wire
    problem: str


@dataclass
class WorkflowGraph:
    workflow: w.Workflow
    graph: MultiDigraph
    trigger: str
    steps: dict[str, w.Step]  # the first step of each name
    order: list[str]  # trigger first, then steps in source order
    dangling: list[Dangling] = field(default_factory=list)
    _idom: dict[str, str] | None = field(default=None, repr=False)
    _rank: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def roots(self) -> tuple[str, ...]:
        return TRIGGER_ROOTS[self.workflow.trigger.kind]

    def dominates(self, a: str, b: str) -> bool:
        """Whether every path from the trigger to `b` passes through `a` (a != b)."""
        if self._idom is None:
            self._idom = immediate_dominators(self.graph, self.trigger)
        node = b
        while node != self.trigger and node in self._idom:
            node = self._idom[node]
            if node == a:
                return True
        return False

    def produces_fields(self, name: str) -> bool:
        return name == self.trigger or (name in self.steps and not isinstance(self.steps[name], PASS_THROUGH))

    def declared(self, name: str) -> w.Shape | None:
        """The shape declared for node `name`'s output item: `returns {...}` of an `http` or
        `node` step or of a `node` trigger (a webhook's `body {...}` is its item's `body`)."""
        trigger = self.workflow.trigger
        if name == self.trigger:
            return trigger.node.returns if isinstance(trigger, w.NodeTrigger) else None
        step = self.steps.get(name)
        if isinstance(step, w.HttpStep):
            return step.returns
        return step.node.returns if isinstance(step, w.NodeStep) else None

    def input_source(self, name: str) -> str | None:
        """The node whose output item is `$json` in node `name`, if there is a single one:
        pass-through nodes hand their input on. None where branches join."""
        parents = set(self.graph.predecessors(name))
        if len(parents) != 1:
            return None
        (parent,) = parents
        return self.output_source(parent)

    def output_source(self, name: str) -> str | None:
        if self.produces_fields(name):
            return name
        return self.input_source(name)

    def width(self, name: str) -> int:
        """How many main outputs node `name` has (at least those that are wired)."""
        step = self.steps.get(name)
        declared = len(w.branches(step)) if step is not None and w.branches(step) else 1
        wired: list[int] = [data["output"] for _, _, data in self.graph.out_edges(name)]
        return max([declared, *(index + 1 for index in wired)])

    def outputs(self, name: str) -> list[list[tuple[str, int]]]:
        """(target, input) of each main output of node `name`, by output index, in source order."""
        outs: list[list[tuple[str, int]]] = [[] for _ in range(self.width(name))]
        for _, target, data in self.graph.out_edges(name):
            outs[data["output"]].append((target, data["input"]))
        if len(self._rank) != len(self.order):  # built once: a large workflow asks for every node
            self._rank = {node: i for i, node in enumerate(self.order)}
        rank = self._rank
        return [sorted(targets, key=lambda t: (rank[t[0]], t[1])) for targets in outs]


def build_graph(workflow: w.Workflow) -> WorkflowGraph:
    graph = MultiDigraph()
    trigger = trigger_name(workflow.trigger)
    graph.add_node(trigger)
    steps: dict[str, w.Step] = {}
    order = [trigger]
    explicit: list[w.Step] = []

    def wire(block: tuple[w.Step, ...], preds: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
        for step in block:
            if step.name not in steps and step.name != trigger:
                steps[step.name] = step
                order.append(step.name)
                graph.add_node(step.name)
            if step.after is not None:
                explicit.append(step)  # wired once every step is known
            else:
                for parent, output, input_ in preds:
                    graph.add_edge(
                        parent, step.name, output=output, input=input_ if isinstance(step, w.MergeStep) else 0
                    )
            blocks = w.branches(step)
            if blocks:
                preds = [
                    end
                    for index, block_ in enumerate(blocks)
                    for end in _as_input(wire(block_, [(step.name, index, 0)]), index)
                ]
            else:
                preds = [(step.name, 0, 0)]
        return preds

    wire(workflow.steps, [(trigger, 0, 0)])
    built = WorkflowGraph(workflow, graph, trigger, steps, order)
    for step in explicit:
        for wire_ in step.after or ():
            if wire_.source not in graph:
                built.dangling.append(Dangling(step, wire_, f"no step or trigger named `{wire_.source}`"))
            else:
                graph.add_edge(wire_.source, step.name, output=wire_.output, input=wire_.input)
    return built


def trigger_name(trigger: w.Trigger) -> str:
    return trigger.node.name if isinstance(trigger, w.NodeTrigger) else TRIGGER_NODE[trigger.kind]


def _as_input(ends: list[tuple[str, int, int]], index: int) -> list[tuple[str, int, int]]:
    """The ends of branch `index` feed input `index` (of a merge; other steps use input 0)."""
    return [(parent, output, index) for parent, output, _ in ends]
