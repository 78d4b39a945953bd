"""Hostile input to `toolkiln n8n deploy FILE --credentials`, against the real n8n (the session's
server: 2.41.1, or 1.123.50 with TOOLKILN_N8N_VERSION=1.123.50): a secret n8n would not send as a
header as it is, a refusal from n8n halfway, a file that names someone's credential by id, and
values that must arrive whole (a 60,000-character key, a Unicode password with a line break).
"""

from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path

import pytest
from harness import FakeApi

from toolkiln.cli import main
from toolkiln.registry.secrets import SecretStore

pytestmark = pytest.mark.usefixtures("secret_key")


class Deploy:
    """A workflow file `name` of two http steps (`crm`: header, `basic`: basic auth) and the
    command line that deploys it with a credentials file."""

    def __init__(self, n8n, api: FakeApi, folder: Path, basic: str = "httpBasicAuth") -> None:
        self.n8n, self.folder = n8n, folder
        self.name = f"hostile_{uuid.uuid4().hex[:8]}"
        self.prefix = f"toolkiln workflow {self.name}: "
        self.options = ["--url", n8n.server.url, "--api-key", n8n.key]
        (folder / "w.wf").write_text(
            f"""workflow {self.name}
description "Sends two credentials"
on webhook POST "/{self.name.replace("_", "-")}" respond with node
http crm POST "{api.url}/crm" body {{ text = body.text }} credentials httpHeaderAuth "crm"
http basic POST "{api.url}/basic" body {{ text = body.text }} credentials {basic} "basic"
respond reply basic
"""
        )

    def run(self, credentials: dict, capsys) -> tuple[int, str, str]:
        (self.folder / "creds.json").write_text(
            json.dumps({"secrets": ["KEY", "PASSWORD"], "credentials": credentials})
        )
        argv = ["n8n", "deploy", str(self.folder / "w.wf"), "--activate", "--json", *self.options]
        code = main([*argv, "--credentials", str(self.folder / "creds.json"), "--registry", str(self.folder / "reg")])
        shown = capsys.readouterr()
        if code == 0:
            self.n8n.created.append(json.loads(shown.out)["id"])
        return code, shown.out, shown.err

    def ours(self) -> set[str]:
        return self.n8n.credentials_named(self.prefix + "crm") | self.n8n.credentials_named(self.prefix + "basic")

    def workflows(self) -> list[dict]:
        return [w for w in self.n8n.client.list_workflows() if w["name"] == self.name]


HEADER = {"type": "httpHeaderAuth", "name": "X-Token", "value": {"secret": "KEY"}}
BASIC = {"type": "httpBasicAuth", "user": "me", "password": {"secret": "PASSWORD"}}


def secrets(folder: Path, key: str, password: str) -> None:
    store = SecretStore(folder / "reg")
    store.set("KEY", key)
    store.set("PASSWORD", password)


def test_a_header_secret_with_a_line_break_is_refused_before_anything_is_sent(n8n, ok_api, tmp_path, capsys):
    # Measured on n8n 2.41.1: "line1\nline2" arrives as "line1line2", another key than the one set.
    deploy = Deploy(n8n, ok_api, tmp_path)
    secrets(tmp_path, "line1\nline2", "pw")
    code, out, err = deploy.run({"crm": HEADER, "basic": BASIC}, capsys)
    assert code == 1 and "error[R0748]" in err and "KEY" in err and "line1" not in out + err
    assert deploy.ours() == set() and deploy.workflows() == []


def test_a_refusal_halfway_leaves_nothing_made_and_says_n8ns_message(n8n, ok_api, tmp_path, capsys):
    deploy = Deploy(n8n, ok_api, tmp_path, basic="noSuchTypeAuth")
    secrets(tmp_path, "key-made-first", "pw")
    unknown = {**BASIC, "type": "noSuchTypeAuth"}  # made second, after crm: n8n refuses it (400)
    code, out, err = deploy.run({"crm": HEADER, "basic": unknown}, capsys)
    assert code == 1 and "not a known type" in err and "key-made-first" not in out + err
    assert deploy.ours() == set() and deploy.workflows() == []  # the first one was deleted again


def test_a_field_the_type_does_not_have_is_r0745_before_anything_is_made(n8n, ok_api, tmp_path, capsys):
    deploy = Deploy(n8n, ok_api, tmp_path)
    secrets(tmp_path, "key", "pw")
    code, out, err = deploy.run({"crm": HEADER, "basic": {**BASIC, "realm": "x"}}, capsys)
    assert code == 1 and "error[R0745]" in err and "'realm'" in err and "password" in err
    assert deploy.ours() == set() and deploy.workflows() == []


def test_values_arrive_whole_a_long_key_and_a_unicode_password(n8n, ok_api, tmp_path, capsys):
    deploy = Deploy(n8n, ok_api, tmp_path)
    key, password = "k" * 60_000, "pässwörd ☃\nzwei"  # (the test server reads header lines up to 64 KiB)
    secrets(tmp_path, key, password)
    code, out, err = deploy.run({"crm": HEADER, "basic": BASIC}, capsys)
    assert code == 0, err
    assert main(["n8n", "run", deploy.name, "--data", '{"text": "hi"}', *deploy.options]) == 0
    shown = capsys.readouterr()
    crm, basic = ({r["path"]: r for r in ok_api.received}[path] for path in ("/crm", "/basic"))
    assert crm["token"] == key
    assert base64.b64decode(basic["authorization"].removeprefix("Basic ")) == f"me:{password}".encode()
    assert key not in out + err + shown.out + shown.err and password not in out + err + shown.out + shown.err


def test_a_credential_named_by_an_id_toolkiln_did_not_make_is_w0747_and_left_alone(n8n, ok_api, tmp_path, capsys):
    users = n8n.create_credential("httpHeaderAuth", "someone's CRM", {"name": "X-Token", "value": "theirs"})
    name = f"foreign_{uuid.uuid4().hex[:8]}"
    webhook = {"name": "hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "position": [0, 0]}
    webhook["parameters"] = {"path": name, "httpMethod": "POST"}
    http = {"name": "crm", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "position": [200, 0]}
    http["parameters"] = {"url": f"{ok_api.url}/crm", "authentication": "genericCredentialType"}
    http["parameters"]["genericAuthType"] = "httpHeaderAuth"
    http["credentials"] = {"httpHeaderAuth": {"id": users, "name": "someone's CRM"}}
    connections = {"hook": {"main": [[{"node": "crm", "type": "main", "index": 0}]]}}
    export = {"name": name, "nodes": [webhook, http], "connections": connections, "settings": {}}
    (tmp_path / "export.json").write_text(json.dumps(export))
    options = ["--url", n8n.server.url, "--api-key", n8n.key]
    assert main(["n8n", "deploy", str(tmp_path / "export.json"), "--json", *options]) == 0
    shown = json.loads(capsys.readouterr().out)
    n8n.created.append(shown["id"])
    assert [w["code"] for w in shown["warnings"]] == ["W0747"] and repr(users) in shown["warnings"][0]["message"]
    stored = n8n.client.get_workflow(shown["id"])
    assert next(node for node in stored["nodes"] if node["name"] == "crm")["credentials"] == http["credentials"]
    assert n8n.credentials_named("someone's CRM") == {users}
    n8n.client.delete_credential(users)
