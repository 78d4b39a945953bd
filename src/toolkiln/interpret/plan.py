"""The typed plan of a program's fast path: what the closure builders know of the closures
they made, which the builders that use those closures read to fuse them into fewer calls.

A closure is opaque to Python, so what one builder wants to tell the next (this closure
computes a chain of operations on a variable; this step stores a constant; this `if` takes
the variable's value itself) is written here, in one table per program keyed by closure, as
the dataclasses below. Nothing is stored on the functions themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolkiln.ast.records import record, set_field

Frame = list[Any]  # slot 0 the run's state (a Runtime), then the variables
Fn = Callable[[Frame], Any]
Op = Callable[[Any, Any], Any]


@record(slots=True)
class Chain:
    """`f[slot] op1 c1 op2 c2 ...`, left to right, with constant right operands."""

    slot: int
    steps: tuple[tuple[Op, Any], ...]

    def __init__(self, slot: int, steps: tuple[tuple[Op, Any], ...]) -> None:
        set_field(self, "slot", slot)
        set_field(self, "steps", steps)


@record(slots=True)
class Compare:
    """A test of a variable against a constant, `op(f[slot], constant)`, done in place by the
    closure that uses it."""

    op: Op
    slot: int
    constant: Any

    def __init__(self, op: Op, slot: int, constant: Any) -> None:
        set_field(self, "op", op)
        set_field(self, "slot", slot)
        set_field(self, "constant", constant)


Test = Compare | Fn  # a condition: a comparison done in place, or a closure returning a boolean


@record(slots=True)
class Update:
    """The step `f[target] = f[source] op constant`; `located` computes the same value one
    operation at a time, with its error located (after a decimal signal)."""

    target: int
    source: int
    op: Op
    constant: Any
    located: Fn

    def __init__(self, target: int, source: int, op: Op, constant: Any, located: Fn) -> None:
        set_field(self, "target", target)
        set_field(self, "source", source)
        set_field(self, "op", op)
        set_field(self, "constant", constant)
        set_field(self, "located", located)


@record(slots=True)
class StoredConstant:
    """The step `f[slot] = value`."""

    slot: int
    value: Any

    def __init__(self, slot: int, value: Any) -> None:
        set_field(self, "slot", slot)
        set_field(self, "value", value)


@record(slots=True)
class SingleScalar:
    """A program's lone number, string or boolean parameter (in slot 1), bound inline for the
    usual call `{name: value}`: its converter (raises only ArgumentError) and the open interval
    of floats that go straight to the exact conversion (empty unless it is a `number`)."""

    name: str
    convert: Callable[[Any], Any]
    floats: tuple[float, float]

    def __init__(self, name: str, convert: Callable[[Any], Any], floats: tuple[float, float]) -> None:
        set_field(self, "name", name)
        set_field(self, "convert", convert)
        set_field(self, "floats", floats)


class Shapes:
    """What is known of the closures of one program, by closure (see the module's note)."""

    def __init__(self) -> None:
        self._chains: dict[Fn, Chain] = {}
        self._updates: dict[Fn, Update] = {}
        self._constants: dict[Fn, StoredConstant] = {}
        self._by_value: set[Fn] = set()

    def chain(self, fn: Fn) -> Chain | None:
        return self._chains.get(fn)

    def update(self, fn: Fn) -> Update | None:
        return self._updates.get(fn)

    def constant(self, fn: Fn) -> StoredConstant | None:
        return self._constants.get(fn)

    def takes_value(self, fn: Fn) -> bool:
        """Whether `fn` also takes its variable's value itself, `fn(None, x)` (a tested chain
        on a program's only variable: run without a frame)."""
        return fn in self._by_value

    def computes(self, fn: Fn, chain: Chain) -> Fn:
        self._chains[fn] = chain
        return fn

    def updates(self, fn: Fn, update: Update) -> Fn:
        self._updates[fn] = update
        return fn

    def stores(self, fn: Fn, constant: StoredConstant) -> Fn:
        self._constants[fn] = constant
        return fn

    def by_value(self, fn: Fn) -> Fn:
        self._by_value.add(fn)
        return fn
