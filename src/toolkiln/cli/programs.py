"""The `tools` subcommands for programs as tools: script and executable tools.

    toolkiln tools create FILE.skill                  (a script tool; .json works for both kinds)
    toolkiln tools discover [--home DIR] [--project DIR] [--register] [--json]
    toolkiln tools repin NAME [--to CALLEE@N ...] [--by user|llm]

`discover` lists the executables in `$TOOLKILN_HOME/tools` and `./toolkiln-tools`, trusted or
not, running none of them; `--register` describes the trusted ones (in the sandbox) and puts
them in the registry, pinned to their files. An untrusted file is never executed. `repin`
pins what a tool depends on to what it is now: an executable's file, or the versions of the
tools a caller runs (registry/repinning.py: each one's approved version, or CALLEE@N).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError

if TYPE_CHECKING:
    from toolkiln.executables import Discovery
    from toolkiln.registry.models import ToolRecord
    from toolkiln.registry.registry import Registry
    from toolkiln.semantics.values import DecimalEncoding

Command = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
Opener = Callable[[argparse.Namespace], "Registry"]  # the `tools` group's open_registry


def add_program_commands(command: Command, actors: tuple[str, ...], open_registry: Opener) -> None:
    """Add `discover` and `repin` with the `tools` group's `command` maker and registry opener."""
    discover = command(
        "discover",
        lambda args: cmd_discover(args, open_registry),
        "list the executables in the tool folders, trusted or not",
    )
    discover.add_argument(
        "--home",
        type=Path,
        help="the toolkiln home whose tools/ is searched (default: $TOOLKILN_HOME, else ~/.toolkiln)",
    )
    discover.add_argument(
        "--project", type=Path, help="the project whose toolkiln-tools/ is searched (default: the current folder)"
    )
    discover.add_argument(
        "--register",
        action="store_true",
        help="describe each trusted executable (in the sandbox) and register it, pinned to its file",
    )
    discover.add_argument("--json", action="store_true", help="print JSON instead of a table")
    discover.add_argument(
        "--kodelet",
        action="store_true",
        help="search Kodelet's folders instead (~/.kodelet/tools, its plugins, ./.kodelet/tools, ./kodelet-tools)",
    )

    repin = command(
        "repin",
        lambda args: cmd_repin(args, open_registry),
        "pin an executable to its file as it is now, or move a caller to the approved versions of its callees",
    )
    repin.add_argument("name")
    repin.add_argument(
        "--to",
        action="append",
        metavar="CALLEE@N",
        help="move only this callee's pin, to version N (repeatable; a caller only)",
    )
    repin.add_argument("--by", choices=actors, default="user")


def cmd_discover(args: argparse.Namespace, open_registry: Opener) -> int:
    from toolkiln.executables import ToolFolders, TrustStore, discover, toolkiln_home
    from toolkiln.executables.kodelet import discover_kodelet

    # Absolute: a program is read by its absolute path only (`--project .` found nothing).
    home = (args.home or toolkiln_home()).absolute()
    project = args.project.absolute() if args.project else None
    if args.kodelet:
        found = discover_kodelet(TrustStore(home), project=project)
    else:
        found = discover(ToolFolders.default(home=home, project=project), TrustStore(home))
    registered = _register(found, open_registry(args), kodelet=args.kodelet) if args.register else {}
    rows = [
        {
            "name": tool.name,
            "scope": tool.scope,
            "trust": tool.trust,
            "path": str(tool.path),
            "sha256": tool.sha256,
            "overrides": str(tool.overrides) if tool.overrides else None,
            **({"registered": registered.get(tool.name)} if args.register else {}),
        }
        for tool in found.found
    ]
    if args.json:
        print(json.dumps({"executables": rows, "skipped": [[str(p), why] for p, why in found.skipped]}, indent=2))
    else:
        _print_found(rows, found)
    failed = any(str(outcome).startswith("error") for outcome in registered.values())
    return EXIT_FAILED if failed else EXIT_OK


