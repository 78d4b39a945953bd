"""The `toolkiln` command: thin argument handling over the library.

Exit codes: 0 ok, 1 diagnostics or a run error, 2 usage. No Python traceback reaches the user.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from toolkiln.cli.compute import add_compute_commands
from toolkiln.cli.n8n import add_n8n_command
from toolkiln.cli.templates import add_templates_command
from toolkiln.cli.tools import add_tools_command
from toolkiln.cli.workflow import add_workflow_command


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):  # a replaced stream (a StringIO) has no reconfigure
            stream.reconfigure(errors="backslashreplace")  # a lone surrogate in a value must not crash
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        handler: Callable[[argparse.Namespace], int] = args.handler  # every command sets one
        return handler(args)
    except UsageError as error:
        print(f"toolkiln: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (`| head`) went away: stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:  # noqa: BLE001 - the last line of defence: never a traceback
        print(
            f"toolkiln: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in toolkiln; please report it with the input that caused it.",
            file=sys.stderr,
        )
        return EXIT_FAILED


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolkiln", description="Compile, check and run toolkiln tools.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    add_compute_commands(commands)
    add_tools_command(commands)
    add_workflow_command(commands)
    add_templates_command(commands)
    add_n8n_command(commands)
    return parser
