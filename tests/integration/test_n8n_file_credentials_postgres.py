"""`toolkiln n8n deploy FILE --credentials --registry URL` takes the secrets of a PostgreSQL
registry's tenant (a real PostgreSQL; n8n in memory: tests/unit/n8n/test_credentials_by_name.py),
each tenant its own value for one name, one without it refused (R0742) before anything is sent.
"""

from __future__ import annotations

import json

import pytest
from unit.n8n.test_credentials_by_name import CREDS, WF, N8n

from toolkiln import Registry
from toolkiln.cli import main
from toolkiln.cli import n8n as n8n_cli
from toolkiln.registry.postgres.urls import tenant_url

pytestmark = pytest.mark.usefixtures("secret_key")


def test_each_tenant_of_a_database_deploys_with_its_own_secret(postgres_url, tmp_path, monkeypatch, capsys):
    fake = N8n()
    monkeypatch.setattr(n8n_cli, "_client", lambda args: fake.client())
    (tmp_path / "notes.wf").write_text(WF)
    (tmp_path / "creds.json").write_text(json.dumps(CREDS))
    for tenant in ("alpha", "beta"):
        assert main(["tenants", "create", tenant, "--registry", postgres_url]) == 0
    with Registry(tenant_url(postgres_url, "alpha")) as alpha:
        alpha.secret_store().set("CRM_API_KEY", "alpha-crm-key-4410")
    with Registry(postgres_url) as default:
        default.secret_store().set("CRM_API_KEY", "default-crm-key-2287")
    capsys.readouterr()

    def deploy(tenant: str) -> int:
        where = tenant_url(postgres_url, tenant)
        argv = ["n8n", "deploy", str(tmp_path / "notes.wf"), "--json", "--credentials", str(tmp_path / "creds.json")]
        return main([*argv, "--registry", where])

    assert deploy("beta") == 1  # beta has no such secret: nothing is sent
    assert "error[R0742]" in capsys.readouterr().err and fake.sent == []
    assert deploy("alpha") == 0
    made = json.loads(capsys.readouterr().out)["credentials"]["crm"]
    assert fake.credentials.stored[made]["data"]["value"] == "alpha-crm-key-4410"
