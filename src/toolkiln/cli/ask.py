"""`toolkiln ask TEXT [--registry DIR] [--max-turns N]`: a model answers, calling the registry's
tools (and creating new ones through the meta-tools) with native tool calling.

The model comes from TOOLKILN_LLM_PROVIDER / _BASE_URL / _API_KEY / _MODEL. The answer goes to
standard output, one line per tool call to standard error. Exit codes as for the other
commands: 0 answered, 1 the model or a tool failed (or it never stopped calling tools),
2 usage (including a model that is not configured).
"""

from __future__ import annotations

import argparse
import sys

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError, whole_number
from toolkiln.cli.tools import open_registry, registry_option
from toolkiln.errors import Error

DEFAULT_MAX_TURNS = 10


def add_ask_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "ask",
        help="ask a model, which may call and create the registry's tools",
        description="Ask a model (configured by TOOLKILN_LLM_*) a question; it may call the registry's "
        "active tools and create new ones. Progress goes to standard error, the answer to standard output.",
    )
    parser.add_argument("text", help="the question or request")
    registry_option(parser)
    parser.add_argument(
        "--max-turns",
        metavar="N",
        type=whole_number(1, 1000),
        default=DEFAULT_MAX_TURNS,
        help=f"replies the model may give before it must answer (default: {DEFAULT_MAX_TURNS})",
    )
    parser.set_defaults(handler=cmd_ask)
    return parser


def cmd_ask(args: argparse.Namespace) -> int:
    from toolkiln.llm import LLMConfigError, agent_loop, client_from_env

    if not args.text.strip():
        raise UsageError("ask: the question is empty")
    try:
        client = client_from_env()
    except LLMConfigError as error:
        raise UsageError(f"ask: the model is not configured: {error}") from None
    try:
        with client, open_registry(args) as registry:
            result = agent_loop(client, args.text, registry, max_turns=args.max_turns, progress=_progress)
    except Error as error:
        print(f"toolkiln: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(result.answer)
    return EXIT_OK


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
