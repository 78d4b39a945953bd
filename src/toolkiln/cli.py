"""The `toolkiln` command: thin argument handling over the library.

Exit codes: 0 ok, 1 diagnostics or a run error, 2 usage. No Python traceback reaches the user.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from toolkiln import api
from toolkiln.backends.json_printer import print_json
from toolkiln.backends.text_printer import print_text
from toolkiln.diagnostics.codes import CODES, lookup_code
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.render import render_github, render_json, render_text
from toolkiln.errors import CompileError, RunError
from toolkiln.interpret.tables import load_table_file
from toolkiln.semantics.values import to_json
from toolkiln.syntax.loader import SOURCE_SUFFIXES, parse_file

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="backslashreplace")    # a lone surrogate in a value must not crash
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
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
        print(f"toolkiln: internal error: {type(error).__name__}: {error}\n"
              "This is a bug in toolkiln; please report it with the input that caused it.", file=sys.stderr)
        return EXIT_FAILED


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolkiln", description="Compile, check and run toolkiln tools.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = commands.add_parser("check", help="check tool files (folders are walked)")
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    check.add_argument("--format", choices=("text", "json", "github"), default="text")
    check.set_defaults(handler=cmd_check)

    run = commands.add_parser("run", help="run a tool file with arguments")
    run.add_argument("file", type=Path)
    run.add_argument("--args", default="{}", help="the arguments as a JSON object")
    run.add_argument("--tables", type=Path, action="append", default=[], metavar="FILE",
                     help="a JSON or CSV table file (repeatable)")
    run.set_defaults(handler=cmd_run)

    fmt = commands.add_parser("fmt", help="rewrite tool and workflow files in canonical form")
    fmt.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    fmt.add_argument("--check", action="store_true", help="only report files that would change")
    fmt.set_defaults(handler=cmd_fmt)

    optimize = commands.add_parser("optimize", help="print the optimized program in canonical text")
    optimize.add_argument("file", type=Path)
    optimize.set_defaults(handler=cmd_optimize)

    explain = commands.add_parser("explain", help="explain a diagnostic code")
    explain.add_argument("code")
    explain.set_defaults(handler=cmd_explain)

    from toolkiln.registry.cli import add_tools_command  # noqa: PLC0415 - the registry itself loads on use
    add_tools_command(commands)
    from toolkiln.workflow.cli import add_workflow_command  # noqa: PLC0415 - loads on use
    add_workflow_command(commands)
    from toolkiln.templates.cli import add_templates_command  # noqa: PLC0415 - loads on use
    add_templates_command(commands)
    from toolkiln.backends.n8n.cli import add_n8n_command  # noqa: PLC0415 - loads on use
    add_n8n_command(commands)
    return parser


def source_files(paths: list[Path], suffixes: tuple[str, ...] = SOURCE_SUFFIXES) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in suffixes and p.is_file())
        else:
            yield path


# --- check --------------------------------------------------------------------------------

def cmd_check(args: argparse.Namespace) -> int:
    diagnostics: list[Diagnostic] = []
    files = list(source_files(args.paths, (*SOURCE_SUFFIXES, ".wf")))
    if not files:
        raise UsageError(f"no tool or workflow files (*.tk, *.json, *.wf) under {', '.join(map(str, args.paths))}")
    from toolkiln.workflow.cli import workflow_diagnostics  # noqa: PLC0415 - loads on use
    for path in files:
        found = workflow_diagnostics(path)      # a .wf file or an n8n export, else a tool file
        diagnostics.extend(api.check(path) if found is None else found)
    if args.format == "json":
        print(render_json(diagnostics))
    elif args.format == "github":
        for diagnostic in diagnostics:
            print(render_github(diagnostic))
    else:
        for diagnostic in diagnostics:
            print(render_text(diagnostic) + "\n")
        errors = sum(d.is_error for d in diagnostics)
        warnings = len(diagnostics) - errors
        print(f"{len(files)} file(s) checked: {errors} error(s), {warnings} warning(s)")
    return EXIT_FAILED if any(d.is_error for d in diagnostics) else EXIT_OK


# --- run ----------------------------------------------------------------------------------

def cmd_run(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args, parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise UsageError(f"--args is not valid JSON: {error.msg} (column {error.colno})") from None
    except (ValueError, RecursionError) as error:     # an integer of 4,300+ digits; nesting past the stack
        raise UsageError(f"--args cannot be read: {error}"[:200]) from None
    try:
        tool = api.compile(args.file)
        tables: dict[str, Any] = {}
        for table_file in args.tables:
            tables.update(load_table_file(table_file))
        result = tool.run(arguments, tables=tables)
    except CompileError as error:
        for diagnostic in error.diagnostics:
            print(render_text(diagnostic) + "\n", file=sys.stderr)
        return EXIT_FAILED
    except RunError as error:
        print(render_run_error(error, args.file), file=sys.stderr)
        return EXIT_FAILED
    print(to_json(result))
    return EXIT_OK


def render_run_error(error: RunError, file: Path) -> str:
    lines = [f"error[{error.code}]: {error.message}"]
    span = error.span
    if span is not None and span.line:
        where = f"{file}: {span.path}:{span.line}:{span.column}" if span.path else f"{file}:{span.line}:{span.column}"
        lines.append(f" --> {where}")
    if error.hint:
        lines.append(f"  = hint: {error.hint}")
    return "\n".join(lines)


# --- fmt ----------------------------------------------------------------------------------

def canonical(path: Path) -> tuple[str | None, list[Diagnostic]]:
    parsed = parse_file(path)
    if parsed.program is None:
        return None, parsed.diagnostics
    if parsed.format == "json":
        return to_json(print_json(parsed.program), indent=2) + "\n", []
    return print_text(parsed.program, parsed.comments), []


def cmd_fmt(args: argparse.Namespace) -> int:
    """Tool files and .wf files; n8n exports are n8n's to write, so they are left alone."""
    from toolkiln.workflow.cli import canonical_workflow, is_n8n_export  # noqa: PLC0415 - loads on use

    files = (path for path in source_files(args.paths, (*SOURCE_SUFFIXES, ".wf")) if not is_n8n_export(path))
    return reformat(files, lambda path: canonical_workflow(path) if path.suffix == ".wf" else canonical(path),
                    check=args.check)


