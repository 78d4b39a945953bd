"""`toolkiln workflow compile FILE [-o OUT]`: workflow DSL -> n8n workflow JSON.

Exit codes as for the other commands: 0 ok, 1 diagnostics, 2 usage (an unreadable file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolkiln.diagnostics.render import render_json, render_text
from toolkiln.errors import CompileError


def add_workflow_command(commands: argparse._SubParsersAction) -> None:
    workflow = commands.add_parser("workflow", help="compile workflow DSL files to n8n workflows")
    actions = workflow.add_subparsers(dest="workflow_command", required=True, metavar="ACTION")
    compile_ = actions.add_parser("compile", help="compile a .wf file to n8n workflow JSON")
    compile_.add_argument("file", type=Path)
    compile_.add_argument("-o", "--output", type=Path, help="write the JSON here (default: standard output)")
    compile_.add_argument("--format", choices=("text", "json"), default="text", help="diagnostics format")
    compile_.set_defaults(handler=cmd_workflow_compile)


def cmd_workflow_compile(args: argparse.Namespace) -> int:
    from toolkiln.cli import EXIT_FAILED, EXIT_OK, UsageError
    from toolkiln.workflow import compile_workflow

    try:
        text = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {args.file}: {error}") from None
    try:
        workflow = compile_workflow(text, str(args.file))
    except CompileError as error:
        if args.format == "json":
            print(render_json(error.diagnostics))
        else:
            print("\n\n".join(render_text(d) for d in error.diagnostics), file=sys.stderr)
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
