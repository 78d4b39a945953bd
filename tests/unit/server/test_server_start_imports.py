"""The server starts without what only some routes use (issue 25: starting `toolkiln serve` is
the test suite's largest fixture cost, and a user's first wait): the n8n client (httpx,
httpcore, rich) loads on the first deploy, the workflow compiler (and its n8n catalog) on the
first workflow compile or check, networkx (the registry's call graph) once tools call others.
Those routes still answer on first use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

LOADED_ON_FIRST_USE = ("httpx", "httpcore", "rich", "networkx", "toolkiln.n8n.client", "toolkiln.workflow.compile")
WORKFLOW = 'workflow hello\ndescription "Says hello"\non manual\nset greet { text = "hi" }\n'
_PROBE = """
import json, sys
from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
create_app(Settings(registry=__import__("pathlib").Path(sys.argv[1])))
print(json.dumps(sorted(sys.modules)))
"""


def test_building_the_app_loads_no_n8n_client_and_no_workflow_compiler(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path / "reg")], capture_output=True, text=True, check=True, timeout=120
    )
    modules = set(json.loads(done.stdout))
    assert "toolkiln.server.routes.workflows" in modules  # the routes are there ...
    assert [name for name in LOADED_ON_FIRST_USE if name in modules] == []  # ... what they use is not yet


def test_the_workflow_routes_answer_on_first_use(tmp_path: Path) -> None:
    app = create_app(Settings(registry=tmp_path / "reg"))
    token = TokenStore(state_folder(app.state.services.registries.default.path)).create("reader", "read", "person")[0]
    http = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})
    compiled = http.post("/api/v1/workflows/compile", json={"source": WORKFLOW})
    assert compiled.status_code == 200 and compiled.json()["workflow"]["nodes"]
    assert http.post("/api/v1/check", json={"source": WORKFLOW}).json()["valid"] is True
