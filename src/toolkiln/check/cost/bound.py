"""A cost bound as people read it (`12 + 8·len(items)`) and as a number at given sizes:
measured from the arguments and tables of a run, or given by name."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.check.checker import CheckResult
from toolkiln.check.cost.analysis import Callees, analyze
from toolkiln.check.cost.poly import Poly, Size
from toolkiln.semantics.limits import DEFAULT_LIMITS, Limits


@dataclass(frozen=True)
class CostBound:
    """The most operations a run that succeeds is charged, at its arguments' sizes."""

    operations: Poly

    def __str__(self) -> str:
        return str(self.operations)

    def sizes(self) -> list[Size]:
        """The sizes it depends on (limits of the run last)."""
        return sorted(self.operations.sizes(), key=lambda size: (size.measure == "limit", str(size)))

    def at(
        self, args: Mapping[str, Any] | None, tables: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS
    ) -> int:
        """The bound at the sizes of these arguments and tables."""
        return self.operations.evaluate(lambda size: measure(size, args or {}, tables or {}, limits))

    def at_sizes(self, sizes: Mapping[str, int], limits: Limits = DEFAULT_LIMITS) -> int:
        """The bound at sizes given by their printed names (`{"len(items)": 100}`); a size
        not given is 0, a limit is the run's."""
        return self.operations.evaluate(
            lambda size: _limit(size.root, limits) if size.measure == "limit" else sizes.get(str(size), 0)
        )


def cost_bound(
    program: n.Program, checked: CheckResult, *, callees: Callees | None = None, limits: Limits = DEFAULT_LIMITS
) -> CostBound:
    """The bound of a checked program (NoBound when a tool it calls is not given)."""
    return CostBound(analyze(program, checked, callees=callees, limits=limits).operations)


def measure(size: Size, args: Mapping[str, Any], tables: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> int:
    """A size's value: the largest length (or node count) of the parts of an argument or a
    table that its path reaches; 0 where it reaches none."""
    if size.measure == "limit":
        return _limit(size.root, limits)
    source = tables if size.origin == "table" else args
    if size.root not in source:
        return 0
    of = _length if size.measure == "len" else _nodes
    return max((of(part) for part in _parts(source[size.root], size.steps)), default=0)


def _limit(name: str, limits: Limits) -> int:
    values = {
        "max_list": limits.max_list_length,
        "max_text": limits.max_string_length,
        "max_length": max(limits.max_list_length, limits.max_string_length),
        "max_nodes": max(limits.max_operations, limits.max_list_length),
        "max_digits": limits.max_number_digits,
    }
    return values[name]


def _parts(value: Any, steps: tuple[str, ...]) -> Iterator[Any]:
    if not steps:
        yield value
        return
    step, rest = steps[0], steps[1:]
    if step == "..":
        for part in _descendants(value):
            yield from _parts(part, rest)
    elif step == "[*]":
        for part in _children(value):
            yield from _parts(part, rest)
    elif isinstance(value, Mapping) and step[1:] in value:
        yield from _parts(value[step[1:]], rest)


def _children(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return list(value.values())
    return list(value) if isinstance(value, list | tuple) else []


def _descendants(value: Any) -> Iterator[Any]:
    stack = [value]
    while stack:
        part = stack.pop()
        yield part
        stack.extend(_children(part))


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str | list | tuple | Mapping) else 0


def _nodes(value: Any) -> int:
    return sum(len(_children(part)) for part in _descendants(value))
