"""The commands on tool files: check, run, fmt, optimize and explain.

A command imports what it uses when it runs (issue 34): `toolkiln run` of a tool file loads the
compiler and the interpreter, not the printers, the fixes, workflows or n8n.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    arguments_json,
    decimals_option,
    read_source,
    reformat,
    source_files,
    write_atomically,
)
from toolkiln.errors import CompileError, RunError

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic


def add_compute_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], only: str | None = None
) -> None:
    """Add check, run, fmt, optimize and explain, or (`only`) that one command's parser alone:
    `toolkiln run` builds no parser of the others."""
    for name, add in (
        ("check", _add_check),
        ("run", _add_run),
        ("fmt", _add_fmt),
        ("optimize", _add_optimize),
        ("explain", _add_explain),
    ):
        if only is None or only == name:
            add(commands)


def _add_check(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from toolkiln.cli.workflow import workflow_check_options

    check = commands.add_parser("check", help="check tool files (folders are walked)")
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    check.add_argument(
        "--format",
        choices=("text", "json", "github", "sarif", "junit"),
        default="text",
        help="text for people; json; github (annotations); sarif (code scanning); junit (test reports): docs/ci.md",
    )
    check.add_argument(
        "--docs-url", metavar="URL", help="where the docs are published: SARIF rules link their code's entry there"
    )
    check.add_argument(
        "--fix",
        action="store_true",
        help="rewrite tool files with the certain fixes applied (repeated until none is left), then report",
    )
    workflow_check_options(check)
    _exclude_option(check)
    check.set_defaults(handler=cmd_check)


def _add_run(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser("run", help="run a tool file with arguments")
    run.add_argument("file", type=Path)
    run.add_argument("--args", default="{}", help="the arguments as a JSON object")
    decimals_option(run)
    run.add_argument(
        "--now", metavar="DATETIME", help="what today() and now() read, as 2026-01-31T09:30:00Z (default: the clock)"
    )
    run.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="seed of what uuid(), random() and random_int() draw (default: the system's)",
    )
    run.add_argument(
        "--tables", type=Path, action="append", default=[], metavar="FILE", help="a JSON or CSV table file (repeatable)"
    )
    run.set_defaults(handler=cmd_run)


def _add_fmt(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fmt = commands.add_parser("fmt", help="rewrite tool and workflow files in canonical form")
    fmt.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    fmt.add_argument("--check", action="store_true", help="only report files that would change")
    _exclude_option(fmt)
    fmt.set_defaults(handler=cmd_fmt)


def _add_optimize(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    optimize = commands.add_parser("optimize", help="print the optimized program in canonical text")
    optimize.add_argument("file", type=Path)
    optimize.set_defaults(handler=cmd_optimize)


def _add_explain(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain = commands.add_parser("explain", help="explain a diagnostic code")
    explain.add_argument("code")
    explain.set_defaults(handler=cmd_explain)


def _exclude_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip files and folders whose name or path (relative to the folder given) matches (repeatable)",
    )


# --- check --------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    from toolkiln.cli.definition_files import check_definition, is_definition_file
    from toolkiln.documents import check_text, is_workflow_text
    from toolkiln.syntax.loader import SOURCE_SUFFIXES

    diagnostics: list[Diagnostic] = []
    # A folder's .yaml files are not taken for RustyClaw skills: most are something else.
    files = list(source_files(args.paths, (*SOURCE_SUFFIXES, ".wf", ".skill"), args.exclude))
    if not files:
        raise UsageError(
            f"no tool or workflow files (*.tk, *.json, *.wf, *.skill) under {', '.join(map(str, args.paths))}"
        )
    for path in files:
        text, unreadable = read_source(path)  # (E0100 for a file that cannot be read, E0401 too large)
        if text is None:
            diagnostics.extend(unreadable)
        elif is_workflow_text(str(path), text):
            diagnostics.extend(check_text(text, str(path), strict=args.strict, n8n_version=args.n8n_version))
        elif is_definition_file(path, text):  # what `toolkiln tools create` would say of it
            diagnostics.extend(check_definition(path, text))
        elif args.fix:
            diagnostics.extend(fix_file(path))
        else:  # what the language server reports for the same text (toolkiln.documents)
            diagnostics.extend(check_text(text, str(path)))
    _report(args, diagnostics, [str(path) for path in files])
    return EXIT_FAILED if any(d.is_error for d in diagnostics) else EXIT_OK


def _report(args: argparse.Namespace, diagnostics: list[Diagnostic], files: list[str]) -> None:
    from toolkiln.diagnostics.render import render_github, render_json, render_text

    if args.format in ("sarif", "junit"):
        from toolkiln.diagnostics.ci import render_junit, render_sarif

        print(render_sarif(diagnostics, args.docs_url) if args.format == "sarif" else render_junit(diagnostics, files))
    elif args.format == "json":
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


def fix_file(path: Path) -> list[Diagnostic]:
    """Apply the certain fixes to a tool file, round after round; the diagnostics left."""
    from toolkiln import api
    from toolkiln.diagnostics.fixes import MAX_FIX_ROUNDS, apply_fixes, text_fixes
    from toolkiln.diagnostics.model import Diagnostic
    from toolkiln.syntax.loader import read_source_file

    diagnostics = api.check(path)
    for _ in range(MAX_FIX_ROUNDS):
        fixes = text_fixes(diagnostics)
        text = read_source_file(path)
        if not fixes or isinstance(text, Diagnostic):
            break
        write_atomically(path, apply_fixes(text, diagnostics))
        print(f"{path}: applied {len(fixes)} fix(es)", file=sys.stderr)
        diagnostics = api.check(path)
    return diagnostics


# --- run ----------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from toolkiln import api
    from toolkiln.cli.definition_files import compute_file_problems, refuse_skill_file
    from toolkiln.semantics.values import dumps

    arguments = arguments_json(args.args)
    try:
        refuse_skill_file(args.file, "run")
        tool = api.compile(args.file)
        result = tool.run(arguments, tables=_tables(args.tables), clock=_clock(args.now), random=args.seed)
    except CompileError as error:
        from toolkiln.diagnostics.render import render_text

        for diagnostic in compute_file_problems(args.file, "run", error.diagnostics):
            print(render_text(diagnostic) + "\n", file=sys.stderr)
        return EXIT_FAILED
    except RunError as error:
        print(render_run_error(error, args.file), file=sys.stderr)
        return EXIT_FAILED
    print(dumps(result, decimals=args.decimals))
    return EXIT_OK


def _tables(files: list[Path]) -> dict[str, Any]:
    from toolkiln.io.tables import load_table_file

    tables: dict[str, Any] = {}
    for table_file in files:
        tables.update(load_table_file(table_file))
    return tables


def _clock(now: str | None) -> Any:
    """What `--now` fixes today() and now() at (None: the clock)."""
    if now is None:
        return None
    from toolkiln.semantics.dates import clock_at

    return clock_at(now)


def render_run_error(error: RunError, file: Path) -> str:
    """Like a compile error: the location, the source line with a caret, the hint."""
    from toolkiln.diagnostics.render import render_text
    from toolkiln.syntax.loader import parse_file

    parsed = parse_file(file)
    return render_text(error.diagnostic().located(parsed.source))


# --- fmt ----------------------------------------------------------------------------------


def canonical(path: Path) -> tuple[str | None, list[Diagnostic]]:
    """What `toolkiln fmt` writes for a tool file (toolkiln.documents, as the language server)."""
    from toolkiln.cli.definition_files import SKILL_SUFFIXES, compute_file_problems, not_a_compute_file
    from toolkiln.documents import canonical_text

    if path.suffix in SKILL_SUFFIXES:  # (named: a folder's walk takes no skill file)
        return None, [not_a_compute_file(path, "script", "fmt")]
    text, unreadable = read_source(path)
    if text is None:
        return None, unreadable
    canonical, problems = canonical_text(text, str(path))
    return (canonical, problems) if canonical is not None else (None, compute_file_problems(path, "fmt", problems))


def cmd_fmt(args: argparse.Namespace) -> int:
    """Tool files and .wf files; n8n exports are n8n's to write, so they are left alone."""
    from toolkiln.cli.workflow import canonical_workflow, is_n8n_export
    from toolkiln.syntax.loader import SOURCE_SUFFIXES

    found = source_files(args.paths, (*SOURCE_SUFFIXES, ".wf"), args.exclude)
    files = (path for path in found if not is_n8n_export(path))
    return reformat(
        files, lambda path: canonical_workflow(path) if path.suffix == ".wf" else canonical(path), check=args.check
    )


# --- optimize -----------------------------------------------------------------------------


def cmd_optimize(args: argparse.Namespace) -> int:
    from toolkiln import api
    from toolkiln.cli.definition_files import compute_file_problems, refuse_skill_file
    from toolkiln.diagnostics.render import render_text

    try:
        refuse_skill_file(args.file, "optimize")
        print(api.optimized_text(args.file), end="")
    except CompileError as error:
        for diagnostic in compute_file_problems(args.file, "optimize", error.diagnostics):
            print(render_text(diagnostic) + "\n", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


# --- explain ------------------------------------------------------------------------------


def cmd_explain(args: argparse.Namespace) -> int:
    from toolkiln.diagnostics.codes import CODES, lookup_code

    entry = lookup_code(args.code)
    if entry is None:
        raise UsageError(f"unknown code {args.code!r}; codes are {', '.join(CODES)}")
    print(f"{entry.code} ({entry.name}, {entry.severity}): {entry.title}\n\n{entry.explanation}")
    return EXIT_OK
