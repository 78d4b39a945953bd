"""The web page in-process (FastAPI's TestClient): sessions, CSRF, escaping and the error paths.
The browser tests (tests/integration/test_web_browser.py) drive the same pages in chromium."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore
from toolkiln.server.web.sessions import SESSION_COOKIE, SESSION_SECONDS, SessionError, Signer

SHIP = {
    "name": "ship",
    "description": "Shipping <script>alert('pwned')</script> cost",
    "parameters": {"w": {"type": "number", "description": "weight"}},
    "logic": {"steps": [{"op": "return", "value": "w * 2"}]},
    "examples": [{"args": {"w": 1}, "expect": 2}],
}
RISKY = 'tool risky(x: number) description "A model\'s tool" risk high {\n  return x + 1\n}'
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


class Page:
    """A browser-like client of one app: cookies kept, signed in with one token."""

    def __init__(self, app, token: str, acting_as: str = "user") -> None:
        self.client = TestClient(app, base_url="http://127.0.0.1")
        form = self.client.get("/ui/sign-in")
        answer = self.client.post(
            "/ui/sign-in",
            data={"token": token, "acting_as": acting_as, "csrf_token": csrf_of(form.text), "next": "/ui/tools"},
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
        self.csrf = csrf_of(self.client.get("/ui/tools").text)

    def post(self, path: str, data: dict[str, str] | None = None, **options):
        return self.client.post(path, data={"csrf_token": self.csrf, **(data or {})}, follow_redirects=False, **options)


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, html
    return found.group(1)


@pytest.fixture()
def app(tmp_path: Path):
    app = create_app(Settings(registry=tmp_path / "reg", max_body_bytes=1024 * 1024))
    registry = app.state.services.registries.default
    registry.create(SHIP)
    registry.create(RISKY, created_by="llm")
    return app


@pytest.fixture()
def tokens(app) -> dict[str, str]:
    store = TokenStore(state_folder(app.state.services.registries.default.path))
    return {scope: store.create(scope, scope, "person")[0] for scope in ("read", "run", "write", "admin")}


# --- sessions -------------------------------------------------------------------------------------


def test_a_session_cookie_reads_back_and_any_changed_byte_is_tampering(tokens, app):
    signer = Signer(b"k" * 32)
    info = app.state.services.tokens.entries()[0]
    session, cookie = signer.new_session(info, "user", now=1000)
    assert signer.read_session(cookie, now=1001) == session
    payload, mac = cookie.split(".")
    flipped = payload[:-1] + ("A" if payload[-1] != "A" else "B")
    for bad in (f"{flipped}.{mac}", f"{payload}.{mac[:-1]}x", payload, "", "a.b.c"):
        with pytest.raises(SessionError) as refused:
            signer.read_session(bad, now=1001)
        assert refused.value.reason == "tampered"
    with pytest.raises(SessionError) as late:
        signer.read_session(cookie, now=1000 + SESSION_SECONDS)
    assert late.value.reason == "expired"
    with pytest.raises(SessionError):
        Signer(b"x" * 32).read_session(cookie, now=1001)  # another folder's secret


def test_signing_in_sets_an_httponly_strict_cookie_and_a_wrong_token_is_refused(app, tokens):
    client = TestClient(app, base_url="http://127.0.0.1")
    form = client.get("/ui/sign-in")
    wrong = client.post("/ui/sign-in", data={"token": "tk_nope", "csrf_token": csrf_of(form.text)})
    assert wrong.status_code == 401 and "R0513" in wrong.text and SESSION_COOKIE not in wrong.cookies
    form = client.get("/ui/sign-in")
    right = client.post(
        "/ui/sign-in",
        data={"token": tokens["admin"], "csrf_token": csrf_of(form.text), "next": "https://evil.example/"},
        follow_redirects=False,
    )
    assert right.status_code == 303 and right.headers["location"] == "/ui/tools"  # never off-site
    cookie = next(h for h in right.headers.get_list("set-cookie") if h.startswith(SESSION_COOKIE))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and f"Max-Age={SESSION_SECONDS}" in cookie


def test_the_sign_in_form_needs_its_csrf_token(app, tokens):
    client = TestClient(app, base_url="http://127.0.0.1")
    client.get("/ui/sign-in")
    refused = client.post("/ui/sign-in", data={"token": tokens["admin"], "csrf_token": "forged"})
    assert refused.status_code == 403 and "R0516" in refused.text and SESSION_COOKIE not in refused.cookies


def test_pages_without_a_session_go_to_sign_in_and_htmx_is_told_to(app):
    client = TestClient(app, base_url="http://127.0.0.1")
    page = client.get("/ui/tools/ship?tab=audit", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/ui/sign-in?next=/ui/tools/ship"
    fragment = client.post("/ui/check", headers={"HX-Request": "true"}, follow_redirects=False)
    assert fragment.headers["HX-Redirect"].startswith("/ui/sign-in")


def test_a_tampered_cookie_ends_at_sign_in_with_its_code_and_no_trace(app, tokens):
    page = Page(app, tokens["admin"])
    cookie = page.client.cookies[SESSION_COOKIE]
    payload, mac = cookie.split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body["a"] = "llm"  # a person's session made a model's: the signature no longer matches
    forged = base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")
    page.client.cookies.clear()
    page.client.cookies.set(SESSION_COOKIE, f"{forged}.{mac}", domain="127.0.0.1")
    answer = page.client.get("/ui/tools", follow_redirects=False)
    assert answer.status_code == 303 and "notice=R0515" in answer.headers["location"]
    assert 'toolkiln_session=""' in answer.headers["set-cookie"]  # dropped
    shown = page.client.get(answer.headers["location"])
    assert "R0515" in shown.text and "Traceback" not in shown.text


def test_revoking_the_token_ends_its_sessions(app, tokens):
    page = Page(app, tokens["admin"])
    TokenStore(state_folder(app.state.services.registries.default.path)).revoke("admin")
    answer = page.client.get("/ui/tools", follow_redirects=False)
    assert answer.status_code == 303 and "notice=R0514" in answer.headers["location"]


# --- CSRF, scopes, the policy ---------------------------------------------------------------------


def test_every_form_post_needs_the_sessions_csrf_token(app, tokens):
    page = Page(app, tokens["admin"])
    for path in ("/ui/tools/risky/actions/approve", "/ui/check", "/ui/new", "/ui/tools/ship/run", "/ui/sign-out"):
        without = page.client.post(path, data={"definition": "x"}, follow_redirects=False)
        forged = page.client.post(path, data={"csrf_token": "A" * 43}, follow_redirects=False)
        for answer in (without, forged):
            assert answer.status_code == 403, path
            assert "R0516" in answer.text and answer.headers["content-type"].startswith("text/html")
    assert app.state.services.registries.default.get("risky").status == "pending_approval"
    other = Page(app, tokens["write"])  # another session's token is not this one's
    assert page.post("/ui/tools/risky/actions/disable", {"csrf_token": other.csrf}).status_code == 403


def test_approve_and_reject_need_admin_and_a_reason_and_the_audit_names_the_token(app, tokens):
    writer = Page(app, tokens["write"])
    refused = writer.post("/ui/tools/risky/actions/approve")
    assert refused.status_code == 403 and "R0503" in refused.text
    admin = Page(app, tokens["admin"])
    no_reason = admin.post("/ui/tools/risky/actions/reject", {"reason": "  "})
    assert no_reason.status_code == 422 and "R0518" in no_reason.text
    done = admin.post("/ui/tools/risky/actions/reject", {"reason": "adds one; use <b>plus</b>"})
    assert done.status_code == 303
    entry = app.state.services.registries.default.audit_log("risky")[-1]
    assert (entry.action, entry.by, entry.note, entry.via) == (
        "reject",
        "user",
        "adds one; use <b>plus</b>",
        "token admin (web page)",
    )
    audit = admin.client.get("/ui/tools/risky?tab=audit").text
    assert "adds one; use &lt;b&gt;plus&lt;/b&gt;" in audit and "token admin (web page)" in audit


def test_a_model_session_cannot_delete_a_persons_tool(app, tokens):
    model = Page(app, tokens["admin"], acting_as="llm")
    refused = model.post("/ui/tools/ship/actions/delete")
    assert refused.status_code == 403 and "R0201" in refused.text
    assert "ship" in app.state.services.registries.default
    assert model.post("/ui/tools/risky/actions/delete").status_code == 303  # its own kind's tool
    assert "risky" not in app.state.services.registries.default


# --- escaping and bad input -----------------------------------------------------------------------


def test_html_in_a_description_or_a_name_is_text_everywhere(app, tokens):
    page = Page(app, tokens["admin"])
    for path in ("/ui/tools", "/ui/tools/ship", "/ui/tools/ship?tab=versions", "/ui/tools/ship/confirm/delete"):
        html = page.client.get(path).text
        assert "<script>alert" not in html and "&lt;script&gt;alert(&#39;pwned&#39;)" in html, path
    bad_name = page.client.get("/ui/tools/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    assert bad_name.status_code == 400 and "<img" not in bad_name.text and "&lt;img" in bad_name.text
    created = page.post("/ui/new", {"definition": 'tool <b>x</b>() description "d" { return 1 }'})
    assert created.status_code == 422 and "<b>x</b>" not in created.text and "E01" in created.text


def test_pages_carry_a_strict_content_security_policy(app, tokens):
    page = Page(app, tokens["read"])
    headers = page.client.get("/ui/tools").headers
    assert "script-src 'self'" in headers["content-security-policy"] and headers["x-frame-options"] == "DENY"
    assert headers["cache-control"] == "no-store"


def test_a_5_mb_definition_is_the_body_limit_as_a_page_fragment(app, tokens):
    page = Page(app, tokens["write"])
    huge = 'tool big() description "d" {\n' + "  # padding\n" * 450_000 + "  return 1\n}\n"
    answer = page.post("/ui/check", {"definition": huge}, headers={"HX-Request": "true"})
    assert answer.status_code == 413 and answer.headers["content-type"].startswith("text/html")
    assert "R0505" in answer.text and "Traceback" not in answer.text and "<html" not in answer.text
    saved = page.post("/ui/new", {"definition": huge})
    assert saved.status_code == 413 and "<html" in saved.text and "R0505" in saved.text
    assert "big" not in app.state.services.registries.default


def test_unknown_tools_and_routes_are_pages_not_json(app, tokens):
    page = Page(app, tokens["read"])
    missing = page.client.get("/ui/tools/nothing_here")
    assert missing.status_code == 404 and "R0102" in missing.text and "<html" in missing.text
    assert page.client.get("/api/v1/tools/nothing_here").headers["content-type"] == "application/problem+json"


# --- the list, the editor and the test panel -------------------------------------------------------


def test_the_list_filters_searches_and_counts(app, tokens):
    app.state.services.registries.default.run("ship", {"w": 1})
    app.state.services.registries.default.flush()
    page = Page(app, tokens["read"])
    assert re.search(r'most used:\s*<a href="/ui/tools/ship">ship</a> \(1\)', page.client.get("/ui/tools").text)
    pending = page.client.get("/ui/tools?status=pending_approval").text
    assert '<td><a href="/ui/tools/risky">' in pending and '<td><a href="/ui/tools/ship">' not in pending
    assert re.search(r'aria-label="1 tools pending approval">1<', pending)
    by_llm = page.client.get("/ui/tools?created_by=llm&q=model").text
    assert "risky" in by_llm and "1 of 2 tools" in by_llm
    assert "0 of 2 tools" in page.client.get("/ui/tools?kind=workflow").text
    assert "2 of 2 tools" in page.client.get("/ui/tools?status=bogus&page=x").text  # unknown values: ignored
    for odd in ("\u00b2", "9" * 5000, "-1", "0"):  # a superscript digit, past int()'s digit limit
        assert page.client.get("/ui/tools", params={"page": odd}).status_code == 200


def test_the_editor_checks_as_you_type_and_saves_only_clean_definitions(app, tokens):
    page = Page(app, tokens["write"])
    typo = 'tool area(w: number, h: number) description "Area" {\n  return w * hh\n}'
    checked = page.post("/ui/check", {"definition": typo}, headers={"HX-Request": "true"})
    assert "E0201" in checked.text and "  return w * hh" in checked.text and "^^" in checked.text
    assert re.search(r'<button id="save"[^>]*hx-swap-oob="true"[^>]* disabled', checked.text)
    fixed = page.post("/ui/check", {"definition": typo.replace("hh", "h")}, headers={"HX-Request": "true"})
    assert "No problems found" in fixed.text and " disabled" not in fixed.text
    assert page.post("/ui/new", {"definition": typo}).status_code == 422
    saved = page.post("/ui/new", {"definition": typo.replace("hh", "h")})
    assert saved.status_code == 303 and app.state.services.registries.default.get("area").created_by == "user"
    read_only = Page(app, tokens["read"])
    assert read_only.post("/ui/new", {"definition": typo.replace("hh", "h")}).status_code == 403


def test_the_test_panel_runs_and_shows_the_run_error_with_its_location(app, tokens):
    page = Page(app, tokens["run"])
    ran = page.post("/ui/tools/ship/run", {"arg.w": "21"}, headers={"HX-Request": "true"})
    assert "<code>42</code>" in ran.text and "Counted as a use" in ran.text
    typed = page.post("/ui/tools/ship/run", {"arg.w": "heavy"}, headers={"HX-Request": "true"})
    assert "R0517" in typed.text and "<code>w</code>" in typed.text
    missing = page.post("/ui/tools/ship/run", {}, headers={"HX-Request": "true"})
    assert "E0508" in missing.text and "The run failed" in missing.text
    pending = page.post("/ui/tools/risky/run", {"arg.x": "1"}, headers={"HX-Request": "true"})
    assert "<code>2</code>" in pending.text and "Not counted" in pending.text
    assert app.state.services.registries.default.get("risky").usage_count == 0


def test_editing_makes_a_new_version_and_a_refused_save_keeps_the_text(app, tokens):
    page = Page(app, tokens["write"])
    editor = page.client.get("/ui/tools/ship/edit").text
    assert "&#34;examples&#34;" in editor  # a tool with examples is edited as JSON
    changed = {**SHIP, "logic": {"steps": [{"op": "return", "value": "w * 2 + 0"}]}}
    saved = page.post("/ui/tools/ship/edit", {"definition": json.dumps(changed)})
    assert saved.status_code == 303 and "tab=versions" in saved.headers["location"]
    assert app.state.services.registries.default.get("ship").version == 2
    wrong = {**changed, "examples": [{"args": {"w": 1}, "expect": 3}]}
    refused = page.post("/ui/tools/ship/edit", {"definition": json.dumps(wrong)})
    assert refused.status_code == 422 and "E0611" in refused.text and "&#34;expect&#34;: 3" in refused.text
    renamed = page.post("/ui/tools/ship/edit", {"definition": json.dumps({**changed, "name": "boat"})})
    assert renamed.status_code == 422 and app.state.services.registries.default.get("ship").version == 2
    versions = page.client.get("/ui/tools/ship?tab=versions").text
    assert "Roll back to 1" in versions and "diff-replace" in versions
    assert page.client.get("/ui/tools/ship?tab=versions&left=\u00b2&right=" + "9" * 5000).status_code == 200
    for odd in ("\u00b2", "9" * 5000, "x"):
        refused = page.post("/ui/tools/ship/actions/rollback", {"version": odd})
        assert refused.status_code == 400 and "R0104" in refused.text


def test_disable_and_enable_through_the_confirmation_pages(app, tokens):
    page = Page(app, tokens["write"])
    confirm = page.client.get("/ui/tools/ship/confirm/disable").text
    assert 'action="/ui/tools/ship/actions/disable"' in confirm and "Yes, disable" in confirm
    assert page.post("/ui/tools/ship/actions/disable").status_code == 303
    assert app.state.services.registries.default.get("ship").status == "disabled"
    shown = page.client.get("/ui/tools/ship").text
    assert "/confirm/enable" in shown and "/confirm/disable" not in shown
    assert page.post("/ui/tools/ship/actions/enable").status_code == 303
    assert app.state.services.registries.default.get("ship").status == "active"
    again = page.post("/ui/tools/ship/actions/enable")  # the lifecycle's rule: not from active
    assert again.status_code == 409 and "R0202" in again.text


def test_the_pages_count_against_the_tokens_rate_limit(tmp_path, tokens):
    limited = create_app(Settings(registry=tmp_path / "reg", rate_limit="3/minute"))
    page = Page(limited, tokens["read"])  # the list after sign-in: 1 of 3
    assert page.client.get("/ui/tools").status_code == 200
    assert page.client.get("/ui/tools").status_code == 200
    over = page.client.get("/ui/tools")
    assert over.status_code == 429 and "R0504" in over.text and over.headers["retry-after"].isdigit()
    assert over.headers["content-type"].startswith("text/html")


def test_over_https_the_cookies_are_secure_too(app, tokens):
    client = TestClient(app, base_url="https://127.0.0.1")
    form = client.get("/ui/sign-in")
    assert "Secure" in form.headers["set-cookie"]
    signed = client.post(
        "/ui/sign-in", data={"token": tokens["read"], "csrf_token": csrf_of(form.text)}, follow_redirects=False
    )
    cookie = next(h for h in signed.headers.get_list("set-cookie") if h.startswith(SESSION_COOKIE))
    assert "Secure" in cookie and "HttpOnly" in cookie


def test_a_tool_that_runs_unsandboxed_says_so_on_its_page(tmp_path):
    from toolkiln.registry.capabilities import Capabilities

    granted = Capabilities(unsandboxed=True, network=True)
    app = create_app(Settings(registry=tmp_path / "reg", capabilities=granted))
    registry = app.state.services.registries.default
    script = {"kind": "script", "name": "loose", "description": "Echoes.", "runtime": "bash", "body": "cat"}
    registry.create({**script, "sandbox": "none"})
    registry.create({**script, "name": "fetcher", "network": True})
    token = TokenStore(state_folder(registry.path)).create("reader", "read", "person")[0]
    page = Page(app, token)
    loose = page.client.get("/ui/tools/loose").text
    assert "runs without the sandbox" in loose and "has the network" not in loose
    fetcher = page.client.get("/ui/tools/fetcher").text
    assert "has the network" in fetcher and "runs without the sandbox" not in fetcher


def test_a_record_the_registry_did_not_write_here_is_marked_not_trusted(app, tokens):
    registry = app.state.services.registries.default
    path = registry.path / "tools" / "risky.json"
    path.write_text(path.read_text().replace('"pending_approval"', '"active"'))  # a hand edit
    registry.refresh()
    page = Page(app, tokens["read"])
    listed = page.client.get("/ui/tools").text
    assert listed.count("not trusted here</span>") == 1
    shown = page.client.get("/ui/tools/risky").text
    assert "not trusted here" in shown and f"toolkiln trust {registry.path} --tool risky" in shown
    assert "not trusted here" not in page.client.get("/ui/tools/ship").text


def test_the_test_panel_and_the_examples_show_the_digits_computed(app, tokens):
    priced = {**SHIP, "name": "priced", "logic": {"steps": [{"op": "return", "value": "w * 2.50"}]}, "examples": []}
    app.state.services.registries.default.create({**priced, "examples": [{"args": {"w": 1}, "expect": 2.5}]})
    page = Page(app, tokens["run"])
    ran = page.post("/ui/tools/priced/run", {"arg.w": "12"}, headers={"HX-Request": "true"})
    assert "<code>30.00</code>" in ran.text  # was 30
    examples = page.client.get("/ui/tools/priced?tab=examples").text
    assert "passed</span> <code>2.50</code>" in examples  # the example's run, was 2.5


# --- a page without surprises (issue 25, item 4) --------------------------------------------------

ACTION_LINK = re.compile(r'class="button action-(\w+)"')


def test_a_refused_save_says_not_saved_in_a_box_the_live_check_does_not_replace(app, tokens):
    page = Page(app, tokens["write"])
    registry = app.state.services.registries.default
    registry.create('tool shipping_cost(w: number) description "Taken" {\n  return w\n}')
    starter = page.client.get("/ui/new").text
    assert "tool shipping_cost_2(" in starter  # the example saves as it is: its name is free
    taken = 'tool shipping_cost(w: number) description "Again" {\n  return w * 2\n}'
    refused = page.post("/ui/new", {"definition": taken, "new": "1"})
    assert refused.status_code == 422
    box = re.search(r'(?s)<section class="refused" id="save-refused" role="alert".*?</section>', refused.text)
    assert box and "Not saved" in box.group(0) and "R0103" in box.group(0)
    assert 'id="diagnostics"' not in box.group(0)  # outside what the live check swaps
    assert registry.get("shipping_cost").description == "Taken"
    live = page.post("/ui/check", {"definition": taken, "new": "1"}, headers={"HX-Request": "true"})
    assert "R0103" in live.text and "No problems found" not in live.text
    assert re.search(r'<button id="save"[^>]* disabled', live.text)
    editing = page.post("/ui/check", {"definition": taken}, headers={"HX-Request": "true"})
    assert "No problems found" in editing.text  # editing that tool: its own name is no problem


def test_the_page_offers_only_what_the_visitors_scope_and_kind_allow(app, tokens):
    def offered(page: Page, name: str) -> tuple[set[str], bool]:
        html = page.client.get(f"/ui/tools/{name}").text
        return set(ACTION_LINK.findall(html)), f'href="/ui/tools/{name}/edit"' in html

    admin, writer, reader = Page(app, tokens["admin"]), Page(app, tokens["write"]), Page(app, tokens["read"])
    model = Page(app, tokens["admin"], acting_as="llm")
    assert offered(admin, "risky") == ({"approve", "reject", "delete"}, True)
    assert offered(writer, "risky") == ({"delete"}, True)  # approving needs admin
    assert offered(reader, "risky") == (set(), False)
    assert offered(model, "risky") == ({"delete"}, True)  # a model never approves
    assert offered(model, "ship") == (set(), False)  # nor changes a person's tool
    assert offered(admin, "ship") == ({"disable", "delete"}, True)
    versions = model.client.get("/ui/tools/ship?tab=versions").text
    assert "/confirm/rollback" not in versions
    confirm = model.client.get("/ui/tools/risky/confirm/approve").text
    assert 'action="/ui/tools/risky/actions/approve"' not in confirm and "only a person can approve" in confirm


def test_every_page_footer_names_the_real_version(app, tokens):
    from toolkiln.version import __version__

    page = Page(app, tokens["admin"])
    for path in ("/ui/tools", "/ui/tools/ship/confirm/delete", "/ui/tools/ship/confirm/rollback?version=1"):
        assert f'<footer class="foot">toolkiln {__version__}</footer>' in page.client.get(path).text, path


def test_the_parameters_tab_says_types_in_words(app, tokens):
    registry = app.state.services.registries.default
    registry.create('tool typed(items: array[{"p": number}], n: number?, d: date) description "Types" {\n  return n\n}')
    html = Page(app, tokens["read"]).client.get("/ui/tools/typed?tab=parameters").text
    cells = re.findall(r'<td class="type">([^<]*)</td>', html)
    assert cells == ["array of record of p (number)", "number or null", "date"]
    assert "&#34;" not in html.split('class="params"')[1].split("</table>")[0]


def test_an_error_page_keeps_the_navigation_and_says_its_message_once(app, tokens):
    page = Page(app, tokens["write"])
    missing = page.client.get("/ui/tools/nope")
    assert missing.status_code == 404
    assert '<nav aria-label="Main">' in missing.text and 'href="/ui/new"' in missing.text
    assert "Signed in with token <strong>write</strong>" in missing.text
    assert missing.text.count("no tool named `nope`") == 1 and missing.text.count("Tool not found") == 2  # title, h1
    fragment = page.client.get("/ui/tools/nope", headers={"HX-Request": "true"})
    assert fragment.text.count("no tool named `nope`") == 1 and "<nav" not in fragment.text


def test_the_live_check_says_where_each_diagnostic_is_for_the_editor_to_mark(app, tokens):
    page = Page(app, tokens["write"])
    typo = 'tool area(w: number, h: number) description "Area" {\n  return w * hh\n}'
    checked = page.post("/ui/check", {"definition": typo}, headers={"HX-Request": "true"})
    assert 'data-line="2" data-column="14" data-end-line="2" data-end-column="16"' in checked.text
    assert ">Go to line 2, column 14</button>" in checked.text
    editor = page.client.get("/ui/new").text
    assert 'src="/ui/static/codemirror/codemirror.js"' in editor
    assert re.search(r'data-keywords="[^"]*\breturn\b[^"]*\btool\b', editor)
    assert page.client.get("/ui/static/codemirror/codemirror.js").status_code == 200
