"""`toolkiln n8n deploy FILE --credentials CREDS.json` against the real n8n (the session's
server: 2.41.1; 1.123.50 with TOOLKILN_N8N_VERSION=1.123.50, where it passes too): the steps'
credentials are made from the registry's secrets, the http step sends the header to a server on
127.0.0.1, a re-deploy updates (never a second credential), a user's credential of the same
name is never touched, a missing secret sends nothing, and the value is in no output and not in
the workflow JSON.
"""

from __future__ import annotations

import json
import time
import uuid

import pytest
from harness import WAIT, FakeApi
from n8n_server import N8N_VERSION

from toolkiln.cli import main
from toolkiln.registry.secrets import SecretStore

FIRST = "first-File-Value-5e21"
SECOND = "second-File-Value-c4b7"


pytestmark = pytest.mark.usefixtures("secret_key")


class Shown:
    """What the commands printed, all of it kept to look for a secret's value at the end."""

    def __init__(self, capsys) -> None:
        self.capsys, self.everything = capsys, ""

    def __call__(self):
        shown = self.capsys.readouterr()
        self.everything += shown.out + shown.err
        return shown


def posted_token(api: FakeApi, name: str, options: list[str], shown: Shown) -> str | None:
    """Run the workflow; the X-Token header the http step sent (the newest request)."""
    assert main(["n8n", "run", name, "--data", '{"text": "hi"}', *options]) == 0, shown().err
    assert json.loads(shown().out) == {"ok": True, "path": "/notes"}
    return api.received[-1]["token"]


def test_deploy_file_makes_the_credential_the_http_step_sends(n8n, ok_api, tmp_path, capsys):
    tag = uuid.uuid4().hex[:8]
    name = f"crm_file_{tag}"
    ours = f"toolkiln workflow {name}: crm"
    (tmp_path / "note.wf").write_text(
        f"""workflow {name}
description "Posts a note with the CRM's key"
on webhook POST "/crm-file-{tag}" respond with node
http crm POST "{ok_api.url}/notes" body {{ text = body.text }} credentials httpHeaderAuth "crm"
respond reply crm
"""
    )
    (tmp_path / "creds.json").write_text(
        json.dumps(
            {
                "secrets": ["CRM_API_KEY"],
                "credentials": {
                    "crm": {"type": "httpHeaderAuth", "name": "X-Token", "value": {"secret": "CRM_API_KEY"}}
                },
            }
        )
    )
    options = ["--url", n8n.server.url, "--api-key", n8n.key]
    deploy = ["n8n", "deploy", str(tmp_path / "note.wf"), "--activate", "--json", *options]
    deploy += ["--credentials", str(tmp_path / "creds.json"), "--registry", str(tmp_path / "reg")]
    shown = Shown(capsys)
    users = n8n.create_credential("httpHeaderAuth", ours, {"name": "X-Token", "value": "users"})

    assert main(deploy) == 1  # the secret is not set: nothing is sent
    refused = shown()
    assert "error[R0742]" in refused.err and "CRM_API_KEY" in refused.err
    assert n8n.credentials_named(ours) == {users}
    assert not [w for w in n8n.client.list_workflows() if w["name"] == name]

    SecretStore(tmp_path / "reg").set("CRM_API_KEY", FIRST)
    assert main(deploy) == 0
    first = json.loads(shown().out)
    n8n.created.append(first["id"])
    made = first["credentials"]["crm"]
    assert made != users and n8n.credentials_named(ours) == {users, made}
    stored = n8n.client.get_workflow(first["id"])
    http_node = next(node for node in stored["nodes"] if node["name"] == "crm")
    assert http_node["credentials"] == {"httpHeaderAuth": {"id": made, "name": ours}}
    assert FIRST not in json.dumps(stored)
    assert posted_token(ok_api, name, options, shown) == FIRST  # the header arrived

    SecretStore(tmp_path / "reg").set("CRM_API_KEY", SECOND)
    assert main(deploy) == 0
    second = json.loads(shown().out)
    assert second["id"] == first["id"] and not second["created"]
    # One credential of ours, never a second: n8n 2.x updates it in place, 1.x (no update
    # route) gets a new one and the old one is deleted.
    assert n8n.credentials_named(ours) == {users, second["credentials"]["crm"]}
    assert (second["credentials"] == first["credentials"]) is not N8N_VERSION.startswith("1.")
    deadline = time.monotonic() + WAIT  # n8n 2.x publishes an update in the background
    while (token := posted_token(ok_api, name, options, shown)) != SECOND and time.monotonic() < deadline:
        time.sleep(0.5)
    assert token == SECOND

    assert main(["n8n", "deploy", str(tmp_path / "note.wf"), *options]) == 0  # without --credentials
    shown()
    assert n8n.credentials_named(ours) == {users}  # ours went with it; the user's stays
    n8n.client.delete_credential(users)
    assert FIRST not in shown.everything and SECOND not in shown.everything
