"""`toolkiln tenants create NAME | list`: the tenants (teams) that share a registry's server.

A tenant is a complete registry in `<registry>/tenants/NAME/` (toolkiln.registry.tenants); the
registry itself is the tenant `default`. Its first token: `toolkiln tokens create NAME --tenant
TENANT --kind person --scope admin`. Whoever runs these commands (the server's operator, with
the registry folder and the server's state folder) is the only one above every tenant.
"""

from __future__ import annotations

import argparse
import sys

from toolkiln.cli.common import EXIT_OK
from toolkiln.cli.secrets import _guarded  # (a registry error as `error[CODE]: ...`, exit 1)
from toolkiln.cli.tools import registry_option, registry_path


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


def cmd_create(args: argparse.Namespace) -> int:
    from toolkiln.registry.tenants import create_tenant

    folder = create_tenant(registry_path(args), args.name)
    print(f"tenant {args.name!r} is the registry {folder}", file=sys.stderr)
    first = f"toolkiln tokens create NAME --tenant {args.name} --kind person --scope admin"
    print(f"its first token: {first}", file=sys.stderr)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from toolkiln.registry.tenants import tenant_names

    for name in tenant_names(registry_path(args)):
        print(name)
    return EXIT_OK
