"""`toolkiln calls list|show|approve|deny`: the calls that wait for a person's approval, decided
from the command line as the local user (a person with every scope: docs/approvals.md).

    toolkiln calls list [--status pending|approved|denied|all]
    toolkiln calls show ID
    toolkiln calls approve ID [--reason TEXT]      # runs it with its stored arguments
    toolkiln calls deny ID --reason TEXT           # never runs it; the caller reads the reason
    toolkiln calls require TOOL [--off]            # each call of TOOL waits for approval (or not)

An agent loop or `toolkiln mcp` waiting on a call resumes once it is decided here.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK
from toolkiln.cli.tools import _guarded, _render_problem, open_registry, registry_option

if TYPE_CHECKING:
    from toolkiln.registry.outcome import Outcome
    from toolkiln.registry.pending_calls import PendingCall


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
    listed.set_defaults(handler=_guarded(cmd_list))
    shown = sub.add_parser("show", parents=[common], help="one call as JSON: arguments, decision, outcome")
    shown.add_argument("id", help="the call's id")
    shown.set_defaults(handler=_guarded(cmd_show))
    approve = sub.add_parser("approve", parents=[common], help="run a pending call with its stored arguments")
    approve.add_argument("id", help="the call's id")
    approve.add_argument("--reason", help="why (kept with the call)")
    approve.set_defaults(handler=_guarded(cmd_decide), approve=True)
    deny = sub.add_parser("deny", parents=[common], help="deny a pending call: it never runs")
    deny.add_argument("id", help="the call's id")
    deny.add_argument("--reason", required=True, help="why (the caller reads it)")
    deny.set_defaults(handler=_guarded(cmd_decide), approve=False)
    require = sub.add_parser("require", parents=[common], help="make each call of a tool wait for a person's approval")
    require.add_argument("tool", help="the tool's name")
    require.add_argument("--off", action="store_true", help="its calls run without approval again")
    require.set_defaults(handler=_guarded(cmd_require))


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
        print(dumps(reg.call(args.id).to_dict(), indent=2))  # CallNotFound: R0732, exit 1
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


def cmd_require(args: argparse.Namespace) -> int:
    with open_registry(args) as reg:
        record = reg.require_call_approval(args.tool, not args.off, by="user")
    state = "waits for a person's approval" if record.approve_calls else "runs without approval"
    print(f"each call of {record.name} {state}")
    return EXIT_OK


def _line(call: PendingCall) -> str:
    decided = f" {call.status}" + (f" ({call.reason})" if call.reason else "")
    caller = f"{call.caller.kind} {call.caller.name}"
    return f"{call.id}  {call.tool} v{call.version}  by {caller}  expires {call.expires:%Y-%m-%d %H:%M:%S}Z{decided}"


def _failed(outcome: Outcome) -> int:
    for error in outcome.errors:
        print(_render_problem(error.code, error.message, error.hint), file=sys.stderr)
    return EXIT_FAILED
