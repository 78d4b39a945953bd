"""`toolkiln calls list|show|approve|deny`: the calls that wait for a person's approval, decided
from the command line as the local user (a person with every scope: docs/approvals.md).

    toolkiln calls list [--status pending|approved|denied|all]
    toolkiln calls show ID
    toolkiln calls approve ID [--reason TEXT]      # runs it with its stored arguments
    toolkiln calls deny ID --reason TEXT           # never runs it; the caller reads the reason

An agent loop or `toolkiln mcp` waiting on a call resumes once it is decided here.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK
from toolkiln.cli.tools import open_registry, registry_option

if TYPE_CHECKING:
    from toolkiln.registry.outcome import Outcome
    from toolkiln.registry.pending_calls import PendingCall
    from toolkiln.registry.registry import Registry


def add_calls_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = registry_option(argparse.ArgumentParser(add_help=False))
    calls = commands.add_parser(
        "calls",
        help="the calls that wait for a person's approval",
        description="List, show, approve or deny the calls a rule or a tool holds for a person's approval.",
    )
    registry_option(calls)
    sub = calls.add_subparsers(dest="calls_command", required=True, metavar="SUBCOMMAND")
    listed = sub.add_parser("list", parents=[common], help="the calls of a status, oldest first")
    listed.add_argument("--status", choices=("pending", "approved", "denied", "all"), default="pending")
    listed.set_defaults(handler=cmd_list)
    shown = sub.add_parser("show", parents=[common], help="one call as JSON: arguments, decision, outcome")
    shown.add_argument("id", help="the call's id")
    shown.set_defaults(handler=cmd_show)
    approve = sub.add_parser("approve", parents=[common], help="run a pending call with its stored arguments")
    approve.add_argument("id", help="the call's id")
    approve.add_argument("--reason", help="why (kept with the call)")
    approve.set_defaults(handler=cmd_decide, approve=True)
    deny = sub.add_parser("deny", parents=[common], help="deny a pending call: it never runs")
    deny.add_argument("id", help="the call's id")
    deny.add_argument("--reason", required=True, help="why (the caller reads it)")
    deny.set_defaults(handler=cmd_decide, approve=False)


def cmd_list(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        calls = reg.calls(None if args.status == "all" else args.status)
    if not calls:
        print(f"no {'' if args.status == 'all' else args.status + ' '}calls", file=sys.stderr)
    for call in calls:
        print(_line(call))
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from toolkiln.semantics.values import dumps

    with open_registry(args) as reg:
        outcome = _looked_up(reg, args.id)
        if outcome is not None:
            return _failed(outcome)
        print(dumps(reg.call(args.id).to_dict(), indent=2))
    return EXIT_OK


def cmd_decide(args: argparse.Namespace) -> int:
    from toolkiln.semantics.values import dumps

    with open_registry(args) as reg:
        outcome = reg.decide_call(args.id, approve=args.approve, by="user", reason=args.reason)
    if outcome.call is None:  # the decision was not taken
        return _failed(outcome)
    if not args.approve:
        print(f"denied call {outcome.call} of {outcome.tool}")
        return EXIT_OK
    if not outcome.ok:
        print(f"approved call {outcome.call} of {outcome.tool}; its run failed:", file=sys.stderr)
        return _failed(outcome)
    print(dumps(outcome.result))
    print(f"approved call {outcome.call} of {outcome.tool} (version {outcome.version}): it ran", file=sys.stderr)
    return EXIT_OK


def _line(call: PendingCall) -> str:
    decided = f" {call.status}" + (f" ({call.reason})" if call.reason else "")
    caller = f"{call.caller.kind} {call.caller.name}"
    return f"{call.id}  {call.tool} v{call.version}  by {caller}  expires {call.expires:%Y-%m-%d %H:%M:%S}Z{decided}"


def _looked_up(reg: Registry, call_id: str) -> Outcome | None:
    """The failed Outcome when no call has this id (R0732), else None."""
    from toolkiln.errors import Error
    from toolkiln.registry.outcome import Outcome

    try:
        reg.call(call_id)
    except Error as error:
        return Outcome.failed(call_id[:40], error)
    return None


def _failed(outcome: Outcome) -> int:
    for error in outcome.errors:
        print(
            f"error[{error.code}]: {error.message}" + (f"\n  = hint: {error.hint}" if error.hint else ""),
            file=sys.stderr,
        )
    return EXIT_FAILED
