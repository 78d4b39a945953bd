"""`toolkiln n8n deploy FILE --credentials CREDS.json`: the n8n credentials a workflow file's
steps name, made on deploy from the registry's secrets, as a workflow tool's are.

    {"secrets": ["CRM_API_KEY"],
     "credentials": {"crm": {"type": "httpHeaderAuth", "name": "X-Api-Key", "value": {"secret": "CRM_API_KEY"}}}}

The file has the two fields of a workflow tool's definition, checked by the same rules (R0745);
the values come from the secrets of --registry (else $TOOLKILN_HOME: a folder, a tenant's
folder, or a database URL). Each credential is named `toolkiln workflow NAME: KEY` in n8n; what the workflow of
that name refers to under such a name is toolkiln's from an earlier deploy: updated in place,
never duplicated (n8n.credentials.deploy_named).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.cli.common import UsageError, read_source
from toolkiln.cli.tools import open_registry, registry_option

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic
    from toolkiln.n8n.client import N8nClient
    from toolkiln.n8n.credentials import Wanted
    from toolkiln.n8n.deploy import Deployed

_FIELDS = ("secrets", "credentials")


def add_credentials_options(deploy: argparse.ArgumentParser) -> None:
    deploy.add_argument(
        "--credentials",
        type=Path,
        metavar="FILE",
        help="JSON naming the secrets the steps' credentials are made from on deploy (docs/secrets.md)",
    )
    registry_option(deploy)


def wanted_credentials(
    args: argparse.Namespace, workflow: Mapping[str, Any]
) -> tuple[list[Wanted] | None, list[Diagnostic]]:
    """The credentials of --credentials with their secrets' values ([] without it); (None,
    diagnostics) when the file is unreadable or wrong. A secret that is not set raises
    SecretMissing (R0742): nothing has been sent to n8n yet."""
    if args.credentials is None:
        return [], []
    from toolkiln.registry.kinds.workflow_credentials import credential_uses
    from toolkiln.registry.workflows import credentials_wanted

    obj, problems = _credentials_file(args.credentials)
    if obj is not None:
        from toolkiln.executables.program_tools import declared_secrets

        uses = credential_uses(obj, declared_secrets(obj.get("secrets", []), problems), workflow, problems)
    if obj is None or problems:
        return None, [_in_file(d, args.credentials) for d in problems]
    name = str(workflow.get("name"))
    with open_registry(args) as registry:  # (a database's pool is closed after the reads)
        return credentials_wanted(f"the workflow {name!r}", _label(workflow), uses, registry.secret_store().get), []


def _credentials_file(path: Path) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    from toolkiln.diagnostics import codes
    from toolkiln.registry.kinds.base import at_path

    text, unreadable = read_source(path)
    if text is None:
        return None, unreadable
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    if not isinstance(obj, dict):
        raise UsageError(f'{path} must be a JSON object: {{"secrets": [...], "credentials": {{...}}}}')
    problems = [
        at_path(codes.INVALID_WORKFLOW_CREDENTIAL, f"unknown field {str(key)[:40]!r}", str(key)[:40], _HINT)
        for key in obj
        if key not in _FIELDS
    ]
    return obj, problems


_HINT = "a credentials file holds `secrets` and `credentials`, as a workflow tool's definition does"


def _in_file(diagnostic: Diagnostic, path: Path) -> Diagnostic:
    from dataclasses import replace

    return diagnostic if diagnostic.file else replace(diagnostic, file=str(path))


def _label(workflow: Mapping[str, Any]) -> str:
    return f"workflow {workflow.get('name')}"


def deploy_with_credentials(
    client: N8nClient, workflow: dict[str, Any], wanted: list[Wanted], *, activate: bool
) -> tuple[Deployed, dict[str, str]]:
    """Deploy by name with the wanted credentials; the deployed workflow and key -> id."""
    from toolkiln.n8n.credentials import deploy_named
    from toolkiln.registry.kinds.workflow_credentials import names_prefix

    return deploy_named(client, workflow, wanted, names_prefix(_label(workflow)), activate=activate)


def credentials_not_made_here(workflow: Mapping[str, Any]) -> list[Diagnostic]:
    """W0747 for each credential a node refers to by an id (an export's): deployed as it is,
    it is whatever credential has that id on the server, or none."""
    from toolkiln.diagnostics import codes
    from toolkiln.diagnostics.model import Diagnostic
    from toolkiln.n8n.credentials import refs_by_id

    return [
        Diagnostic.of(
            codes.CREDENTIAL_NOT_MADE_HERE,
            f"the node {node[:80]!r} refers to the {type_[:64]} credential {name[:80]!r} by the id {cid[:40]!r}, "
            "which toolkiln did not make: it is deployed as it is",
            None,
            f'to have toolkiln make it, give it an id of null and list it in --credentials under "{name[:80]}"',
        )
        for node, type_, name, cid in refs_by_id(workflow)
    ]
