"""`toolkiln schema NAME`: print a JSON Schema for editors (docs/editors.md): one the package
ships, or (`node TYPE [VERSION]`) the parameters of an n8n node, from the node catalog."""

from __future__ import annotations

import argparse
import json
from importlib import resources

from toolkiln.cli.common import EXIT_OK, UsageError

# name -> the file in toolkiln/schemas/ (written by its generator; a test keeps it so)
SCHEMAS = {"tool": "tool.schema.json", "program": "program.schema.json"}


def add_schema_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schema = commands.add_parser(
        "schema",
        help="print a JSON Schema for editors: tool (the JSON DSL), program (script and executable "
        "tools), node TYPE [VERSION] (an n8n node's parameters, a .wf node block)",
    )
    schema.add_argument("name", choices=[*sorted(SCHEMAS), "node"])
    schema.add_argument("node", nargs="*", metavar="TYPE [VERSION]", help="for node: the n8n node type and version")
    schema.add_argument("--n8n-version", metavar="VERSION", help="for node: the n8n release whose catalog to read")
    schema.set_defaults(handler=cmd_schema)


def schema_file_text(name: str) -> str:
    return (resources.files("toolkiln") / "schemas" / SCHEMAS[name]).read_text(encoding="utf-8")


def cmd_schema(args: argparse.Namespace) -> int:
    if args.name != "node":
        if args.node:
            raise UsageError(f"`toolkiln schema {args.name}` takes no more arguments")
        print(schema_file_text(args.name), end="")
        return EXIT_OK
    print(json.dumps(_node(args.node, args.n8n_version), indent=2, ensure_ascii=False))
    return EXIT_OK


def _node(words: list[str], n8n_version: str | None) -> dict[str, object]:
    from toolkiln.backends.n8n.catalog import CatalogError, catalog_versions, load_catalog
    from toolkiln.backends.n8n.node_schema import node_schema

    if not 1 <= len(words) <= 2:
        raise UsageError("`toolkiln schema node` takes a node type and, optionally, its version")
    if n8n_version is not None and n8n_version not in catalog_versions():
        raise UsageError(f"no node catalog of n8n {n8n_version}: {', '.join(catalog_versions())}")
    catalog = load_catalog(n8n_version)
    try:
        version = words[1] if len(words) == 2 else str(catalog.versions(words[0])[-1])
        return node_schema(catalog, words[0], version)
    except CatalogError as error:
        raise UsageError(str(error)) from None