def _print_found(rows: list[dict[str, Any]], found: Discovery) -> None:
    if not rows:
        print("no executables found")
    for row in rows:
        line = f"{row['name']:<24} {row['scope']:<8} {row['trust']:<17} {row['path']}"
        if row["overrides"]:
            line += f"  (overrides {row['overrides']})"
        if "registered" in row:
            line += f"\n    {row['registered']}"
        print(line)
    for path, why in found.skipped:
        print(f"skipped {path}: {why}", file=sys.stderr)
    untrusted = [row for row in rows if row["trust"] != "trusted"]
    if untrusted:
        folder = Path(untrusted[0]["path"]).parent
        print(f"{len(untrusted)} not trusted (never run); read them, then: toolkiln trust {folder}", file=sys.stderr)


def _register(found: Discovery, reg: Registry, *, kodelet: bool = False) -> dict[str, str]:
    """Describe and register each trusted executable; what happened to each, by name (a
    Kodelet tool: by the name its description gives, as a registry name, with its timeout)."""
    from toolkiln.errors import CompileError
    from toolkiln.executables import ExecutableError, describe
    from toolkiln.executables.kodelet import describe_kodelet, registry_name
    from toolkiln.registry.errors import RegistryError

    outcome: dict[str, str] = {}
    with reg:
        for tool in found.found:
            if tool.trust != "trusted":
                outcome[tool.name] = "not registered: not trusted (not run)"
                continue
            try:
                described = describe_kodelet(tool) if kodelet else describe(tool)
                definition: dict[str, Any] = {
                    "kind": "executable",
                    "name": registry_name(described.name) if kodelet else tool.name,
                    "description": described.description,
                    "path": str(tool.path.resolve()),
                    "sha256": tool.sha256,
                    "parameters": described.input_schema,
                }
                if described.run_policy is not None:
                    definition["timeout_secs"] = described.run_policy.timeout_seconds
                record = _create_or_update(reg, definition)
            except (ExecutableError, RegistryError) as error:
                outcome[tool.name] = f"error[{error.code}]: {error.message}"
                continue
            except CompileError as error:
                first = error.diagnostics[0]
                outcome[tool.name] = f"error[{first.code}]: {first.message}"
                continue
            outcome[tool.name] = f"registered: version {record.version}, {record.status.replace('_', ' ')}"
    return outcome


def _create_or_update(reg: Registry, definition: dict[str, Any]) -> ToolRecord:
    name = definition["name"]
    if name not in reg:
        return reg.create(definition, note=f"discovered at {definition['path']}")
    if reg.get(name).kind != definition["kind"]:
        from toolkiln.registry.errors import DuplicateTool

        raise DuplicateTool(f"`{name}` is a {reg.get(name).kind} tool already", hint="rename the executable")
    return reg.update(name, {key: value for key, value in definition.items() if key not in ("kind", "name")})


def cmd_repin(args: argparse.Namespace, open_registry: Opener) -> int:
    to = _versions(args.to) if args.to else None
    with open_registry(args) as reg:
        if to is not None or "sha256" not in reg.get(args.name).definition:  # (not a tool pinned to a file)
            moved = reg.repin(args.name, to=to, by=args.by)
            pins = ", ".join(f"{callee}@{pin.version}" for callee, pin in sorted(moved.pins.items()))
            print(f"{moved.name} runs {pins or 'the current version of each tool it calls (no pins)'}")
            return EXIT_OK
        record = reg.update(args.name, {"sha256": None}, by=args.by)
    print(f"pinned {record.name} to {record.definition.get('sha256')} (version {record.version}, {record.status})")
    if record.status == "pending_approval":
        print(f"read the file, then: toolkiln tools approve {record.name}")
    return EXIT_OK


def _versions(given: list[str]) -> dict[str, int]:
    """--to shipping_cost@2 ... as {"shipping_cost": 2}."""
    versions = {}
    for item in given:
        callee, _, number = item.rpartition("@")
        if not callee or not number.isdigit() or int(number) < 1:
            raise UsageError(f"--to takes CALLEE@VERSION (shipping_cost@2), not {item!r}")
        versions[callee] = int(number)
    return versions


def print_run_result(result: Any, kind: str, decimals: DecimalEncoding = "number") -> None:
    """A run's result on stdout as its kind writes it (a compute tool's numbers as computed:
    19.00 stays 19.00, or "19.00" with decimals="string"); where it ran on stderr, unless the
    result says so itself (a program's names its sandbox)."""
    from toolkiln.registry.kinds import kind_of

    tool_kind = kind_of(kind)
    print(tool_kind.result_text(result, decimals))
    if tool_kind.runs_in is not None:
        print(f"ran in {tool_kind.runs_in}", file=sys.stderr)
