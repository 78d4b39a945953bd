"""Red team (session 7): hostile repins through a real `toolkiln serve` (issue 28, item 4). A
person with the admin scope moves a caller's pins only to versions of the tools it calls that
were approved: a version that is not a whole number, not there, of another tool, rejected or
waiting is refused with a code and moves nothing; another tenant's admin cannot reach the
caller; a forged web post without the page's CSRF token moves nothing."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_pin_moves import ORDER_TOTAL, SHIPPING, V2, total
from test_server_support import ServerProcess, compute_tool, make_token, make_tokens
from test_tenant_isolation import csrf_of

from toolkiln.diagnostics import codes
from toolkiln.registry.tenants import create_tenant
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore


@pytest.fixture
def served(tmp_path):
    """order_total approved against shipping_cost v1; v2 approved; v3 rejected; v4 waiting;
    tenant acme's admin and a tool `order_total` of acme's own."""
    registry = tmp_path / "registry"
    create_tenant(registry, "acme")
    tokens = make_tokens(registry) | {"model": make_token(registry, "model", "admin", "model")}
    tokens["acme"] = TokenStore(state_folder(registry)).create("acme-admin", "admin", "person", "acme")[0]
    server = ServerProcess(registry)
    server.tokens = tokens
    waiting = {"logic": {"steps": [{"op": "return", "value": "0"}]}, "riskLevel": "high"}
    with server.client(tokens["model"]) as model, server.client(tokens["admin"]) as admin:
        assert model.post("/api/v1/tools", json={"definition": SHIPPING}).json()["status"] == "active"
        assert model.post("/api/v1/tools", json={"definition": ORDER_TOTAL}).json()["status"] == "pending_approval"
        assert admin.post("/api/v1/tools/order_total/approve").json()["pins"]["shipping_cost"]["version"] == 1
        assert model.patch("/api/v1/tools/shipping_cost", json={"changes": V2}).json()["version"] == 2
        assert admin.post("/api/v1/tools/shipping_cost/approve").json()["status"] == "active"
        assert model.patch("/api/v1/tools/shipping_cost", json={"changes": waiting}).json()["version"] == 3
        assert admin.post("/api/v1/tools/shipping_cost/reject").status_code == 200
        fourth = {"logic": {"steps": [{"op": "return", "value": "1"}]}, "riskLevel": "high"}
        again = model.patch("/api/v1/tools/shipping_cost", json={"changes": fourth}).json()
        assert (again["version"], again["status"]) == (4, "pending_approval")
        assert admin.post("/api/v1/tools", json={"definition": compute_tool("double")}).status_code == 201
    with server.client(tokens["acme"]) as acme:
        assert acme.post("/api/v1/tools", json={"definition": compute_tool("mine")}).status_code == 201
    yield server
    assert server.stop() in (0, -signal.SIGTERM)


HOSTILE_MOVES = [
    ({"shipping_cost": 0}, 404),
    ({"shipping_cost": -1}, 404),
    ({"shipping_cost": 5}, 404),
    ({"shipping_cost": 2**70}, (404, 422)),
    ({"shipping_cost": 1.5}, 422),
    ({"shipping_cost": "2; DROP"}, 422),
    ({"shipping_cost": None}, 422),
    ({"shipping_cost": 3}, 400),  # rejected
    ({"shipping_cost": 4}, 400),  # waiting
    ({"double": 1}, 400),  # a tool it does not call
    ({"no_such_tool": 1}, 400),
    ({"../shipping_cost": 1}, (400, 422)),
    ([], 422),
    ("shipping_cost", 422),
]


@pytest.mark.parametrize(("to", "status"), HOSTILE_MOVES)
def test_a_hostile_move_is_refused_with_a_code_and_moves_nothing(served, to, status):
    with served.client(served.tokens["admin"]) as admin:
        refused = admin.post("/api/v1/tools/order_total/repin", json={"to": to})
        statuses = status if isinstance(status, tuple) else (status,)
        assert refused.status_code in statuses, refused.text
        assert refused.json().get("code"), refused.text
        assert admin.get("/api/v1/tools/order_total").json()["pins"]["shipping_cost"]["version"] == 1
    with served.client(served.tokens["run"]) as runner:
        assert total(runner) == 17
    assert '"repin"' not in (served.registry / "audit.jsonl").read_text()


def test_another_tenants_admin_reaches_no_caller_to_move(served):
    with served.client(served.tokens["acme"]) as acme:
        for to in (None, {"shipping_cost": 2}):
            refused = acme.post("/api/v1/tools/order_total/repin", json={"to": to})
            assert refused.status_code == 404 and refused.json()["code"], refused.text
        mine = acme.post("/api/v1/tools/mine/repin")  # its own tool, which calls nothing: nothing moves
        assert mine.status_code == 200 and not mine.json().get("pins"), mine.text
    with served.client(served.tokens["run"]) as runner:
        assert total(runner) == 17


def test_a_forged_web_post_moves_no_caller(served):
    """A page of another site posts to the review's button with the admin's session cookie but
    without the page's CSRF token (or with a made-up one): 403 with the CSRF code, nothing moves."""
    with served.client() as browser:
        form = browser.get("/ui/sign-in")
        signed = browser.post("/ui/sign-in", data={"token": served.tokens["admin"], "csrf_token": csrf_of(form.text)})
        assert signed.status_code == 303, signed.text
        for form_fields in ({}, {"csrf_token": "forged"}):
            forged = browser.post("/ui/tools/shipping_cost/move-callers", data=form_fields)
            assert forged.status_code == 403 and codes.CSRF_FAILED.code in forged.text, forged.text
        with served.client(served.tokens["run"]) as runner:
            assert total(runner) == 17
        assert '"repin"' not in (served.registry / "audit.jsonl").read_text()


