"""What a javascript tool asks the registry while it runs, through its run's channel
(executables/channel.py): `utils.callTool(name, args)` and, in a seeded run, `utils.uuid()`
and `utils.randomInt(lo, hi)`.

    {"call": "double", "args": {"x": 2}}   ->  Registry.invoke("double", {"x": 2}, principal=caller)
    {"draw": "uuid"}                       ->  the run's random source, as compute's uuid()
    {"draw": "int", "lo": 1, "hi": 6}      ->  the run's random source, as random_int(1, 6)

A call goes through `Registry.invoke`, the one door: the same policy, approval (a call that
waits for a person is kept, and the tool gets R0730 with its id), versions and refusals as
any caller's, as the principal of the call under way and in its registry (its tenant),
never more. `invoke` names that principal for the run's thread (`calling_as`); a run
through `Registry.run`, which knows no principal, has none, and its calls are refused
(R0617). A tool called this way may call in turn, at most MAX_CALL_DEPTH deep (R0616), and
one run makes at most MAX_CALLS_PER_RUN calls (R0615).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.diagnostics import codes
from toolkiln.executables.channel import refusal
from toolkiln.registry.json_values import plain_json
from toolkiln.semantics.chance import draw_int, draw_uuid

if TYPE_CHECKING:
    from toolkiln.registry.outcome import Outcome
    from toolkiln.registry.principals import Principal

MAX_CALL_DEPTH = 4  # the tool a caller ran is 1 deep; one it calls, 2; ...
MAX_CALLS_PER_RUN = 32
_SAFE_INTEGER = 2**53 - 1  # what a JavaScript number holds exactly


class Door(Protocol):
    """`Registry.invoke`, as a tool's call uses it."""

    def __call__(self, name: str, args: Any, *, principal: Principal | str) -> Outcome: ...


class _Calling(threading.local):
    stack: tuple[tuple[Principal, Door], ...] = ()  # the calls under way in this thread, outermost first


_CALLING = _Calling()


@contextmanager
def calling_as(principal: Principal, door: Door) -> Iterator[None]:
    """Runs inside are made for `principal` through `door` (its registry's invoke)."""
    before = _CALLING.stack
    _CALLING.stack = (*before, (principal, door))
    try:
        yield
    finally:
        _CALLING.stack = before


class ProgramRequests:
    """One run's answers to its channel: made in the run's thread as the run starts."""

    def __init__(self) -> None:
        self._calls_under_way = _CALLING.stack
        self._calls = 0

    def __call__(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and set(request) <= {"draw", "lo", "hi"} and "draw" in request:
            return _draw(request)
        if not (
            isinstance(request, dict) and set(request) <= {"call", "args"} and isinstance(request.get("call"), str)
        ):
            return refusal(codes.TOOL_CALL_LIMIT, 'a request is {"call": name, "args": {...}} or {"draw": ...}')
        return self._call(request["call"], request.get("args", {}))

    def _call(self, name: str, args: Any) -> dict[str, Any]:
        shown = name[:64]
        if not self._calls_under_way:
            return refusal(
                codes.TOOL_CALL_WITHOUT_CALLER,
                f"utils.callTool('{shown}'): this run was made through Registry.run, for no one; "
                "a tool calls others only as whoever called it",
                "run the tool through invoke: the REST API, MCP, an agent loop, toolkiln tools run",
            )
        depth = len(self._calls_under_way)
        if depth >= MAX_CALL_DEPTH:
            return refusal(
                codes.TOOL_CALL_TOO_DEEP,
                f"utils.callTool('{shown}'): this tool runs {depth} calls deep; tools call tools "
                f"at most {MAX_CALL_DEPTH} deep",
            )
        self._calls += 1
        if self._calls > MAX_CALLS_PER_RUN:
            return refusal(
                codes.TOOL_CALL_LIMIT,
                f"utils.callTool('{shown}'): a run calls other tools at most {MAX_CALLS_PER_RUN} times",
            )
        principal, door = self._calls_under_way[-1]
        reply: dict[str, Any] = plain_json(door(name, args, principal=principal).reply())
        return reply


def _draw(request: dict[str, Any]) -> dict[str, Any]:
    """A uuid or a whole number from the run's random source (the caller's seed)."""
    if request["draw"] == "uuid" and set(request) == {"draw"}:
        return {"ok": True, "result": draw_uuid()}
    lo, hi = request.get("lo"), request.get("hi")
    if request["draw"] == "int" and all(type(v) is int and abs(v) <= _SAFE_INTEGER for v in (lo, hi)):
        assert isinstance(lo, int) and isinstance(hi, int)
        if lo <= hi:
            return {"ok": True, "result": draw_int(lo, hi)}
    message = 'a draw is {"draw": "uuid"} or {"draw": "int", "lo": whole, "hi": whole at least lo}'
    return refusal(codes.TOOL_CALL_LIMIT, message)
