"""Callers pinned to the versions of the tools they call (R077x)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

PINNED_VERSION_GONE = register(
    "R0770",
    "pinned-version-gone",
    "The version of a tool a caller is pinned to is gone",
    """
A tool that calls another runs the version of it the caller was approved with (its pin), not
whatever version is current. That version can no longer run: the tool was deleted and made
again under its name, the version's file was removed or changed, or a person rolled the tool
back past it. The caller never switches to another version by itself: a person moves it.

    toolkiln tools repin order_total                        # every callee: its approved version
    toolkiln tools repin order_total --to shipping_cost@3   # one callee: version 3
""",
)
