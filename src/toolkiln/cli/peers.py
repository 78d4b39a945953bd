"""`toolkiln tools import --from kitz DIR` and `--from ownpilot FILE...`: the tools of
another system, as they are (docs/migrating.md).

Each file becomes a tool, or a problem printed with its code; the rest of the folder is still
imported. Warnings say where toolkiln runs a step differently from the system that wrote it.
Exit 0 when every file was imported, 1 when any was not.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError

if TYPE_CHECKING:
    from toolkiln.registry.registry import Registry

Command = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
Opener = Callable[[argparse.Namespace], "Registry"]
SYSTEMS = ("kitz", "ownpilot")


def add_peer_commands(command: Command, actors: tuple[str, ...], open_registry: Opener) -> None:
    """Add `import` with the `tools` group's `command` maker and registry opener."""
    parser = command(
        "import",
        lambda args: cmd_import(args, open_registry),
        "create the tools of another system (Kitz's data/custom-tools folder, OwnPilot's tool JSON files)",
    )
    parser.add_argument("--from", dest="system", choices=SYSTEMS, required=True, help="the system that wrote them")
    parser.add_argument(
        "folder", type=Path, nargs="+", help="Kitz's data/ folder (or its custom-tools/); OwnPilot's tool JSON files"
    )
    parser.add_argument(
        "--created-by",
        choices=actors,
        default="user",
        help="who creates the tools no model made (default: user); Kitz's toolFactory tools are a model's",
    )


def cmd_import(args: argparse.Namespace, open_registry: Opener) -> int:
    if args.system == "ownpilot":
        return _import_ownpilot(args, open_registry)
    from toolkiln.diagnostics.render import render_text
    from toolkiln.registry.kitz import import_kitz, kitz_folders

    if len(args.folder) != 1 or not kitz_folders(args.folder[0])[0].is_dir():
        raise UsageError(f"{' '.join(map(str, args.folder))} is not one folder")
    with open_registry(args) as reg:
        done = import_kitz(reg, args.folder[0], args.created_by)
    for record in done.created:
        print(f"created {record.name} ({record.kind}, version {record.version}, {record.status})")
    for diagnostic in done.warnings:
        print(render_text(diagnostic) + "\n", file=sys.stderr)
    for problem in done.problems:
        for diagnostic in problem.diagnostics:
            print(render_text(diagnostic) + "\n", file=sys.stderr)
    print(f"{len(done.created)} imported, {len(done.problems)} not imported", file=sys.stderr)
    return EXIT_FAILED if done.problems else EXIT_OK


def _import_ownpilot(args: argparse.Namespace, open_registry: Opener) -> int:
    """Each file a script tool; what each permission and API key became is printed."""
    from toolkiln.diagnostics.render import render_text
    from toolkiln.registry.ownpilot import import_ownpilot

    with open_registry(args) as reg:
        done = import_ownpilot(reg, list(args.folder), args.created_by)
    for record in done.created:
        print(f"created {record.name} ({record.kind}, version {record.version}, {record.status})")
    for line in done.mapped:
        print(f"  {line}")
    for problem in done.problems:
        for diagnostic in problem.diagnostics:
            print(render_text(diagnostic) + "\n", file=sys.stderr)
    print(f"{len(done.created)} imported, {len(done.problems)} not imported", file=sys.stderr)
    return EXIT_FAILED if done.problems else EXIT_OK
