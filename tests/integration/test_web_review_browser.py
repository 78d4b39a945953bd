"""The review of a tool waiting for approval in a real browser (chromium, as
test_web_browser.py drives it) against a real `toolkiln serve`: a person opens the pending
version, reads what it reaches, its cost bound and what changed, sees it would break its
caller, and rejects it with a reason (on a server of its own: the narrow view's server keeps
the version waiting, whichever test runs first)."""

from __future__ import annotations

import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_server_support import ServerProcess, make_tokens
from test_web_browser import NARROW, TIMEOUT_MS, browser, overflow, page, sign_in  # noqa: F401  (the browser tests')

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "server"))
from test_web_review import DOUBLE, TOTAL, TRIPLE

from toolkiln.registry.registry import Registry

pytest.importorskip("playwright.sync_api")


def seeded_server(folder: Path) -> ServerProcess:
    """A `toolkiln serve` process on a registry where `double` v2, which breaks `total`, waits."""
    registry_path = folder / "registry"
    tokens = make_tokens(registry_path)
    with Registry(registry_path) as registry:
        registry.create(DOUBLE, created_by="llm")
        registry.approve("double")
        registry.create(TOTAL)
        registry.update("double", TRIPLE, by="llm")
    process = ServerProcess(registry_path)
    process.tokens = tokens  # type: ignore[attr-defined]
    return process


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    """The server of the test that only looks (xdist's worksteal can run the rejecting test
    first on the same worker)."""
    process = seeded_server(tmp_path_factory.mktemp("review"))
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


@pytest.fixture()
def own_server(tmp_path) -> Iterator[ServerProcess]:
    """A server of its own for the test that rejects the version."""
    process = seeded_server(tmp_path)
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


def test_at_390_px_the_review_does_not_scroll_sideways(browser, server):  # noqa: F811
    context = browser.new_context(viewport=NARROW)
    narrow = context.new_page()
    narrow.set_default_timeout(TIMEOUT_MS)
    sign_in(narrow, server, "read")
    narrow.goto(f"{server.url}/ui/tools/double?tab=review")
    narrow.locator("code.cost-bound").wait_for()
    found = overflow(narrow)
    context.close()
    assert found == {"scroll": 0, "band": 0, "spilled": []}


def test_a_person_reviews_a_breaking_version_and_rejects_it(page, own_server):  # noqa: F811
    sign_in(page, own_server)
    page.get_by_role("link", name="double").click()
    page.get_by_role("link", name="review what it reaches, what a run can cost and what changed").click()
    page.wait_for_url(re.compile(r"tab=review"))
    page.shots.take("review")
    assert "len(xs)" in page.locator("code.cost-bound").inner_text()
    assert page.locator(".reach-network").inner_text() == "no"
    assert "Breaking" in page.get_by_role("alert").inner_text()
    assert "expected 6, got 9" in page.locator(".broken-callers").inner_text()
    changed = page.locator("table.changed-examples tbody tr").first.inner_text()
    assert "[2, 4]" in changed and "[3, 6]" in changed
    page.get_by_role("link", name="Reject").click()
    page.get_by_label("Reason").fill("breaks total: it expects doubles")
    page.get_by_role("button", name="Yes, reject").click()
    page.wait_for_url(re.compile(r"tab=audit"))
    assert "breaks total" in page.locator("table.audit tbody tr").first.inner_text()
