"""Runnable tools: a stored tool's compiled program with the registry's tables it reads.

The registry's tables (tables/*.json, *.csv) are given to each tool once, when it is first
run or the tables change, and only the tables the tool reads: so a run costs what the tool
costs, not a copy of every table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.registry.definitions import Compiled
from toolkiln.tool import Tool


def tables_used(program: n.Program) -> frozenset[str]:
    """The tables a program reads: its declared ones, or those its lookup steps name."""
    if program.tables is not None:
        return frozenset(table.name for table in program.tables)
    return frozenset(_lookups(program.steps))


def _lookups(steps: Iterable[n.Step]) -> Iterable[str]:
    for step in steps:
        if isinstance(step, n.Lookup):
            yield step.table
        elif isinstance(step, n.If):
            yield from _lookups(step.then)
            yield from _lookups(step.otherwise)


class Runner:
    def __init__(self) -> None:
        self._cache: dict[str, tuple[Compiled, int, Tool]] = {}
        self._used: dict[str, tuple[Compiled, frozenset[str]]] = {}

    def needs_missing_table(self, name: str, compiled: Compiled, tables: Mapping[str, Any]) -> bool:
        """Whether the tool reads a table that is not (yet) among `tables`."""
        hit = self._used.get(name)
        if hit is None or hit[0] is not compiled:
            hit = self._used[name] = (compiled, tables_used(compiled.compute.program))
        return not hit[1] <= tables.keys()

    def tool(self, name: str, compiled: Compiled, tables: Mapping[str, Any], generation: int) -> Tool:
        hit = self._cache.get(name)
        if hit is not None and hit[0] is compiled and hit[1] == generation:
            return hit[2]
        used = tables_used(compiled.compute.program)
        tool = compiled.compute
        if used:  # compiled again, once per change of the tables, with the tables it reads
            tool = tool.with_tables({t: tables[t] for t in sorted(used) if t in tables})
        self._cache[name] = (compiled, generation, tool)
        return tool

    def forget(self, name: str) -> None:
        self._cache.pop(name, None)
        self._used.pop(name, None)
