"""The secrets section of the web page in chromium (as test_web_browser.py drives it), against a
real `toolkiln serve`: an admin person sets and deletes a secret whose value no page shows; a
read token and a session acting as a model see no link and are refused the page."""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Iterator

import pytest
from test_server_support import ServerProcess, make_tokens
from test_web_browser import browser, page, sign_in  # noqa: F401 - the fixtures, shared

from toolkiln.registry.secrets import SecretStore
from toolkiln.server.state import state_folder

VALUE = "pw-on-the-page-7777-do-not-show"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    registry = tmp_path_factory.mktemp("web-secrets") / "registry"
    tokens = make_tokens(registry)
    process = ServerProcess(registry)
    process.tokens = tokens  # type: ignore[attr-defined]
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


def test_an_admin_sets_and_deletes_a_secret_and_no_page_shows_its_value(page, server):  # noqa: F811
    sign_in(page, server)
    page.get_by_role("link", name="Secrets").click()
    page.wait_for_url(re.compile(r"/ui/secrets$"))
    assert "No secrets are set." in page.locator("main").inner_text()
    page.get_by_label("Name").fill("WEATHER_API_KEY")
    page.get_by_label("Value").fill(VALUE)
    assert page.get_by_label("Value").get_attribute("type") == "password"
    page.get_by_role("button", name="Set secret").click()
    page.wait_for_url(re.compile(r"done=set"))
    page.shots.take("secret-set")
    assert "Secret set." in page.locator(".notice").inner_text()
    assert page.locator("#secret-WEATHER_API_KEY").is_visible()
    assert VALUE not in page.content()
    assert SecretStore(server.registry).get("WEATHER_API_KEY") == VALUE
    page.get_by_role("button", name="Delete WEATHER_API_KEY").click()
    page.wait_for_url(re.compile(r"done=deleted"))
    assert "No secrets are set." in page.locator("main").inner_text()
    assert "WEATHER_API_KEY" not in SecretStore(server.registry)
    lines = [json.loads(line) for line in (state_folder(server.registry) / "requests.jsonl").read_text().splitlines()]
    assert {"token": "admin", "method": "POST", "path": "/ui/secrets", "subject": "secret WEATHER_API_KEY"}.items() <= (
        next(line for line in lines if (line["method"], line["path"]) == ("POST", "/ui/secrets")).items()
    )
    assert VALUE not in (state_folder(server.registry) / "requests.jsonl").read_text()
    assert VALUE not in server.log.read_text(errors="replace")


def test_a_bad_name_is_a_page_with_its_code(page, server):  # noqa: F811
    sign_in(page, server)
    page.goto(f"{server.url}/ui/secrets")
    page.get_by_label("Name").evaluate("field => field.removeAttribute('pattern')")  # past the browser's own check
    page.get_by_label("Name").fill("lower_case")
    page.get_by_label("Value").fill(VALUE)
    page.get_by_role("button", name="Set secret").click()
    assert "R0740" in page.locator("main").inner_text()
    assert VALUE not in page.content()


@pytest.mark.parametrize(("scope", "acting_as", "code"), [("read", "user", "R0503"), ("admin", "llm", "R0201")])
def test_who_may_not_manage_secrets_sees_no_link_and_is_refused_the_page(page, server, scope, acting_as, code):  # noqa: F811
    SecretStore(server.registry).set("HIDDEN_KEY", VALUE)
    page.goto(f"{server.url}/")
    page.get_by_label("API token").fill(server.tokens[scope])
    page.get_by_label("Acting as").select_option(acting_as)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/ui/tools"))
    assert page.get_by_role("link", name="Secrets").count() == 0
    answer = page.goto(f"{server.url}/ui/secrets")
    assert answer is not None and answer.status == 403
    assert code in page.locator("main").inner_text() and "HIDDEN_KEY" not in page.content()
    SecretStore(server.registry).delete("HIDDEN_KEY")
