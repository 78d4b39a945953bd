"""Approval of each call: a call a person must approve first (R073x)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

CALL_PENDING = register(
    "R0730",
    "call-pending",
    "The call waits for a person's approval",
    """
The registry's policy (a rule of the server: a risk level, a capability such as the network, a
kind of caller such as a model) or the tool itself (`approve_calls`, set by an admin person)
asks a person to approve every call. The call has not run: it is kept, with its arguments,
as a pending call until a person approves or denies it, or it expires.

    GET  /api/v1/calls?status=pending              # what waits
    POST /api/v1/calls/{id}/approve                 # run it with the stored arguments
    POST /api/v1/calls/{id}/deny  {"reason": ...}   # never run it

The agent loops and MCP wait for the decision and hand the model its outcome.
""",
)

CALL_DENIED = register(
    "R0731",
    "call-denied",
    "A person denied the call, or it expired",
    """
The call waited for a person's approval and did not get it: a person denied it (the reason
they gave is in the message), or nobody decided before it expired (the reason is "expired").
It never ran. Ask the person, change the arguments, or do without the tool.
""",
)

CALL_NOT_FOUND = register(
    "R0732",
    "call-not-found",
    "No pending call has this id",
    """
A call id names one call kept for approval (`c` and 24 hexadecimal digits). List the calls
(`GET /api/v1/calls?status=all`) to see their ids.
""",
)

CALL_DECIDED = register(
    "R0733",
    "call-decided",
    "The call was decided already",
    """
A call is approved or denied once: of two decisions at the same time exactly one wins, and the
other gets this error with what was decided. An expired call cannot be approved. Read the call
(`GET /api/v1/calls/{id}`) to see its decision and, for an approved one, its outcome.
""",
)

CALL_TOOL_CHANGED = register(
    "R0734",
    "call-tool-changed",
    "The tool changed after the call was made",
    """
A pending call is approved for the version of the tool it was made to; when the tool has a new
version by the time a person approves, the call does not run (the person approved arguments
for code that is no longer there). Make the call again: it runs, or waits, under the new version.
""",
)

TOO_MANY_PENDING_CALLS = register(
    "R0735",
    "too-many-pending-calls",
    "Too many of this caller's calls wait for approval",
    """
Each caller may have at most `Policy.max_pending_calls` calls waiting for a person's approval
(100 by default): a model that keeps calling a held tool would otherwise fill the registry's
folder faster than anyone could decide. Wait for a decision (or for calls to expire), or ask
a person to decide the ones that wait (`GET /api/v1/calls?status=pending`).
""",
)

CALL_TOO_LARGE = register(
    "R0736",
    "call-too-large",
    "The call's arguments are too large to keep for approval",
    """
A call kept for a person's approval is written to the registry with its arguments; together
they may take at most 4 MB. Send smaller arguments (a reference to data rather than the data).
""",
)
