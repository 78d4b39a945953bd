"""`toolkiln schema NAME`: print a JSON Schema the package ships, for editors (docs/editors.md)."""

from __future__ import annotations

import argparse
from importlib import resources

from toolkiln.cli.common import EXIT_OK

# name -> the file in toolkiln/schemas/ (written by toolkiln.syntax.json_schema; a test keeps it so)
SCHEMAS = {"tool": "tool.schema.json", "program": "program.schema.json"}


def add_schema_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schema = commands.add_parser(
        "schema", help="print a JSON Schema for editors: tool (the JSON DSL), program (script and executable tools)"
    )
    schema.add_argument("name", choices=sorted(SCHEMAS))
    schema.set_defaults(handler=cmd_schema)


def schema_file_text(name: str) -> str:
    return (resources.files("toolkiln") / "schemas" / SCHEMAS[name]).read_text(encoding="utf-8")


def cmd_schema(args: argparse.Namespace) -> int:
    print(schema_file_text(args.name), end="")
    return EXIT_OK
