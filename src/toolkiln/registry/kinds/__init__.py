"""The table of tool kinds: one class each (compute, workflow, script, executable), asked by
the registry, its policy, the exports, the web page and the CLI what a tool of the kind does.

A new kind is a module with a class that follows `ToolKind` (base.py), listed here, plus its
tests; nothing else changes (CONTRIBUTING.md). A test may add a kind for a while with
`registered(kind)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from toolkiln.registry.errors import BrokenTool
from toolkiln.registry.kinds.base import Compiled, RunContext, Runnable, ToolKind
from toolkiln.registry.kinds.compute import COMPUTE
from toolkiln.registry.kinds.programs import EXECUTABLE, SCRIPT
from toolkiln.registry.kinds.workflow import WORKFLOW

__all__ = ["DEFAULT", "KINDS", "Compiled", "RunContext", "Runnable", "ToolKind", "kind_of", "registered"]

# By name, in the order definitions are recognised and kinds are listed; compute is the default.
KINDS: dict[str, ToolKind] = {kind.name: kind for kind in (COMPUTE, WORKFLOW, SCRIPT, EXECUTABLE)}
DEFAULT: ToolKind = COMPUTE


def kind_of(name: str) -> ToolKind:
    """The kind of a record; BrokenTool for a kind this toolkiln does not have (a record
    written by another version, or by hand: its definition does not check here either)."""
    try:
        return KINDS[name]
    except KeyError:
        raise BrokenTool(
            f"unknown tool kind {name[:40]!r}", hint=f"kinds are: {', '.join(KINDS)}; fix or delete its file"
        ) from None


@contextmanager
def registered(kind: ToolKind) -> Iterator[ToolKind]:
    """`kind` in the table while the block runs (for tests of a kind defined outside it)."""
    if kind.name in KINDS:
        raise ValueError(f"a tool kind named {kind.name!r} exists already")
    KINDS[kind.name] = kind
    try:
        yield kind
    finally:
        del KINDS[kind.name]
