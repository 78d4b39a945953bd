"""`toolkiln tenants create NAME | list | delete NAME [--force]`: the tenants (teams) that share
a registry's server.

A tenant is a complete registry in `<registry>/tenants/NAME/` (toolkiln.registry.tenants), or
in a database registry the schema `toolkiln_tenant_NAME` (`--registry URL?tenant=NAME` names
it); the registry itself is the tenant `default`. Its first token: `toolkiln tokens create NAME --tenant
TENANT --kind person --scope admin`. Whoever runs these commands (the server's operator, with
the registry folder and the server's state folder) is the only one above every tenant.

`delete` archives the tenant's folder whole in `tenants/.deleted/` (docs/decisions.md); it
refuses `default` (R0753), and a tenant with tokens or calls waiting for approval (R0752)
unless `--force`, which revokes its tokens first: a running server refuses them at once.
"""

from __future__ import annotations

import argparse
import sys

from toolkiln.cli.common import EXIT_OK
from toolkiln.cli.serve import state_dir_option
from toolkiln.cli.tokens import _guarded, _store  # (a registry or token error as `error[CODE]: ...`, exit 1)
from toolkiln.cli.tools import registry_option, registry_where


def add_tenants_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = registry_option(argparse.ArgumentParser(add_help=False))
    about = "teams that share one server, each with a registry of its own"
    tenants = commands.add_parser("tenants", help=about, parents=[common])
    actions = tenants.add_subparsers(dest="tenants_command", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="create a tenant: an empty registry of its own", parents=[common])
    create.add_argument("name", help="a lower-case letter, then up to 39 of a-z, 0-9 and -")
    create.set_defaults(handler=_guarded(cmd_create))
    listing = actions.add_parser("list", help="list the tenants (default first)", parents=[common])
    listing.set_defaults(handler=_guarded(cmd_list))
    delete = actions.add_parser("delete", help="delete a tenant: its folder is archived", parents=[common])
    delete.add_argument("name")
    delete.add_argument("--force", action="store_true", help="revoke its tokens and archive its waiting calls too")
    state_dir_option(delete)
    delete.set_defaults(handler=_guarded(cmd_delete))


def cmd_create(args: argparse.Namespace) -> int:
    from toolkiln.registry.tenants import create_tenant

    where = create_tenant(registry_where(args), args.name)
    print(f"tenant {args.name!r} is the registry {_shown(where)}", file=sys.stderr)
    first = f"toolkiln tokens create NAME --tenant {args.name} --kind person --scope admin"
    print(f"its first token: {first}", file=sys.stderr)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from toolkiln.registry.tenants import tenant_names

    for name in tenant_names(registry_where(args)):
        print(name)
    return EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    from toolkiln.registry.errors import TenantInUse
    from toolkiln.registry.tenants import DEFAULT_TENANT, archive_tenant, check_tenant_name, waiting_calls

    root, name = registry_where(args), check_tenant_name(args.name)
    if name == DEFAULT_TENANT:
        archive_tenant(root, name)  # (refuses: R0753)
    store = _store(args)
    tokens, calls = store.entries(name), waiting_calls(root, name)
    if (tokens or calls) and not args.force:
        raise TenantInUse(
            f"the tenant {name!r} has {len(tokens)} token(s) and {calls} call(s) waiting for approval",
            hint=f"revoke and decide them first, or toolkiln tenants delete {name} --force",
        )
    for token in tokens:  # (first: a server refuses them before the folder goes)
        store.revoke(token.name, name)
    archive = archive_tenant(root, name)
    print(f"tenant {name!r} deleted: {len(tokens)} token(s) revoked, archived as {archive}", file=sys.stderr)
    return EXIT_OK


def _shown(where: object) -> str:
    """A registry's place as it may be printed (a database's URL without its password)."""
    from toolkiln.registry.postgres.urls import is_database_url, without_password

    return without_password(where) if isinstance(where, str) and is_database_url(where) else str(where)
