"""The table of tool kinds: one class each (compute, workflow, script, executable), asked by
the registry, its policy, the exports, the web page and the CLI what a tool of the kind does.

A new kind is a module with a class that follows `ToolKind` (base.py), listed here, plus its
tests; nothing else changes (CONTRIBUTING.md). A test may add a kind for a while with
`registered(kind)`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager

from toolkiln.registry.errors import BrokenTool
from toolkiln.registry.kinds.base import Compiled, RunContext, Runnable, ToolKind
from toolkiln.registry.kinds.compute import COMPUTE

__all__ = ["DEFAULT", "KINDS", "Compiled", "RunContext", "Runnable", "ToolKind", "kind_of", "registered"]

# Where each built-in kind lives, in the order definitions are recognised and kinds are listed.
_HOMES = {
    "compute": ("compute", "COMPUTE"),
    "workflow": ("workflow", "WORKFLOW"),
    "script": ("programs", "SCRIPT"),
    "executable": ("programs", "EXECUTABLE"),
}


class KindTable(MutableMapping[str, ToolKind]):
    """The kinds by name; each built-in one is imported when first looked up, so that running a
    compute tool (`tools run`) does not import the sandbox's and n8n's kinds."""

    def __init__(self) -> None:
        self._kinds: dict[str, ToolKind | None] = dict.fromkeys(_HOMES)

    def __getitem__(self, name: str) -> ToolKind:
        kind = self._kinds[name]
        if kind is None:
            module, attribute = _HOMES[name]
            kind = getattr(importlib.import_module(f"toolkiln.registry.kinds.{module}"), attribute)
            self._kinds[name] = kind
        return kind

    def __setitem__(self, name: str, kind: ToolKind) -> None:
        self._kinds[name] = kind

    def __delitem__(self, name: str) -> None:
        del self._kinds[name]

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)


KINDS = KindTable()
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
