"""`toolkiln n8n deploy|run|list`: workflows on a running n8n, by name.

    toolkiln n8n deploy orders.wf --activate      # create, or update the workflow of that name
    toolkiln n8n run order_total --data '{"qty": 2}'
    toolkiln n8n list

The server and key come from --url/--api-key, else TOOLKILN_N8N_URL/TOOLKILN_N8N_API_KEY (as
`N8nClient.from_env`). Exit codes as for the other commands: 0 ok, 1 diagnostics or an error
from n8n (the server's message is shown) or a file that cannot be read (E0100), 2 usage (a file
that is no workflow, bad --data, no URL or key).
Nothing here imports httpx until a command runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from toolkiln.cli.common import EXIT_FAILED, EXIT_OK, UsageError, read_source
from toolkiln.cli.n8n_credentials import (
    add_credentials_options,
    credentials_not_made_here,
    deploy_with_credentials,
    wanted_credentials,
)

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic
    from toolkiln.n8n.client import N8nClient
    from toolkiln.n8n.deploy import Deployed


def add_n8n_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    n8n = commands.add_parser("n8n", help="deploy and run workflows on an n8n server")
    actions = n8n.add_subparsers(dest="n8n_command", required=True, metavar="ACTION")

    def action(name: str, handler: Callable[[argparse.Namespace], int], help_: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=help_)
        parser.add_argument("--url", help="the n8n server (default: $TOOLKILN_N8N_URL)")
        parser.add_argument("--api-key", help="an n8n API key (default: $TOOLKILN_N8N_API_KEY)")
        parser.set_defaults(handler=_guarded(handler))
        return parser

    deploy = action("deploy", cmd_deploy, "create or update (by name) a workflow from a .wf or n8n JSON file")
    deploy.add_argument("file", type=Path, help="workflow DSL (.wf) or n8n workflow JSON (.json)")
    deploy.add_argument("--activate", action="store_true", help="activate it (registers its webhooks)")
    deploy.add_argument("--json", action="store_true", help="print the result (or the diagnostics) as JSON")
    add_credentials_options(deploy)

    run = action("run", cmd_run, "post data to a deployed workflow's webhook and print the answer")
    run.add_argument("name", help="the workflow's name")
    run.add_argument("--data", default="{}", help="the JSON to send (default: {})")

    listing = action("list", cmd_list, "list the workflows on the server")
    listing.add_argument("--json", action="store_true", help="print them as JSON")


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """n8n's errors for people: a bad configuration is a usage error (2), anything else 1; the
    registry's (a secret not set for a credential: R0742) with their code, 1."""

    def run(args: argparse.Namespace) -> int:
        from toolkiln.n8n.errors import N8nConfigError, N8nError
        from toolkiln.registry.errors import RegistryError

        try:
            return handler(args)
        except N8nConfigError as error:
            raise UsageError(str(error)) from None
        except N8nError as error:
            code = getattr(error, "code", None)  # R0746: credentials a failed deploy left in n8n
            print(f"error[{code}]: {error}" if code else f"toolkiln: {error}", file=sys.stderr)
            return EXIT_FAILED
        except RegistryError as error:
            hint = f"\n  = hint: {error.hint}" if error.hint else ""
            print(f"error[{error.code}]: {error.message}{hint}", file=sys.stderr)
            return EXIT_FAILED

    return run


def _client(args: argparse.Namespace) -> N8nClient:
    from toolkiln.n8n.client import N8nClient

    return N8nClient.from_env(args.url, args.api_key)


# --- deploy -----------------------------------------------------------------------------------


def load_workflow(path: Path) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """The n8n workflow in a file: n8n JSON (*.json) as it is (named after the file when it has
    no name), anything else compiled as workflow DSL. (None, diagnostics) when the file cannot be
    read (E0100) or the DSL does not compile; UsageError when the JSON is no n8n workflow."""
    from toolkiln.errors import CompileError
    from toolkiln.n8n.client import workflow_body
    from toolkiln.workflow import compile_workflow

    text, unreadable = read_source(path)
    if text is None:
        return None, unreadable
    if path.suffix.lower() != ".json":
        try:
            return compile_workflow(text, str(path)).to_n8n(), []
        except CompileError as error:
            return None, error.diagnostics
    try:
        workflow = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    if isinstance(workflow, dict) and not workflow.get("name"):
        workflow["name"] = path.stem  # what n8n's editor copies to the clipboard has no name
    workflow_body(workflow)  # refuses what is no n8n workflow before anything is sent
    return workflow, []


