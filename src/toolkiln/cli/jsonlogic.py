"""`toolkiln import --from jsonlogic RULE.json`: a JsonLogic rule as a compute tool's source;
`toolkiln export --to jsonlogic TOOL`: the way back (docs/jsonlogic.md)."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, read_source, report_diagnostics, write_output
from toolkiln.diagnostics import codes
from toolkiln.errors import CompileError

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic

FORMATS = ("jsonlogic",)


def add_import_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("import", help="turn a rule of another format (JsonLogic) into a compute tool")
    parser.add_argument("--from", dest="source_format", choices=FORMATS, required=True, help="the rule's format")
    parser.add_argument("file", type=Path, help="the rule, a JSON file")
    parser.add_argument("--schema", type=Path, help="a JSON Schema of the rule's data: types the tool's `data`")
    parser.add_argument(
        "--numbers",
        choices=("exact", "float"),
        default="exact",
        help="exact decimals (default) or binary floats, as JavaScript computes",
    )
    parser.add_argument("--name", help="the tool's name (default: from the file's name)")
    parser.add_argument("--to", choices=("text", "json"), default="text", help="write the text DSL or the JSON DSL")
    parser.add_argument("-o", "--output", type=Path, help="write the tool here (default: standard output)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    parser.set_defaults(handler=cmd_import)

    export = commands.add_parser("export", help="write a compute tool as a rule of another format (JsonLogic)")
    export.add_argument("--to", dest="target_format", choices=FORMATS, required=True, help="the rule's format")
    export.add_argument("file", type=Path, help="the tool: text DSL or JSON DSL")
    export.add_argument("-o", "--output", type=Path, help="write the rule here (default: standard output)")
    export.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    export.set_defaults(handler=cmd_export)


def cmd_import(args: argparse.Namespace) -> int:
    from toolkiln.api import import_jsonlogic, to_json, to_text

    rule, problems = _read_json(args.file)
    schema, schema_problems = _read_json(args.schema) if args.schema is not None else (None, [])
    if problems or schema_problems:
        report_diagnostics(problems + schema_problems, args.format)
        return EXIT_FAILED
    name = args.name or _tool_name(args.file)
    try:
        tool = import_jsonlogic(rule, schema, numbers=args.numbers, name=name)
    except CompileError as error:
        report_diagnostics([replace(d, file=str(args.file)) for d in error.diagnostics], args.format)
        return EXIT_FAILED
    output = to_text(tool.program) if args.to == "text" else json.dumps(to_json(tool.program), indent=2) + "\n"
    write_output(args.output, output)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from toolkiln.api import compile as compile_tool
    from toolkiln.api import export_jsonlogic

    text, problems = read_source(args.file)
    if text is None:
        report_diagnostics(problems, args.format)
        return EXIT_FAILED
    try:
        rule = export_jsonlogic(compile_tool(text, name=str(args.file)))
    except CompileError as error:
        report_diagnostics([replace(d, file=str(args.file)) for d in error.diagnostics], args.format)
        return EXIT_FAILED
    from toolkiln.semantics.values import dumps

    write_output(args.output, dumps(rule) + "\n")
    return EXIT_OK


def _read_json(path: Path) -> tuple[Any, list[Diagnostic]]:
    text, problems = read_source(path)
    if text is None:
        return None, problems
    try:
        return json.loads(text, parse_float=Decimal), []
    except (ValueError, RecursionError) as error:
        from toolkiln.diagnostics.model import Diagnostic

        message = f"not JSON: {error}"[:300]
        return None, [replace(Diagnostic.of(codes.JSONLOGIC_NOT_A_RULE, message, None), file=str(path))]


def _tool_name(path: Path) -> str:
    """A tool name from a file name: `Discount rules.json` -> `discount_rules`."""
    name = re.sub(r"[^a-z0-9_]+", "_", path.stem.lower()).strip("_")
    name = name if re.fullmatch(r"[a-z][a-z0-9_]*", name) else f"rule_{name}".rstrip("_")
    return name[:64]
