"""`toolkiln secrets set NAME | list | delete NAME | migrate`: the secrets a registry's tools use
(toolkiln.registry.secrets). A value is read from stdin, or from a prompt that does not echo
when stdin is a terminal: never from the command line, where `ps` and shell history see it.
`list` prints names and dates only. `migrate` seals every tenant's secrets written before
tenants had keys of their own under its own key (docs/tenants.md), once, by the operator.
`--registry URL` (`?tenant=NAME` for a tenant's) works on a database registry's secrets, sealed
under the fleet's key (`$TOOLKILN_SECRET_KEY` or `$TOOLKILN_SECRET_KEY_FILE`, docs/fleets.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK
from toolkiln.cli.tools import registry_option, registry_where

if TYPE_CHECKING:
    from toolkiln.registry.secrets import Secrets


def add_secrets_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = registry_option(argparse.ArgumentParser(add_help=False))
    secrets = commands.add_parser("secrets", help="secrets that tools use and models never see", parents=[common])
    actions = secrets.add_subparsers(dest="secrets_command", required=True, metavar="ACTION")
    setting = actions.add_parser(
        "set", help="set a secret: its value from stdin, or a prompt that does not echo", parents=[common]
    )
    setting.add_argument("name", help="an upper-case environment variable name, e.g. WEATHER_API_KEY")
    setting.set_defaults(handler=_guarded(cmd_set))
    listing = actions.add_parser("list", help="list the secrets (names and dates, never values)", parents=[common])
    listing.set_defaults(handler=_guarded(cmd_list))
    delete = actions.add_parser("delete", help="delete a secret", parents=[common])
    delete.add_argument("name")
    delete.set_defaults(handler=_guarded(cmd_delete))
    migrate = actions.add_parser(
        "migrate", help="seal each tenant's older secrets under the tenant's own key", parents=[common]
    )
    migrate.set_defaults(handler=_guarded(cmd_migrate))


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from toolkiln.registry.errors import RegistryError

        try:
            return handler(args)
        except RegistryError as error:
            hint = f"\n  = hint: {error.hint}" if error.hint else ""
            print(f"error[{error.code}]: {error.message}{hint}", file=sys.stderr)
            return EXIT_FAILED

    return run


def _read_value() -> str:
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("value (not echoed): ")
    return sys.stdin.read().removesuffix("\n")


@contextmanager
def _secrets(args: argparse.Namespace) -> Iterator[Secrets]:
    """The secrets of --registry: a folder's secrets.json, or a database's rows."""
    where = registry_where(args)
    if isinstance(where, Path):
        from toolkiln.registry.secrets import SecretStore

        yield SecretStore(where)
        return
    from toolkiln.registry.locations import open_store
    from toolkiln.registry.postgres.secrets import DatabaseSecretStore

    store = open_store(where, lock_timeout=30.0)
    try:
        yield DatabaseSecretStore(store)  # type: ignore[arg-type]
    finally:
        store.close()


def cmd_set(args: argparse.Namespace) -> int:
    from toolkiln.registry.secrets import check_secret_name

    name = check_secret_name(args.name)  # before the value is asked for
    with _secrets(args) as secrets:
        secrets.set(name, _read_value())
    print(f"set secret {name}", file=sys.stderr)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    with _secrets(args) as secrets:
        found = secrets.names()
    if not found:
        print("no secrets; set one with `toolkiln secrets set NAME`")
    for info in found:
        print(f"{info.name:<32} {info.updated_at}")
    return EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    from toolkiln.registry.errors import SecretNotFound

    name = args.name
    with _secrets(args) as secrets:
        gone = secrets.delete(name)  # (R0740 first: not a secret's name)
    if not gone:
        raise SecretNotFound(f"no secret {name} is set", hint="list them with `toolkiln secrets list`")
    print(f"deleted secret {name}", file=sys.stderr)
    return EXIT_OK


def cmd_migrate(args: argparse.Namespace) -> int:
    from toolkiln.registry.tenants import migrate_tenant_secrets

    for tenant, moved, kept in migrate_tenant_secrets(registry_where(args)):
        unreadable = f"; {kept} did not decrypt and are kept as they were" if kept else ""
        print(f"tenant {tenant}: {moved} secret(s) sealed under its own key{unreadable}", file=sys.stderr)
    return EXIT_OK