def cmd_deploy(args: argparse.Namespace) -> int:
    from toolkiln.diagnostics.render import render_json, render_text

    workflow, diagnostics = load_workflow(args.file)
    wanted, problems = wanted_credentials(args, workflow) if workflow is not None else (None, [])
    if workflow is None or wanted is None:
        if args.json:
            print(render_json(diagnostics + problems))
        else:
            print("\n\n".join(render_text(d) for d in diagnostics + problems), file=sys.stderr)
        return EXIT_FAILED
    warnings = credentials_not_made_here(workflow)
    if warnings and not args.json:
        print("\n\n".join(render_text(d) for d in warnings), file=sys.stderr)
    with _client(args) as client:
        deployed, made = deploy_with_credentials(client, workflow, wanted, activate=args.activate)
        urls = [client.webhook_url(hook.path) for hook in deployed.webhooks]
    if args.json:
        shown = {**_deployed_json(deployed, urls), **({"credentials": made} if wanted else {})}
        if warnings:
            shown["warnings"] = [d.to_dict() for d in warnings]
        print(json.dumps(shown, indent=2, ensure_ascii=False))
        return EXIT_OK
    state = "active" if deployed.active else "inactive"
    print(f"{'created' if deployed.created else 'updated'} {deployed.name!r}: id {deployed.id} ({state})")
    for hook, url in zip(deployed.webhooks, urls, strict=True):
        print(f"  {hook.method} {url}")
    for want in wanted:
        print(f"  credential {want.key!r}: id {made[want.key]} ({want.name})")
    if deployed.active and not deployed.created:  # docs/decisions.md: deploy does not wait for it
        print(f"note: {REPUBLISH_NOTE}", file=sys.stderr)
    return EXIT_OK


# Measured on 2.41.1 (benchmarks/n8n_redeploy.py): the first call after 15 of 16 redeploys ran the old version.
REPUBLISH_NOTE = (
    "n8n 2.x publishes an update of an active workflow in the background: for about a second, "
    "its webhooks can still run the previous version"
)


def _deployed_json(deployed: Deployed, urls: list[str]) -> dict[str, Any]:
    return {
        "id": deployed.id,
        "name": deployed.name,
        "active": deployed.active,
        "created": deployed.created,
        "webhooks": [
            {"method": hook.method, "path": hook.path, "url": url}
            for hook, url in zip(deployed.webhooks, urls, strict=True)
        ],
    }


# --- run --------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from toolkiln.n8n.deploy import find_workflow, run_workflow

    try:
        data = json.loads(args.data)
    except json.JSONDecodeError as error:
        raise UsageError(f"--data is not valid JSON: {error.msg} (column {error.colno})") from None
    with _client(args) as client:
        reply = run_workflow(client, find_workflow(client, args.name), data)  # a failed run raises
    if reply.data is not None:
        print(json.dumps(reply.data, indent=2, ensure_ascii=False))
    elif reply.text:
        print(reply.text)
    return EXIT_OK


# --- list -------------------------------------------------------------------------------------


class _Row(TypedDict):
    """A workflow as `n8n list` shows it (and prints with --json)."""

    id: object  # as the server sent them
    name: object
    active: bool
    webhooks: list[str]


def cmd_list(args: argparse.Namespace) -> int:
    from toolkiln.n8n.deploy import webhooks_of

    with _client(args) as client:
        rows: list[_Row] = [
            {
                "id": w.get("id"),
                "name": w.get("name"),
                "active": bool(w.get("active")),
                "webhooks": [f"{hook.method} {client.webhook_url(hook.path)}" for hook in webhooks_of(w)],
            }
            for w in client.list_workflows()
        ]
    rows.sort(key=lambda row: (str(row["name"]), str(row["id"])))
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    elif not rows:
        print("no workflows")
    else:
        for row in rows:
            state = "active" if row["active"] else "inactive"
            print(f"{row['id']}  {state:8}  {row['name']}" + "".join(f"\n    {hook}" for hook in row["webhooks"]))
    return EXIT_OK
