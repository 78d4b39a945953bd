"""`toolkiln builtins`: the built-in functions with their signatures, as text or JSON."""

from __future__ import annotations

import argparse
import json

from toolkiln.cli.common import EXIT_OK


def add_builtins_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("builtins", help="list the built-in functions with their signatures")
    parser.add_argument("--json", action="store_true", help="one JSON list: name, signature, argument types, doc")
    parser.set_defaults(handler=cmd_builtins)


def cmd_builtins(args: argparse.Namespace) -> int:
    from toolkiln.semantics.builtins import BUILTINS  # (with the diagnostics)

    names = sorted(BUILTINS)
    if args.json:
        print(json.dumps([BUILTINS[name].describe() for name in names], indent=2, ensure_ascii=False))
        return EXIT_OK
    width = max(len(BUILTINS[name].signature) for name in names)
    for name in names:
        builtin = BUILTINS[name]
        arguments = ", ".join(
            f"{a.name}: {' or '.join(str(t) for t in a.accepts)}" + (" (optional)" if a.optional else "")
            for a in builtin.args
        )
        print(f"{builtin.signature:<{width}}  {builtin.doc}")
        if arguments:
            print(f"{'':<{width}}  ({arguments})")
    return EXIT_OK
