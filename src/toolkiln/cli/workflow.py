"""`toolkiln workflow compile FILE [-o OUT]`: workflow DSL -> n8n workflow JSON;
`toolkiln workflow import FILE.json [-o OUT.wf]`: an n8n export -> DSL (docs/workflow-import.md);
`toolkiln workflow fmt FILE... [--check]`: canonical DSL text.

Exit codes as for the other commands: 0 ok, 1 diagnostics (an unreadable file: E0100), 2 usage
(an output that cannot be written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.backends.n8n import DEFAULT_N8N_VERSION
from toolkiln.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    read_source,
    reformat,
    report_diagnostics,
    whole_number,
    write_output,
)
from toolkiln.errors import CompileError
from toolkiln.syntax.limits import MAX_SOURCE_CHARS

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic


def add_workflow_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    workflow = commands.add_parser("workflow", help="compile workflow DSL files to n8n workflows")
    actions = workflow.add_subparsers(dest="workflow_command", required=True, metavar="ACTION")
    compile_ = actions.add_parser("compile", help="compile a .wf file to n8n workflow JSON")
    compile_.add_argument("file", type=Path)
    compile_.add_argument("-o", "--output", type=Path, help="write the JSON here (default: standard output)")
    compile_.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    workflow_check_options(compile_)
    _limit_option(compile_)
    compile_.set_defaults(handler=cmd_workflow_compile)
    import_ = actions.add_parser("import", help="turn an n8n workflow export into a .wf file")
    import_.add_argument("file", type=Path)
    import_.add_argument("-o", "--output", type=Path, help="write the DSL here (default: standard output)")
    import_.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    _n8n_version_option(import_, "the n8n release whose answers the diagnostics give")
    import_.set_defaults(handler=cmd_workflow_import)
    fmt = actions.add_parser("fmt", help="rewrite .wf files in canonical form")
    fmt.add_argument("files", nargs="+", type=Path, metavar="FILE")
    fmt.add_argument("--check", action="store_true", help="only report files that would change")
    _limit_option(fmt)
    fmt.set_defaults(handler=cmd_workflow_fmt)


def workflow_check_options(parser: argparse.ArgumentParser) -> None:
    """--strict and --n8n-version, for the commands that check workflows."""
    parser.add_argument(
        "--strict",
        action="store_true",
        help="make what n8n accepts an error too: steps no trigger reaches, loops, nodes and "
        "parameters the node catalog does not know",
    )
    _n8n_version_option(parser, "the n8n release whose node catalog workflows are checked against")


def _n8n_version_option(parser: argparse.ArgumentParser, what: str) -> None:
    """`--n8n-version`, checked against the catalogs that ship only when it is given: `toolkiln
    check` of tool files does not list the catalog folder (issue 34). None is the default release."""
    parser.add_argument(
        "--n8n-version", type=_known_n8n_version, metavar="VERSION", help=f"{what} (default {DEFAULT_N8N_VERSION})"
    )


def _known_n8n_version(text: str) -> str:
    from toolkiln.backends.n8n.catalog import catalog_versions

    known = catalog_versions()
    if text not in known:
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(known)})")
    return text


def _limit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-source-chars",
        type=whole_number(1),
        default=MAX_SOURCE_CHARS,
        metavar="N",
        help=f"refuse larger files (default {MAX_SOURCE_CHARS:,}: raise it for a large import)",
    )


def is_n8n_export(path: Path) -> bool:
    """A .json file holding an n8n workflow (nodes and connections) rather than a tool."""
    from toolkiln.documents import is_n8n_export_text

    if path.suffix != ".json":
        return False
    text, _ = read_source(path)  # a regular file of bounded size only; never blocks
    return text is not None and is_n8n_export_text(str(path), text)  # unreadable: the tool parser reports it


def canonical_workflow(path: Path, max_source_chars: int = MAX_SOURCE_CHARS) -> tuple[str | None, list[Diagnostic]]:
    """A .wf file's canonical text, or None and the diagnostics of why it has none."""
    from toolkiln.documents import canonical_workflow_text

    text, unreadable = read_source(path, max_source_chars)
    return (None, unreadable) if text is None else canonical_workflow_text(text, str(path), max_source_chars)


def cmd_workflow_import(args: argparse.Namespace) -> int:
    from toolkiln.workflow import import_n8n

    text, unreadable = read_source(args.file)
    if text is None:
        report_diagnostics(unreadable, args.format)
        return EXIT_FAILED
    try:
        imported = import_n8n(text, str(args.file), n8n_version=args.n8n_version)
    except CompileError as error:
        report_diagnostics(error.diagnostics, args.format)
        return EXIT_FAILED
    try:
        dsl = imported.to_text()
    except CompileError as error:  # E0732: two nodes of one name have no text
        report_diagnostics([*imported.diagnostics, *error.diagnostics], args.format)
        return EXIT_FAILED
    report_diagnostics(list(imported.diagnostics), args.format)
    write_output(args.output, dsl)
    return EXIT_OK


def cmd_workflow_fmt(args: argparse.Namespace) -> int:

    return reformat(args.files, lambda path: canonical_workflow(path, args.max_source_chars), check=args.check)


def cmd_workflow_compile(args: argparse.Namespace) -> int:
    from toolkiln.diagnostics.render import render_json, render_text
    from toolkiln.workflow import compile_workflow

    text, diagnostics = read_source(args.file, args.max_source_chars)
    workflow = None
    if text is not None:
        try:
            workflow = compile_workflow(
                text,
                str(args.file),
                max_source_chars=args.max_source_chars,
                strict=args.strict,
                n8n_version=args.n8n_version,
            )
        except CompileError as error:
            diagnostics = error.diagnostics
    if workflow is None:
        if args.format == "json":
            print(render_json(diagnostics))
        else:
            print("\n\n".join(render_text(d) for d in diagnostics), file=sys.stderr)
        return EXIT_FAILED
    output = json.dumps(workflow.to_n8n(), indent=2, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(output)
    else:
        try:
            args.output.write_text(output, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {args.output}: {error}") from None
    return EXIT_OK
