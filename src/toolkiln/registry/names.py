"""Tool names: the one pattern, the names reserved for meta-tools, and the check every path
built from a name goes through (so "../x", "a/b" and NUL never reach the file system)."""

from __future__ import annotations

import re
from typing import Any, cast

from toolkiln.registry.errors import InvalidName

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")
NAME_RULE = "^[a-z][a-z0-9_]{0,63}$"

# The meta-tools a model sees next to the registered tools; a tool may not shadow one.
META_TOOL_NAMES = (
    "create_compute_tool",
    "create_workflow_tool",
    "create_script_tool",
    "list_custom_tools",
    "test_custom_tool",
    "delete_custom_tool",
    "toggle_custom_tool",
)


def name_problem(name: Any) -> str | None:
    """Why `name` cannot name a registered tool, or None when it can."""
    if not isinstance(name, str):
        return f"a tool name must be a string, not {type(name).__name__}"
    if not NAME_PATTERN.fullmatch(name):
        return (
            f"`{_shown(name)}` is not a valid tool name: use lower-case letters, digits and _, "
            f"starting with a letter, at most 64 characters ({NAME_RULE})"
        )
    if name in META_TOOL_NAMES:
        return f"`{name}` is the name of a meta-tool; choose another name"
    return None


def check_name(name: Any) -> str:
    """`name` when it is a valid tool name; else InvalidName."""
    problem = name_problem(name)
    if problem is not None:
        raise InvalidName(
            problem, hint=f"tool names match {NAME_RULE} and are not one of: {', '.join(META_TOOL_NAMES)}"
        )
    return cast(str, name)  # name_problem refuses anything but a str


def _shown(text: str, limit: int = 40) -> str:
    shown = text.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= limit else shown[:limit] + "..."
