"""`toolkiln tokens create NAME --kind person|model|service --scope read|run|write|admin | list |
revoke NAME | import --from DIR`: the bearer tokens of `toolkiln serve` on a registry folder. The
kind says who holds the token, and so who acts with it (a model's token gets the model policy
everywhere). A new token is printed once; only its SHA-256 is kept (in `tokens.json` of the
server's state folder, mode 0600, outside the registry: toolkiln.server.state). `import` takes
the tokens of another token file on purpose, such as a registry's old `.server/`, which servers
no longer read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK
from toolkiln.cli.serve import state_dir, state_dir_option
from toolkiln.cli.tools import registry_option, registry_where
from toolkiln.registry.postgres.urls import without_password

if TYPE_CHECKING:
    from toolkiln.server.tokens import TokenStore

SCOPES = ("read", "run", "write", "admin")
KINDS = ("person", "model", "service")


def add_tokens_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = state_dir_option(registry_option(argparse.ArgumentParser(add_help=False)))
    tokens = commands.add_parser("tokens", help="bearer tokens for `toolkiln serve`", parents=[common])
    actions = tokens.add_subparsers(dest="tokens_command", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="create a token and print it (once)", parents=[common])
    create.add_argument("name")
    create.add_argument(
        "--scope", choices=SCOPES, required=True, help="read < run (execute) < write (change) < admin (approve, tokens)"
    )
    create.add_argument(
        "--kind",
        choices=KINDS,
        required=True,
        help="who holds it: a person, a model (an agent: the model policy applies), a service (an automation)",
    )
    create.add_argument(
        "--tenant", default="default", help="the tenant it belongs to (default: default, the registry itself)"
    )
    create.set_defaults(handler=_guarded(cmd_create))
    listing = actions.add_parser("list", help="list the tokens (names and scopes, never the tokens)", parents=[common])
    listing.set_defaults(handler=_guarded(cmd_list))
    revoke = actions.add_parser("revoke", help="revoke a token: at once, on every server", parents=[common])
    revoke.add_argument("name")
    revoke.add_argument("--tenant", default="default", help="the tenant of the token (default: default)")
    revoke.set_defaults(handler=_guarded(cmd_revoke))
    adopt = actions.add_parser(
        "import",
        help="add the tokens of another token file (e.g. a registry's old .server/), on purpose",
        parents=[common],
    )
    adopt.add_argument(
        "--from", dest="source", type=Path, required=True, metavar="DIR", help="the folder of tokens.json"
    )
    adopt.set_defaults(handler=_guarded(cmd_import))


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from toolkiln.registry.errors import RegistryError
        from toolkiln.server.state import StateFolderError
        from toolkiln.server.tokens import TokenError

        try:
            return handler(args)
        except (TokenError, StateFolderError, RegistryError) as error:
            hint = f"\n  = hint: {error.hint}" if error.hint else ""
            print(f"error[{error.code}]: {error.message}{hint}", file=sys.stderr)
            return EXIT_FAILED

    return run


def _store(args: argparse.Namespace) -> TokenStore:
    from toolkiln.server.state import state_folder
    from toolkiln.server.tokens import TokenStore

    where = registry_where(args)
    if isinstance(where, str):  # a database: its tokens are in it (schema version 2)
        from toolkiln.registry.locations import open_store
        from toolkiln.server.db_tokens import tokens_for

        return tokens_for(open_store(where, lock_timeout=30.0), without_password(where), state_dir(args))
    return TokenStore(state_folder(where, state_dir(args)))


def cmd_create(args: argparse.Namespace) -> int:
    from toolkiln.registry.errors import UnknownTenant
    from toolkiln.registry.tenants import check_tenant_name, tenant_exists

    if not tenant_exists(registry_where(args), check_tenant_name(args.tenant)):
        raise UnknownTenant(f"there is no tenant {args.tenant!r}", hint=f"toolkiln tenants create {args.tenant}")
    token, info = _store(args).create(args.name, args.scope, args.kind, args.tenant)
    print(token)
    print(
        f"created token {info.key!r} ({info.kind}, scope {info.scope}); it is shown only now: keep it",
        file=sys.stderr,
    )
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    tokens = _store(args).entries(None)  # (the operator sees every tenant's, `tenant/name`)
    if not tokens:
        print("no tokens; create one with `toolkiln tokens create NAME --kind ... --scope ...`")
    for info in tokens:
        kind = info.kind if info.kind_given else f"{info.kind}*"
        print(f"{info.key:<24} {kind:<8} {info.scope:<6} {info.created_at}")
    if any(not info.kind_given for info in tokens):
        print("* made before tokens had kinds: acts as a model; create a new one with --kind to change that")
    return EXIT_OK


def cmd_revoke(args: argparse.Namespace) -> int:
    info = _store(args).revoke(args.name, args.tenant)
    print(f"revoked token {info.key!r}")
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    store = _store(args)
    imported, skipped = store.import_from(args.source)
    for info in imported:
        print(f"imported token {info.name!r} (scope {info.scope})")
    for name in skipped:
        print(f"skipped {name!r}: a token of that name exists here already", file=sys.stderr)
    print(f"{len(imported)} token(s) imported into {getattr(store, 'where', store.folder)}", file=sys.stderr)
    return EXIT_OK
