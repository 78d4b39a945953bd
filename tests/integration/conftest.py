"""One real n8n (2.41.1, or TOOLKILN_N8N_VERSION: see n8n_server.py) for the whole test
session (installing is cached; starting takes ~15-30 s). Every test gives what it creates unique names and webhook paths; the workflows are
deleted at the end. When n8n cannot be installed the tests are skipped with the reason,
except under CI (CI=true), where that is a failure. Tests that use the fixture are marked `n8n`
(below): `pytest -m "not n8n"` runs everything else without installing or starting n8n."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import Deployed, FakeApi, PatientClient
from n8n_server import N8nServer, N8nServerError, install
from postgres_support import fresh_database

from toolkiln.n8n import errors


@pytest.hookimpl(tryfirst=True)  # before -m deselects: the mark must be there when it looks
def pytest_collection_modifyitems(config, items):
    """Every test that uses the `n8n` fixture, directly or through another fixture, is marked
    `n8n`, so `pytest -m "not n8n"` never installs or starts n8n and no new test can forget it.
    The files with such tests run first, in their order, so that one worker starts n8n and runs
    them (xdist's worksteal hands each worker a run of the list; the others steal from its end),
    and n8n's scheduler is waited for while the other workers compute."""
    n8n_files = set()
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "n8n" in names:
            item.add_marker(pytest.mark.n8n)
            n8n_files.add(item.path)
        if "postgres_url" in names:
            item.add_marker(pytest.mark.postgres)
    items.sort(key=lambda item: item.path not in n8n_files)  # (stable: each file's order kept)


def show_install_progress(config: pytest.Config):
    """Print the install script's lines on the terminal as they come, past pytest's capture: a cold
    install takes minutes and must say so. The one line of a cached install stays quiet."""
    capture = config.pluginmanager.getplugin("capturemanager")
    terminal = config.pluginmanager.getplugin("terminalreporter")

    shown = []

    def show(line: str) -> None:
        if line.startswith("n8n-install: already installed") or terminal is None:
            return
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            if not shown:
                terminal.write_line("")  # off the line of progress dots
            shown.append(line)
            terminal.write_line(line)
            terminal.flush()

    return show


@pytest.fixture(scope="session")
def n8n(pytestconfig):
    try:
        home = install(progress=show_install_progress(pytestconfig))
    except N8nServerError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"n8n could not be installed under CI: {exc}")
        pytest.skip(f"n8n could not be installed: {exc}")
    server = N8nServer(home)
    try:
        server.start()
        key = server.create_api_key()
    except BaseException as exc:  # noqa: BLE001 - re-raised below, after the clean-up
        log = server.log_tail()
        server.cleanup()  # never leave an n8n running, whatever went wrong
        if isinstance(exc, N8nServerError):
            pytest.fail(str(exc))
        pytest.fail(f"setting up n8n failed: {type(exc).__name__}: {exc}\nlog:\n{log}")
    client = PatientClient(server.url, key, timeout=30.0)
    deployed = Deployed(server, client, key)
    try:
        yield deployed
    finally:
        leftovers = []
        for workflow_id in deployed.created:
            try:
                client.delete_workflow(workflow_id)
            except errors.N8nNotFound:
                pass  # a test deleted it
            except errors.N8nError as exc:
                leftovers.append(f"{workflow_id}: {exc}")
        client.close()
        code = server.stop()
        log = server.log_tail()
        server.cleanup()
        assert not leftovers, f"could not delete: {leftovers}"
        assert code is not None, f"n8n did not stop on SIGTERM; log:\n{log}"


@pytest.fixture
def postgres_url(postgres_cluster_url: str) -> Iterator[str]:
    """A database of this test's own on a real PostgreSQL (postgres_support.py)."""
    with fresh_database(postgres_cluster_url) as url:
        yield url


SANDBOX_INSTALL = Path(__file__).resolve().parents[2] / "scripts" / "sandbox-install.sh"


@pytest.fixture(scope="session")
def bwrap_installed() -> None:
    """bubblewrap, installed on first use as n8n is (so the README's one test command works on
    a fresh machine); a failed install fails the sandbox tests, never skips them."""
    if shutil.which("bwrap") is not None:
        return
    done = subprocess.run(["bash", str(SANDBOX_INSTALL)], capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or shutil.which("bwrap") is None:
        pytest.fail(f"bubblewrap could not be installed by {SANDBOX_INSTALL.name}:\n{done.stderr[-2000:]}")


@pytest.fixture(scope="session")
def chromium() -> Iterator[object]:
    """Debian's chromium (scripts/browser-install.sh), headless, driven by Playwright: one for
    the test process, shared by every browser test file (each test opens a context of its own:
    cookies and pages are not shared). Skipped without chromium, except under CI."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        reason = "chromium is not installed: run `bash scripts/browser-install.sh`"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(autouse=True)
def no_browser_loop_outside_browser_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Playwright's sync API runs its event loop in a greenlet, and once `chromium` has started
    the thread's running-loop marker stays set between browser calls: a later test of the same
    worker that runs asyncio itself (the MCP clients) would fail with "Cannot run the event
    loop while another loop is running". A test that does not use the browser runs with the
    marker cleared, and gets it back after (seen when three workers put an MCP file after the
    browser files)."""
    left = asyncio._get_running_loop()  # (asyncio's own accessor: the marker, not a new loop)
    if left is None or "chromium" in request.fixturenames:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(left)


@pytest.fixture
def writable_folder() -> Iterator[Path]:
    """A folder under /tmp any user may enter and write (as root, programs run as a user of their own, who
    cannot reach pytest's own folders): where a test's programs leave their side effects."""
    with tempfile.TemporaryDirectory(prefix="toolkiln-program-test-") as name:
        os.chmod(name, 0o777)
        yield Path(name)


@pytest.fixture
def secret_key(monkeypatch) -> None:
    """A fresh key for the registry's secrets (TOOLKILN_SECRET_KEY), for tests that set some."""
    from toolkiln.registry.secrets import KEY_ENV

    monkeypatch.setenv(KEY_ENV, base64.urlsafe_b64encode(os.urandom(32)).decode())


@pytest.fixture
def ok_api() -> Iterator[FakeApi]:
    """A JSON API on 127.0.0.1 for n8n's http steps that answers {"ok": true, "path": ...}."""
    fake = FakeApi(lambda request: {"ok": True, "path": request["path"]})
    yield fake
    fake.close()
