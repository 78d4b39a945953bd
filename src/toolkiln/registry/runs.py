"""Runnable tools: a stored compute tool with the registry's tables it reads, and what
`Registry.run` keeps of a tool to run it again without asking the store (`HotRun`).

The registry's tables (tables/*.json, *.csv) are given to each tool once, when it is first
run or the tables change, and only the tables the tool reads: so a run costs what the tool
costs, not a copy of every table.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.visitor import walk
from toolkiln.tool import Tool


def tables_used(program: n.Program) -> frozenset[str]:
    """The tables a program reads: its declared ones, or those its lookup steps name."""
    if program.tables is not None:
        return frozenset(table.name for table in program.tables)
    return frozenset(node.table for node in walk(program) if isinstance(node, n.Lookup))


class HotRun:
    """A tool as `Registry.run` reuses it while nothing changed: the store's change counter it
    was made at, until when it is believed without a look at the folder, the tool's fast run
    (its Runner's, taking only the arguments), the tool itself (for runs with options) and the
    per-thread counts of its runs (usage.Tally). Slots: a run reads four of them, each as fast
    as a tuple's item.

    `door` is what `Registry.invoke` found out about calls of this tool by each kind of caller
    that it may remember: a principal kind -> (the policy it was decided under, the version
    that runs) when such a call runs at once. It goes with the HotRun, so a change of any
    record or table (which empties the store's runnables) or of the counter forgets it, and a
    new policy object misses it."""

    __slots__ = ("changes", "counts", "door", "run", "tool", "until")

    def __init__(
        self, changes: int, until: float, run: Callable[[Any], Any], tool: Any, counts: threading.local
    ) -> None:
        self.changes = changes
        self.until = until
        self.run = run
        self.tool = tool
        self.counts = counts
        self.door: dict[str, tuple[object, int]] = {}


class Runner:
    """Each compiled tool (by name) with the tables it reads, kept while neither changes."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Tool, int, Tool]] = {}
        self._used: dict[str, tuple[Tool, frozenset[str]]] = {}

    def needs_missing_table(self, name: str, compiled: Tool, tables: Mapping[str, Any]) -> bool:
        """Whether the tool reads a table that is not (yet) among `tables`."""
        hit = self._used.get(name)
        if hit is None or hit[0] is not compiled:
            hit = self._used[name] = (compiled, tables_used(compiled.program))
        return not hit[1] <= tables.keys()

    def tool(self, name: str, compiled: Tool, tables: Mapping[str, Any], generation: int) -> Tool:
        hit = self._cache.get(name)
        if hit is not None and hit[0] is compiled and hit[1] == generation:
            return hit[2]
        used = tables_used(compiled.program)
        tool = compiled
        if used:  # compiled again, once per change of the tables, with the tables it reads
            tool = tool.with_tables({t: tables[t] for t in sorted(used) if t in tables})
        self._cache[name] = (compiled, generation, tool)
        return tool

    def forget(self, name: str) -> None:
        self._cache.pop(name, None)
        self._used.pop(name, None)
