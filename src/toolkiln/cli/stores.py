"""`toolkiln registry migrate SRC DST`: copy a registry into an empty one in another store, a
folder into a PostgreSQL database or back (registry/migrate.py says what is copied).
`toolkiln registry upgrade [URL]`: a database's tables brought to this toolkiln's schema.

    toolkiln registry migrate ./.toolkiln postgresql://toolkiln@db.internal/tools
    toolkiln registry migrate postgresql://toolkiln@db.internal/tools ./restored

Exit 0 with what was copied on standard error; 1 with a coded error (a destination that is not
empty, a source record that does not load, a database that does not answer)."""

from __future__ import annotations

import argparse
import sys

from toolkiln.cli.common import EXIT_OK, UsageError
from toolkiln.cli.tools import _guarded, registry_location, registry_where


def add_registry_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    registry = commands.add_parser(
        "registry",
        help="move a registry between stores (a folder, a PostgreSQL database)",
        description="Copy a registry into an empty one: a folder into a postgresql:// database, or back.",
    )
    sub = registry.add_subparsers(dest="registry_command", required=True, metavar="SUBCOMMAND")
    moved = sub.add_parser("migrate", help="copy every tool, version, audit line, run count, table and held call")
    moved.add_argument("source", type=registry_location, metavar="SRC", help="a registry folder or postgresql:// URL")
    moved.add_argument("target", type=registry_location, metavar="DST", help="an empty (or new) one")
    moved.set_defaults(handler=_guarded(cmd_migrate))
    raised = sub.add_parser(
        "upgrade", help="bring a database's tables to this toolkiln's schema version (with no server using it)"
    )
    raised.add_argument(
        "location", type=registry_location, nargs="?", metavar="URL", help="default: --registry, else $TOOLKILN_HOME"
    )
    raised.set_defaults(handler=_guarded(cmd_upgrade))


def cmd_migrate(args: argparse.Namespace) -> int:
    from toolkiln.registry.migrate import migrate_tenants
    from toolkiln.registry.postgres.urls import is_database_url, without_password

    where = args.target
    where = without_password(where) if isinstance(where, str) and is_database_url(where) else where
    for tenant, done in migrate_tenants(args.source, args.target):
        print(
            f"copied into {where} (tenant {tenant}): {done.tools} tools, {done.versions} past versions, "
            f"{done.audit} audit lines, {done.tables} tables, {done.calls} held calls, {done.runs} runs counted",
            file=sys.stderr,
        )
    return EXIT_OK


def cmd_upgrade(args: argparse.Namespace) -> int:
    where = args.location if args.location is not None else registry_where(args)
    if not isinstance(where, str):
        raise UsageError(f"{where} is a registry folder: only a postgresql:// registry has a schema to upgrade")
    try:
        from toolkiln.registry.postgres.schema import upgrade
        from toolkiln.registry.postgres.urls import without_password
    except ImportError:
        raise UsageError(
            "a registry in PostgreSQL needs the `postgres` extra: pip install 'toolkiln[postgres]'"
        ) from None
    before, after = upgrade(where)
    done = f"upgraded from schema version {before} to {after}" if before != after else f"at schema version {after}"
    print(f"{without_password(where)}: {done}", file=sys.stderr)
    return EXIT_OK
