"""`toolkiln create --from-description TEXT [--kind compute|workflow] [--name NAME] [--registry DIR]`:
a model writes the tool, toolkiln checks it and runs its examples, repairs it with the model
(`--max-attempts`, default 3) and saves it in the registry as created by "llm".

The model comes from TOOLKILN_LLM_PROVIDER / _BASE_URL / _API_KEY / _MODEL. Each attempt is
one line on standard error (what failed); the saved tool is one line on standard output.
Before each request to the model one line says so (`asking the model M (attempt 1 of 3) ...`).
Exit codes as for the other commands: 0 saved, 1 not saved (the last attempt's diagnostics
are printed) or the model failed, 2 usage (including a model that is not configured).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError, whole_number
from toolkiln.cli.tools import open_registry, registry_option
from toolkiln.errors import Error

if TYPE_CHECKING:
    from toolkiln.llm.client import ChatClient
    from toolkiln.llm.factory import Attempt, FactoryResult
    from toolkiln.llm.messages import MessageLike, Reply

DEFAULT_MAX_ATTEMPTS = 3
# Problems listed per attempt in the progress lines; all of the last one's are printed at the end.
SHOWN_PER_ATTEMPT = 3


def add_create_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "create",
        help="have a model write a tool from a description; saved only if it checks",
        description="A model (configured by TOOLKILN_LLM_*) writes a tool from a description; toolkiln "
        "checks it, runs its examples and asks the model again with the problems, then saves it in the "
        "registry. Progress goes to standard error, the saved tool to standard output.",
    )
    parser.add_argument("--from-description", dest="description", metavar="TEXT", required=True)
    parser.add_argument(
        "--kind",
        choices=("compute", "workflow", "script"),
        default="compute",
        help="script: a bash, python or javascript program run in the sandbox (it waits for approval)",
    )
    parser.add_argument("--name", metavar="NAME", help="the tool's name (default: the model chooses)")
    registry_option(parser)
    parser.add_argument(
        "--max-attempts",
        metavar="N",
        type=whole_number(1, 20),
        default=DEFAULT_MAX_ATTEMPTS,
        help=f"how many times the model may answer (default: {DEFAULT_MAX_ATTEMPTS})",
    )
    parser.set_defaults(handler=cmd_create)
    return parser


def cmd_create(args: argparse.Namespace) -> int:
    from toolkiln.llm import LLMConfigError, client_from_env
    from toolkiln.llm.factory import Factory
    from toolkiln.registry.errors import InvalidName
    from toolkiln.registry.names import check_name

    if not args.description.strip():
        raise UsageError("create: the description is empty")
    if args.name is not None:
        try:
            check_name(args.name)
        except InvalidName as error:
            raise UsageError(f"create: --name: {error.message}") from None
    try:
        client = client_from_env()
    except LLMConfigError as error:
        raise UsageError(f"create: the model is not configured: {error}") from None
    try:
        with client, open_registry(args) as registry:
            announced = AnnouncedClient(client, args.max_attempts)
            factory = Factory(announced, registry, args.max_attempts, on_attempt=_progress)
            create = {
                "compute": factory.create_compute,
                "workflow": factory.create_workflow,
                "script": factory.create_script,
            }[args.kind]
            result = create(args.description, name=args.name)
    except Error as error:
        print(f"toolkiln: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    return _report(result)


class AnnouncedClient:
    """The configured client, saying on standard error what it waits for before each request:
    a model takes seconds to answer, and a command that prints nothing meanwhile looks stuck."""

    def __init__(self, client: ChatClient, attempts: int) -> None:
        self.client, self.attempts, self.asked = client, attempts, 0
        self.model, self.usage = client.model, client.usage

    @property
    def tool_format(self) -> str:
        return self.client.tool_format

    def chat(self, messages: str | Sequence[MessageLike], **options: Any) -> Reply:
        self.asked += 1
        waiting = f"asking the model {self.model} (attempt {self.asked} of {self.attempts}) ..."
        print(waiting, file=sys.stderr, flush=True)
        return self.client.chat(messages, **options)


def _progress(attempt: Attempt) -> None:
    if not attempt.diagnostics:
        print(f"attempt {attempt.number}: checked, examples passed", file=sys.stderr, flush=True)
        return
    count = len(attempt.diagnostics)
    print(f"attempt {attempt.number}: {count} problem(s)", file=sys.stderr, flush=True)
    for diagnostic in attempt.diagnostics[:SHOWN_PER_ATTEMPT]:
        where = f" at {diagnostic.span.path}" if diagnostic.span and diagnostic.span.path else ""
        print(f"  {diagnostic.code}{where}: {diagnostic.message}", file=sys.stderr, flush=True)
    if count > SHOWN_PER_ATTEMPT:
        print(f"  ... and {count - SHOWN_PER_ATTEMPT} more", file=sys.stderr, flush=True)


def _report(result: FactoryResult) -> int:
    from toolkiln.diagnostics.render import render_text

    attempts = len(result.attempts)
    if result.ok and result.record is not None:
        record = result.record
        status = record.status.replace("_", " ")
        print(f"created `{record.name}` ({record.kind}, version {record.version}, {status}) in {attempts} attempt(s)")
        return EXIT_OK
    if result.error is not None:
        print(f"toolkiln: error: {result.error}", file=sys.stderr)
        return EXIT_FAILED
    for diagnostic in result.diagnostics:
        print(render_text(diagnostic) + "\n", file=sys.stderr)
    print(f"toolkiln: create: no tool saved after {attempts} attempt(s)", file=sys.stderr)
    return EXIT_FAILED