def test_repins_racing_updates_from_another_process_leave_no_half_state(served):
    """Repins by the CLI (other processes) race a model's new versions of the callee through the
    server: every run between and after answers a value of a version the caller was pinned to,
    never a refusal (a half-written record would be R0710), and it stays pinned to an approved one."""
    registry = str(served.registry)
    repins = [
        subprocess.Popen(
            [sys.executable, "-m", "toolkiln", "tools", "repin", "order_total", *to, "--registry", registry],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for to in (["--to", "shipping_cost@1"], ["--to", "shipping_cost@2"], []) * 2
    ]
    seen = set()
    with served.client(served.tokens["model"]) as model, served.client(served.tokens["run"]) as runner:
        for n in range(8):
            change = {"logic": {"steps": [{"op": "return", "value": f"weight_kg * 2 + {n}"}]}}
            assert model.patch("/api/v1/tools/shipping_cost", json={"changes": change}).status_code == 200
            seen.add(total(runner))
    outcomes = [process.communicate(timeout=120) + (process.returncode,) for process in repins]
    assert all(code == 0 for _, _, code in outcomes), outcomes
    with served.client(served.tokens["run"]) as runner:
        seen.add(total(runner))
    with served.client(served.tokens["admin"]) as admin:
        pins = admin.get("/api/v1/tools/order_total").json()["pins"]
    assert set(pins) == {"shipping_cost"} and pins["shipping_cost"]["version"] in (1, 2), pins
    assert seen <= {17, 18} | {12 + n for n in range(8)}, seen


def test_a_copied_folder_neither_runs_nor_moves_the_pinned_caller(served, tmp_path):
    """The served folder copied elsewhere (as a clone or a backup would be): the caller's pins
    are not believed there, so it does not run and its pins cannot be moved (R0710) until a
    person trusts it."""
    copy = tmp_path / "copy"
    shutil.copytree(served.registry, copy, ignore=shutil.ignore_patterns(".lock"))
    for args in (
        ["run", "order_total", "--args", '{"w": 1, "price": 10}'],
        ["repin", "order_total", "--to", "shipping_cost@2"],
    ):
        done = tools_cli(copy, *args)
        assert done.returncode != 0 and "R0710" in done.stderr, (args, done.stdout, done.stderr)
    assert '"repin"' not in (copy / "audit.jsonl").read_text()


def tools_cli(registry: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`toolkiln tools ARGS --registry REGISTRY` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", "tools", *args, "--registry", str(registry)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