def reformat(paths: Iterable[Path], canonical_text: Callable[[Path], tuple[str | None, list[Diagnostic]]], *,
             check: bool) -> int:
    """The loop of every `fmt` command: rewrite each file to its canonical text (or, with
    `check`, only name it); a file that does not parse gets its diagnostics and exit 1."""
    failed = changed = 0
    for path in paths:
        text, diagnostics = canonical_text(path)
        if text is None:
            for diagnostic in diagnostics:
                print(render_text(diagnostic) + "\n", file=sys.stderr)
            failed += 1
            continue
        if path.read_text(encoding="utf-8") == text:
            continue
        changed += 1
        if check:
            print(f"would reformat {path}")
        else:
            write_atomically(path, text)
            print(f"reformatted {path}")
    return EXIT_FAILED if failed or (check and changed) else EXIT_OK


def write_atomically(path: Path, text: str) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


# --- optimize -----------------------------------------------------------------------------

def cmd_optimize(args: argparse.Namespace) -> int:
    try:
        print(api.optimized_text(args.file), end="")
    except CompileError as error:
        for diagnostic in error.diagnostics:
            print(render_text(diagnostic) + "\n", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


# --- explain ------------------------------------------------------------------------------

def cmd_explain(args: argparse.Namespace) -> int:
    entry = lookup_code(args.code)
    if entry is None:
        raise UsageError(f"unknown code {args.code!r}; codes are {', '.join(CODES)}")
    print(f"{entry.code} ({entry.name}, {entry.severity}): {entry.title}\n\n{entry.explanation}")
    return EXIT_OK
