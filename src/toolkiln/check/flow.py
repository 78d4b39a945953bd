"""What the checker knows at one point of the steps: which variables are assigned, and as what.

A branch records only what it changes, on top of the state before the `if`, so checking an
`if` costs the size of its branches, not the number of variables assigned so far.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import field

from toolkiln.ast.records import record
from toolkiln.ast.types import Type, join


@record(frozen=False)
class FlowState:
    definite: ChainMap[str, Type] = field(default_factory=ChainMap)  # assigned on every path so far
    maybe: set[str] = field(default_factory=set)  # assigned on some path only
    reachable: bool = True

    def __init__(
        self, definite: ChainMap[str, Type] | None = None, maybe: set[str] | None = None, reachable: bool = True
    ) -> None:
        self.definite = ChainMap() if definite is None else definite
        self.maybe = set() if maybe is None else maybe
        self.reachable = reachable

    def assign(self, name: str, type_: Type) -> None:
        self.definite[name] = type_
        self.maybe.discard(name)

    def type_of(self, name: str) -> Type | None:
        """The type of `name` if it is assigned on every path so far (one look per layer,
        not ChainMap's `in` and then `[]`)."""
        for layer in self.definite.maps:
            if name in layer:
                return layer[name]
        return None

    def branch(self) -> FlowState:
        """The state at the start of a branch: writes go to a layer of its own."""
        return FlowState(self.definite.new_child(), set(), self.reachable)

    def join_branches(self, then: FlowState, otherwise: FlowState) -> None:
        """Become the state after `if` joins its two branches (both made by `branch`)."""
        if not then.reachable or not otherwise.reachable:
            survivor = otherwise if not then.reachable else then
            if survivor.reachable:
                self.definite.update(survivor.definite.maps[0])
                self.maybe |= survivor.maybe
                self.maybe -= survivor.definite.maps[0].keys()
            self.reachable = survivor.reachable
            return
        then_layer, else_layer = then.definite.maps[0], otherwise.definite.maps[0]
        for name in then_layer.keys() | else_layer.keys():
            if name in then.definite and name in otherwise.definite:
                self.definite[name] = join(then.definite[name], otherwise.definite[name])
                self.maybe.discard(name)
            else:
                self.maybe.add(name)
        self.maybe |= (then.maybe | otherwise.maybe) - self.definite.keys()
