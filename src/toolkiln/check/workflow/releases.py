"""What each n8n release refuses that earlier ones accepted, for diagnostics that depend on
the release toolkiln targets: an error for a release that refuses, a warning before it."""

from __future__ import annotations

# Deprecated node types n8n stops accepting, from which release, and what replaces them
# (n8n 2.42 refuses to create workflows with Function and Function Item).
REMOVED_NODE_TYPES: dict[str, tuple[tuple[int, ...], str]] = {
    "n8n-nodes-base.function": ((2, 42), "the Code node (`n8n-nodes-base.code`, mode runOnceForAllItems)"),
    "n8n-nodes-base.functionItem": ((2, 42), "the Code node (`n8n-nodes-base.code`, mode runOnceForEachItem)"),
}
# Deprecated node types every release still runs, hidden from n8n's editor, and what replaces them.
DEPRECATED_NODE_TYPES: dict[str, str] = {
    "n8n-nodes-base.cron": "the Schedule Trigger (`n8n-nodes-base.scheduleTrigger`, its times in `rule.interval`)",
}
# n8n 2.x checks a workflow's structure when it is created or imported (n8n-workflow's
# workflow-structure-validation.js): it refuses a node that has no position (400
# "nodes[1].position: Required") and two nodes of one name (400 duplicate_node_name), both of
# which 1.123.50 accepts.
POSITION_REQUIRED_FROM = (2, 0)
UNIQUE_NAMES_REQUIRED_FROM = (2, 0)


def release(n8n_version: str) -> tuple[int, ...]:
    """ "2.41.1" -> (2, 41, 1); a part that is not a number ends the tuple ("2.42.0-rc.1" -> (2, 42, 0))."""
    parts: list[int] = []
    for part in n8n_version.split("."):
        digits = part.split("-", 1)[0]
        if not digits.isdigit():
            break
        parts.append(int(digits))
    return tuple(parts)


def shown(since: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in since)


def removal(type_: str, n8n_version: str) -> tuple[bool, str, str] | None:
    """For a deprecated node type: (refused by this release, the message, the hint naming the
    replacement); None for any other type."""
    if type_ in DEPRECATED_NODE_TYPES:
        message = f"`{type_}` is deprecated: n8n {n8n_version} runs it, but its editor no longer offers it"
        return False, message, f"replace it with {DEPRECATED_NODE_TYPES[type_]}"
    if type_ not in REMOVED_NODE_TYPES:
        return None
    since, replacement = REMOVED_NODE_TYPES[type_]
    refused = release(n8n_version) >= since
    message = (
        f"n8n {n8n_version} refuses workflows with the deprecated node `{type_}`"
        if refused
        else f"`{type_}` is deprecated: n8n {n8n_version} runs it, n8n {shown(since)} and later refuse it"
    )
    return refused, message, f"replace it with {replacement}"


def position_required(n8n_version: str) -> bool:
    return release(n8n_version) >= POSITION_REQUIRED_FROM
