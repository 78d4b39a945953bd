"""What the checker knows at one point of the steps: which variables are assigned, and as what."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkiln.ast.types import Type, join


@dataclass
class FlowState:
    definite: dict[str, Type] = field(default_factory=dict)   # assigned on every path so far
    maybe: set[str] = field(default_factory=set)              # assigned on some path only
    reachable: bool = True

    def copy(self) -> FlowState:
        return FlowState(dict(self.definite), set(self.maybe), self.reachable)

    def assign(self, name: str, type_: Type) -> None:
        self.definite[name] = type_
        self.maybe.discard(name)

    def merge(self, other: FlowState) -> FlowState:
        """The state after two branches join; a branch that returned contributes nothing."""
        if not self.reachable:
            return other.copy()
        if not other.reachable:
            return self.copy()
        definite = {name: join(t, other.definite[name])
                    for name, t in self.definite.items() if name in other.definite}
        maybe = (self.maybe | other.maybe | self.definite.keys() | other.definite.keys()) - definite.keys()
        return FlowState(definite, maybe, True)
