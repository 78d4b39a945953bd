"""`toolkiln lsp [--registry DIR] [--strict] [--n8n-version V]`: the language server, over
standard input and output (docs/editors.md#the-language-server).

pygls (the `lsp` extra) is imported when the command runs, not when the parser is built;
without it the command says which extra to install (R0801) and exits 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from toolkiln.cli.common import EXIT_OK, UsageError
from toolkiln.cli.tools import registry_option, registry_where
from toolkiln.cli.workflow import workflow_check_options


def add_lsp_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lsp = commands.add_parser(
        "lsp",
        help="the language server for editors (stdio)",
        description="Serve the Language Server Protocol over standard input and output: diagnostics as you "
        "type (as `toolkiln check`), quick fixes, hover, completion, formatting (as `toolkiln fmt`) and go to "
        "definition of a called tool, in .tk, .json and .wf files (docs/editors.md).",
    )
    registry_option(lsp)
    workflow_check_options(lsp)
    lsp.set_defaults(handler=cmd_lsp)


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from toolkiln.lsp.server import Settings, serve
    except ImportError as error:
        if error.name not in ("pygls", "lsprotocol", "cattrs") and not str(error.name).startswith("pygls."):
            raise
        from toolkiln.diagnostics import codes

        raise UsageError(
            f"error[{codes.LSP_EXTRA_MISSING.code}]: {codes.LSP_EXTRA_MISSING.title} (pygls is not installed)\n"
            "  = hint: pip install 'toolkiln[lsp]' (in a clone of toolkiln: pip install -e '.[lsp]')"
        ) from None
    where = registry_where(args)
    registry = where if isinstance(where, Path) else None  # a database has no tool files to open
    serve(Settings(registry=registry, strict=args.strict, n8n_version=args.n8n_version))
    return EXIT_OK
