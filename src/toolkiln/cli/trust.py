"""`toolkiln trust DIR [--list] [--revoke]`: the project tool folders whose executables may run;
`toolkiln trust REGISTRY [--tool NAME] [--list]`: the records of a registry folder it did not
write itself (a clone, a copy, a hand edit).

A project's `./toolkiln-tools` is never executed, not even to read a description, until you
trust it; trusting records the folder's real path and each executable's SHA-256 (in
`$TOOLKILN_HOME/trusted-folders.json`, mode 0600). A new or changed file is untrusted again.

A registry signs the records it writes (registry/signatures.py); a record that does not verify
is listed, but its program or workflow does not run until you trust it: this command shows
what each such record claims, then signs it as it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError
from toolkiln.registry.layout import is_registry

if TYPE_CHECKING:
    from toolkiln.executables import TrustStore
    from toolkiln.registry.models import ToolRecord


def add_trust_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    trust = commands.add_parser(
        "trust",
        help="allow a project's executable tools to run",
        description="Trust DIR: record the SHA-256 of each executable in it. A new or changed file "
        "is untrusted again until you trust the folder again.",
    )
    trust.add_argument(
        "folder", nargs="?", type=Path, metavar="DIR", help="the tool folder (e.g. ./toolkiln-tools), or a registry"
    )
    trust.add_argument(
        "--tool",
        action="append",
        metavar="NAME",
        help="a registry's tool to trust (all its versions; may be given more than once; default: every record)",
    )
    action = trust.add_mutually_exclusive_group()
    action.add_argument(
        "--list", action="store_true", help="list the trusted folders; with DIR, each file's trust in it"
    )
    action.add_argument("--revoke", action="store_true", help="forget DIR: its executables no longer run")
    trust.add_argument(
        "--home", type=Path, help="where the trust record is kept (default: $TOOLKILN_HOME, else ~/.toolkiln)"
    )
    trust.set_defaults(handler=cmd_trust)


def cmd_trust(args: argparse.Namespace) -> int:
    from toolkiln.executables import ExecutableError

    if args.folder is None and not args.list:
        raise UsageError("trust: give the folder to trust (or --list)")
    if args.folder is not None and is_registry(args.folder):
        return trust_registry(args)
    if args.tool:
        raise UsageError(f"trust: --tool is for a registry folder, and {args.folder} is not one")
    try:
        store = _store(args)
        if args.list:
            return _list(store, args.folder)
        if args.revoke:
            record = store.revoke(args.folder)
            print(f"revoked {record.path}: its executables no longer run")
            return EXIT_OK
        change = store.trust(args.folder)
    except ExecutableError as error:
        hint = f"\n  = hint: {error.hint}" if error.hint else ""
        print(f"error[{error.code}]: {error.message}{hint}", file=sys.stderr)
        return EXIT_FAILED
    files = change.folder.files
    print(f"trusted {change.folder.path} ({len(files)} executable{'' if len(files) == 1 else 's'})")
    for label, names in (("added", change.added), ("changed", change.changed), ("removed", change.removed)):
        for name in names:
            print(f"  {label:<8} {name}")
    return EXIT_OK


def _store(args: argparse.Namespace) -> TrustStore:
    from toolkiln.executables import TrustStore, toolkiln_home

    return TrustStore(args.home or toolkiln_home())


def _list(store: TrustStore, folder: Path | None) -> int:
    from toolkiln.executables.files import read_program, tool_files

    if folder is None:
        folders = store.folders()
        if not folders:
            print("no trusted folders; trust one with `toolkiln trust DIR`")
        for record in folders:
            print(f"{record.path}  (trusted {record.trusted_at}, {len(record.files)} executables)")
        return EXIT_OK
    for path in tool_files(folder):
        print(f"{store.status(folder, path.name, read_program(path, follow_link=True)[1]):<16} {path.name}")
    return EXIT_OK


# --- a registry's records -----------------------------------------------------------------


def trust_registry(args: argparse.Namespace) -> int:
    """Show what each record to trust claims, then sign it (`--list`: show every record's trust)."""
    from toolkiln.registry.errors import RegistryError
    from toolkiln.registry.registry import Registry

    if args.revoke:
        raise UsageError("trust: --revoke is for tool folders; edit or delete a registry's tool instead")
    try:
        with Registry(args.folder) as reg:
            untrusted = reg.untrusted()
            names = args.tool or sorted(untrusted)
            records = [reg.get(name) for name in names]
            if args.list:
                for record in reg.list():
                    mark = "NOT TRUSTED" if record.name in untrusted else "trusted"
                    print(f"{mark:<12} {record.name:<24} {_claims(record)}")
                return EXIT_OK
            if not records:
                print(f"every record of {reg.path} was written by it here: nothing to trust")
                return EXIT_OK
            print(f"trusting what these records of {reg.path} claim:")
            for record in records:
                print(f"  {record.name:<24} {_claims(record)}")
            signed = reg.trust(names)
    except RegistryError as error:
        hint = f"\n  = hint: {error.hint}" if error.hint else ""
        print(f"error[{error.code}]: {error.message}{hint}", file=sys.stderr)
        return EXIT_FAILED
    versions = sum(len(numbers) for numbers in signed.values())
    print(f"trusted {len(signed)} tool(s), {versions} version(s): signed here as this registry's own")
    return EXIT_OK


def _claims(record: ToolRecord) -> str:
    """What a record says that matters for trust: kind, status, creator, and what it may reach."""
    from toolkiln.registry.kinds import kind_of

    said = [f"{record.kind}", f"v{record.version}", record.status, f"by {record.created_by}"]
    said.extend(kind_of(record.kind).claims(record))
    if record.deployment is not None:
        said.append(f"deployed at {record.deployment.url}")
    return ", ".join(str(part) for part in said)
