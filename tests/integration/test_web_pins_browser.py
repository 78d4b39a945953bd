"""Pinned callers on the review page in a real browser (chromium, as test_web_browser.py
drives it) against a real `toolkiln serve` (issue 28, item 4): `total` was approved against
`double` v1; `double` v2 (which breaks it) was approved since. A person with the admin scope
reads "pinned to v1, would move to v2" and the breaking flag, and moves the caller; a model's
session is offered no button and refused when it posts the form anyway."""

from __future__ import annotations

import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from test_server_support import ServerProcess, make_token, make_tokens
from test_web_browser import TIMEOUT_MS, browser, page, sign_in  # noqa: F401  (the browser tests')

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "server"))
from test_web_review import DOUBLE, TOTAL, TRIPLE

from toolkiln.registry.registry import Registry

pytest.importorskip("playwright.sync_api")


@pytest.fixture()
def server(tmp_path) -> Iterator[ServerProcess]:
    registry_path = tmp_path / "registry"
    tokens = make_tokens(registry_path) | {"model": make_token(registry_path, "agent", "admin", "model")}
    with Registry(registry_path) as registry:
        registry.create(DOUBLE, created_by="llm")
        registry.approve("double")
        registry.create({**TOTAL, "riskLevel": "high"}, created_by="llm")
        registry.approve("total")  # pinned to double v1
        registry.update("double", TRIPLE, by="llm")
        registry.approve("double")  # v2, active: total stays on v1
    process = ServerProcess(registry_path)
    process.tokens = tokens  # type: ignore[attr-defined]
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


def total(server: ServerProcess) -> object:
    answer = httpx.post(
        f"{server.url}/api/v1/tools/total/execute",
        json={"args": {"ys": [1, 2]}},
        headers={"Authorization": f"Bearer {server.tokens['run']}"},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]


def test_a_person_moves_the_pinned_callers_to_the_approved_version(page, server):  # noqa: F811
    assert total(server) == 6  # double v1: [2, 4]
    sign_in(page, server)
    page.goto(f"{server.url}/ui/tools/double?tab=review")
    pinned = page.locator("ul.pinned-callers").inner_text()
    assert "total: pinned to v1, would move to v2" in pinned
    assert "Breaking" in page.locator(".breaking").first.inner_text()
    page.shots.take("pinned-callers")
    page.get_by_role("button", name="Move callers to this version").click()
    page.wait_for_url(re.compile(r"done=repin"))
    assert "Its callers run this version now." in page.content()
    assert total(server) == 9  # double v2: [3, 6]
    page.goto(f"{server.url}/ui/tools/total?tab=audit")
    assert "double 1 -> 2" in page.locator("table.audit tbody tr").first.inner_text()


def test_a_models_session_cannot_move_callers(page, server):  # noqa: F811
    sign_in(page, server, "model")
    page.goto(f"{server.url}/ui/tools/double?tab=review")
    page.locator("ul.pinned-callers").wait_for()
    assert page.get_by_role("button", name="Move callers to this version").count() == 0
    assert "A person with the admin scope can move them" in page.content()
    # The form posted anyway, with the session's own CSRF token: refused by the registry.
    csrf = page.locator("input[name=csrf_token]").first.get_attribute("value")  # (the sign-out form's)
    answer = page.request.post(f"{server.url}/ui/tools/double/move-callers", form={"csrf_token": str(csrf)})
    assert answer.status == 403 and "R0201" in answer.text()
    assert total(server) == 6
