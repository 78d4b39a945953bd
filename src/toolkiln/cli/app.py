"""The `toolkiln` command: thin argument handling over the library.

Exit codes: 0 ok, 1 diagnostics or a run error, 2 usage. No Python traceback reaches the user.
"""

from __future__ import annotations

import argparse
import atexit
import errno
import gc
import io
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from toolkiln.version import __version__


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the process's own command line: the process ends with this command
        _skip_the_collection_at_exit()
    if not _standard_streams_open():
        print("toolkiln: standard output is closed; redirect it (to /dev/null to discard it)", file=sys.stderr)
        return EXIT_USAGE
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):  # a replaced stream (a StringIO) has no reconfigure
            stream.reconfigure(errors="backslashreplace")  # a lone surrogate in a value must not crash
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(_command_word(words), words[1:])
    args = parser.parse_args(argv)
    try:
        handler: Callable[[argparse.Namespace], int] = args.handler  # every command sets one
        code = handler(args)
    except UsageError as error:
        print(f"toolkiln: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (`| head`) went away: stop quietly, and keep Python from complaining at exit.
        _discard_stdout()
        return EXIT_OK
    except OSError as error:
        if _stdout_failed() or error.filename is None and error.errno in _WRITE_ERRORS:
            _discard_stdout()
            print(f"toolkiln: cannot write to standard output: {error.strerror or error}", file=sys.stderr)
            return EXIT_FAILED
        name = f" {error.filename}" if isinstance(error.filename, str) and len(error.filename) <= 200 else ""
        print(f"toolkiln: error:{name} {error.strerror or error}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as error:  # noqa: BLE001 - the last line of defence: never a traceback
        print(
            f"toolkiln: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in toolkiln; please report it with the input that caused it.",
            file=sys.stderr,
        )
        return EXIT_FAILED
    try:
        sys.stdout.flush()  # a full disk or a closed pipe is found here, not at exit
    except BrokenPipeError:
        _discard_stdout()
    except (OSError, ValueError) as error:
        _discard_stdout()
        print(
            f"toolkiln: cannot write to standard output: {getattr(error, 'strerror', None) or error}", file=sys.stderr
        )
        return EXIT_FAILED
    return code


def _standard_streams_open() -> bool:
    """False when standard output is closed. A closed descriptor 0, 1 or 2 is pointed at the null
    device first: a file opened later would otherwise take its number, and receive the output."""
    closed = False
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed |= fd == 1
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stderr is None:  # closed when Python started: messages go nowhere, quietly
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - kept open for the life of the process
    return not closed and sys.stdout is not None


# What a write to a stream fails with (an OSError with no file name: not an open or a rename).
_WRITE_ERRORS = frozenset(
    getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO", "EBADF", "EPIPE") if hasattr(errno, name)
)


def _stdout_failed() -> bool:
    """Whether standard output is the stream that failed (a full disk, a closed descriptor)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        return True
    return False


def _discard_stdout() -> None:
    """Point standard output at the null device, so that the flush at exit does not fail again."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(null)


# Which module adds each command, in the order `toolkiln --help` lists them. A run imports only
# the module of its command (a compute run never loads the server, the LLM client or n8n).
_COMMAND_MODULES = (
    (("check", "run", "fmt", "optimize", "explain"), "compute", "add_compute_commands"),
    (("builtins",), "builtins", "add_builtins_command"),
    (("tools",), "tools", "add_tools_command"),
    (("workflow",), "workflow", "add_workflow_command"),
    (("import", "export"), "jsonlogic", "add_import_command"),
    (("templates",), "templates", "add_templates_command"),
    (("n8n",), "n8n", "add_n8n_command"),
    (("ask",), "ask", "add_ask_command"),
    (("create",), "create", "add_create_command"),
    (("serve",), "serve", "add_serve_command"),
    (("mcp",), "mcp", "add_mcp_command"),
    (("tokens",), "tokens", "add_tokens_command"),
    (("trust",), "trust", "add_trust_command"),
    (("calls",), "calls", "add_calls_command"),
    (("secrets",), "secrets", "add_secrets_command"),
    (("schema",), "schema", "add_schema_command"),
    (("registry",), "stores", "add_registry_command"),
    (("tenants",), "tenants", "add_tenants_command"),
    (("lsp",), "lsp", "add_lsp_command"),
)


def _command_word(argv: Sequence[str]) -> str | None:
    """The command a command line names: its first word, when that is no option."""
    return argv[0] if argv and not argv[0].startswith("-") else None


def _skip_the_collection_at_exit() -> None:
    """At exit Python runs the cyclic garbage collector over every object still alive (the
    modules, their functions and classes): 20 M instructions of a 320 M `toolkiln run`, to
    free memory the process's exit frees anyway. Freezing them, after every other exit handler
    (the first registered runs last), leaves that collection nothing to look at. Nothing of
    toolkiln waits for the collector at exit: files are closed where they are written."""
    atexit.register(gc.freeze)


# What a command module is told of the command line it is built for, so that it builds that
# parser only: one of the compute commands (`run`: not check, fmt, optimize and explain), one
# `tools` subcommand (`tools run`: not the 17 others).
_NARROWING: dict[str, Callable[[str, Sequence[str]], dict[str, Any]]] = {
    "compute": lambda command, words: {"only": command},
    "tools": lambda command, words: {"words": words},
}


def build_parser(command: str | None = None, words: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of every command, or, for a known `command`, of that command only (an unknown
    word or none builds them all, so that help and errors list every command); `words`, the
    command line after `command`, narrows a `tools` parser to its subcommand."""
    parser = argparse.ArgumentParser(prog="toolkiln", description="Compile, check and run toolkiln tools.")
    parser.add_argument("--version", action="version", version=f"toolkiln {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = [entry for entry in _COMMAND_MODULES if command in entry[0]] or _COMMAND_MODULES
    for names, module, add_function in wanted:
        narrowing = _NARROWING.get(module) if command in names else None
        add = getattr(import_module(f"toolkiln.cli.{module}"), add_function)
        add(commands, **(narrowing(command, words) if narrowing and command else {}))
    return parser
