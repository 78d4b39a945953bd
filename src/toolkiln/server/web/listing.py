"""The tool list's query: filters, search, counts and one page of rows, in one pass over the
registry (10,000 tools: benchmarks/bench_web_list.py)."""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from toolkiln.registry.kinds import KINDS
from toolkiln.registry.models import ACTORS, STATUSES, ToolRecord
from toolkiln.registry.registry import Registry
from toolkiln.server.routes.tools import search

PAGE_SIZE = 50
MOST_USED = 5  # named in the counts at the top


def whole_number(text: str) -> int | None:
    """A page or version number typed into a URL or a form: ASCII digits, at most 7 of them
    (int() of 5,000 digits, or of `²`, raises)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 7 else None


@dataclass(frozen=True)
class Query:
    status: str | None = None
    kind: str | None = None
    created_by: str | None = None
    text: str = ""
    page: int = 1

    @classmethod
    def of(cls, params: dict[str, str]) -> Query:
        """The query of the list's URL; values it does not know are ignored (a hand-typed URL)."""
        return cls(
            status=params.get("status") if params.get("status") in STATUSES else None,
            kind=params.get("kind") if params.get("kind") in KINDS else None,
            created_by=params.get("created_by") if params.get("created_by") in ACTORS else None,
            text=params.get("q", "")[:200],
            page=max(1, whole_number(params.get("page", "")) or 1),
        )

    def link(self, **changes: Any) -> str:
        """The list's URL with `changes` (None drops a filter); a new filter goes back to page 1."""
        values = {"status": self.status, "kind": self.kind, "created_by": self.created_by, "q": self.text or None}
        values.update(changes)  # no `page` unless asked for: page 1
        shown = {k: v for k, v in values.items() if v not in (None, "")}
        return "/ui/tools" + ("?" + urlencode(shown) if shown else "")


@dataclass(frozen=True)
class Listing:
    rows: list[ToolRecord]
    matches: int
    total: int
    by_status: dict[str, int]
    by_creator: dict[str, int]
    by_kind: dict[str, int]
    runs: int
    most_used: list[ToolRecord]
    page: int
    pages: int
    untrusted: set[str]  # the tools whose records this registry did not write here


def list_tools(reg: Registry, query: Query) -> Listing:
    everything = reg.list()
    chosen = [
        r
        for r in everything
        if (query.status is None or r.status == query.status)
        and (query.created_by is None or r.created_by == query.created_by)
    ]
    chosen = search(chosen, query.kind, query.text or None)
    pages = max(1, -(-len(chosen) // PAGE_SIZE))
    page = min(query.page, pages)
    start = (page - 1) * PAGE_SIZE
    return Listing(
        rows=chosen[start : start + PAGE_SIZE],
        matches=len(chosen),
        total=len(everything),
        by_status=dict(Counter(r.status for r in everything)),
        by_creator=dict(Counter(r.created_by for r in everything)),
        by_kind=dict(Counter(r.kind for r in everything)),
        runs=sum(r.usage_count for r in everything),
        most_used=heapq.nlargest(MOST_USED, (r for r in everything if r.usage_count), key=lambda r: r.usage_count),
        page=page,
        pages=pages,
        untrusted=reg.untrusted(),
    )
