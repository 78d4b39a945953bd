"""The web page in a real browser: Debian's chromium (scripts/browser-install.sh), driven headless
by Playwright, against a real `toolkiln serve` process on 127.0.0.1. Each test writes screenshots
of the pages it visits to build/web-screenshots/ (docs/images/ has a few of them).

Without chromium the tests are skipped with the reason, except under CI (CI=true), where that
is a failure: CI installs it.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from test_server_support import ServerProcess, make_tokens

from toolkiln.registry.registry import Registry

pytest.importorskip("playwright.sync_api")
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "web-screenshots"
TIMEOUT_MS = 15_000

SHIPPING = {
    "name": "shipping_cost",
    "description": "Shipping cost of a parcel",
    "parameters": {
        "weight_kg": {"type": "number", "description": "Parcel weight in kilograms"},
        "express": {"type": "boolean", "default": False, "description": "Next-day delivery"},
    },
    "logic": {"steps": [{"op": "return", "value": "weight_kg * 2.50 + 5.00 + (10 if express else 0)"}]},
    "examples": [{"args": {"weight_kg": 2}, "expect": 10}],
}
ORDER_TOTAL = {
    "name": "order_total",
    "description": "Total of an order's lines",
    "parameters": {"items": {"type": "array", "items": {"type": "object"}, "description": "Order lines"}},
    "logic": {"steps": [{"op": "return", "value": "sum(i.price * i.qty for i in items)"}]},
    "examples": [{"args": {"items": [{"price": 2, "qty": 3}]}, "expect": 6}],
}
REFUND = (
    'tool refund_order(amount: number "Refund amount") description "Refunds an order" risk high {\n  return amount\n}'
)
WORKFLOW = (ROOT / "tests" / "golden" / "workflows" / "switch_merge.wf").read_text(encoding="utf-8")


def seeded_server(folder: Path) -> ServerProcess:
    """A `toolkiln serve` process on a registry of the six tools the tests look at."""
    registry_path = folder / "registry"
    tokens = make_tokens(registry_path)
    with Registry(registry_path) as registry:  # the server notices tools made by other processes
        registry.create(SHIPPING)
        registry.create(ORDER_TOTAL)
        registry.create(REFUND, created_by="llm")  # high risk: waits for a person
        registry.create(
            {
                "kind": "workflow",
                "name": "switch_probe",
                "description": "Sizes a number through a switch",
                "parameters": {"n": {"type": "number"}},
                "workflow": WORKFLOW,
            },
            created_by="llm",
        )
        registry.create('tool label(x: number) description "Labels a number" {\n  return "small"\n}')
        registry.create(  # a description that tries to run script on the page
            'tool sly(x: number) description "<img src=x onerror=alert(1)><script>alert(2)</script>" {\n  return x\n}'
        )
        registry.update("label", {"logic": {"steps": [{"op": "return", "value": '"big" if x > 10 else "small"'}]}})
    process = ServerProcess(registry_path)
    process.tokens = tokens  # type: ignore[attr-defined]
    return process


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    """The server of the tests that only look: none of them changes its registry, so each sees
    the six tools as made, whatever ran before it on its worker (xdist's worksteal can run a
    module's later tests before its earlier ones)."""
    process = seeded_server(tmp_path_factory.mktemp("web"))
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


@pytest.fixture()
def own_server(tmp_path) -> Iterator[ServerProcess]:
    """A server of its own for a test that changes the registry (approves, creates, rolls
    back, disables)."""
    process = seeded_server(tmp_path)
    yield process
    assert process.stop() in (0, -signal.SIGTERM)


@pytest.fixture
def browser(chromium):
    """The test process's chromium (conftest.py: one for all the browser test files)."""
    return chromium


@pytest.fixture()
def page(browser, request):
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.shots = Shots(opened, request.node.name)  # type: ignore[attr-defined]
    yield opened
    context.close()
    assert errors == [], errors  # no script error on any page (htmx, web.js, the CSP)


class Shots:
    """Screenshots of the pages a test visits: build/web-screenshots/<test>-<n>-<what>.png."""

    def __init__(self, page, test: str) -> None:
        self.page, self.test, self.count = page, re.sub(r"\W+", "_", test), 0

    def take(self, what: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.count += 1
        path = SHOTS / f"{self.test}-{self.count}-{what}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


def sign_in(page, server: ServerProcess, scope: str = "admin") -> None:
    page.goto(f"{server.url}/")
    page.get_by_label("API token").fill(server.tokens[scope])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/ui/tools")


def type_definition(page, text: str) -> None:
    """Replace the editor's text as a paste would (CodeMirror's change, which the page sends to
    the live check)."""
    page.locator(".CodeMirror").wait_for()
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)", text)


def api_status(server: ServerProcess, name: str) -> str:
    with server.client(server.tokens["read"]) as http:
        return str(http.get(f"/api/v1/tools/{name}").json()["status"])


def test_sign_in_with_a_wrong_token_then_a_right_one(page, server):
    page.goto(f"{server.url}/")
    page.shots.take("sign-in")
    page.get_by_label("API token").fill("tk_not_a_token")
    page.get_by_role("button", name="Sign in").click()
    assert "R0513" in page.locator("#sign-in-error").inner_text()
    sign_in(page, server)
    assert page.get_by_role("link", name="shipping_cost").is_visible()
    assert "Signed in with token admin" in page.locator(".who").inner_text()
    page.shots.take("list")


def test_filter_and_search_the_list(page, server):
    sign_in(page, server, "read")
    page.get_by_label("Status").select_option("pending_approval")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"status=pending_approval"))
    names = page.locator("table.tools tbody td:first-child a").all_inner_texts()
    assert sorted(names) == ["refund_order", "switch_probe"]
    page.shots.take("pending")
    page.get_by_label("Search").fill("REFUND")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"q=REFUND"))
    assert page.locator("table.tools tbody td:first-child a").all_inner_texts() == ["refund_order"]
    assert page.locator("#matches").inner_text().startswith("1 of 6 tools")


def test_approve_a_pending_tool_and_see_it_through_the_api(page, own_server):
    sign_in(page, own_server)
    assert page.locator(".pending-link .badge").inner_text() == "2"
    page.get_by_role("link", name="refund_order").click()
    page.shots.take("pending-tool")
    page.get_by_role("link", name="Approve").click()
    page.shots.take("confirm-approve")
    page.get_by_role("button", name="Yes, approve").click()
    page.wait_for_url(re.compile(r"tab=audit"))
    assert page.locator(".facts .status").inner_text().strip() == "Active"
    assert "token admin (web page)" in page.locator("table.audit tbody tr").first.inner_text()
    page.shots.take("audit")
    assert api_status(own_server, "refund_order") == "active"
    assert page.locator(".pending-link .badge").inner_text() == "1"


def test_run_a_tool_from_its_test_form(page, server):
    sign_in(page, server, "run")
    page.goto(f"{server.url}/ui/tools/shipping_cost?tab=test")
    page.get_by_label("weight_kg (required)").fill("4")
    page.get_by_label("express").select_option("true")
    page.get_by_role("button", name="Run").click()
    assert page.locator("#result-value").inner_text() == "25.00"  # the digits computed (2.50, 5.00)
    page.shots.take("test-result")
    page.get_by_label("weight_kg (required)").fill("four")
    page.get_by_role("button", name="Run").click()
    failure = page.locator(".run-error")
    assert "R0517" in failure.inner_text() and "weight_kg" in failure.inner_text()
    page.goto(f"{server.url}/ui/tools/order_total?tab=test")
    page.get_by_label("items row 1 price").fill("2.5")
    page.get_by_label("items row 1 qty").fill("4")
    page.get_by_label("items row 2 price").fill("1")
    page.get_by_label("items row 2 qty").fill("3")
    page.get_by_role("button", name="Run").click()
    assert page.locator("#result-value").inner_text() == "13.0"  # 2.5 x 4 + 1 x 3, digits as computed
    page.shots.take("table-form")


def test_create_a_tool_with_a_typo_see_the_diagnostic_fix_it_and_save(page, own_server):
    sign_in(page, own_server, "write")
    page.get_by_role("link", name="New tool").click()
    type_definition(
        page, 'tool area(w: number, h: number) description "Area of a rectangle" {\n  return w * hieght\n}\n'
    )
    diagnostic = page.locator("pre.diagnostic-error")
    diagnostic.wait_for()
    assert "E0201" in diagnostic.inner_text() and "^" in diagnostic.inner_text()
    assert page.locator("#save").is_disabled()
    page.shots.take("editor-typo")
    type_definition(page, 'tool area(w: number, h: number) description "Area of a rectangle" {\n  return w * h\n}\n')
    page.locator("#diagnostic-summary", has_text="No problems found").wait_for()
    assert page.locator("#save").is_enabled()
    page.locator("#save").click()
    page.wait_for_url(re.compile(r"/ui/tools/area"))
    assert "Created." in page.locator(".done").inner_text()
    page.shots.take("created")
    with own_server.client(own_server.tokens["read"]) as http:
        assert http.post("/api/v1/tools/area/execute", json={"args": {"w": 3, "h": 4}}).status_code == 403  # read
    with own_server.client(own_server.tokens["run"]) as http:
        assert http.post("/api/v1/tools/area/execute", json={"args": {"w": 3, "h": 4}}).json()["result"] == 12


def test_roll_back_a_version(page, own_server):
    sign_in(page, own_server, "write")
    page.goto(f"{own_server.url}/ui/tools/label?tab=versions")
    assert page.locator("table.diff tr.diff-replace").count() >= 1  # version 1 against version 2
    page.shots.take("versions")
    page.get_by_role("link", name="Roll back to 1").click()
    page.get_by_role("button", name="Yes, rollback to version 1").click()
    page.wait_for_url(re.compile(r"tab=versions"))
    with own_server.client(own_server.tokens["read"]) as http:
        record = http.get("/api/v1/tools/label").json()
    assert record["version"] == 3 and "small" in str(record["definition"]) and "big" not in str(record["definition"])


def test_the_workflow_graph_is_drawn(page, server):
    sign_in(page, server, "read")
    page.goto(f"{server.url}/ui/tools/switch_probe?tab=graph")
    graph = page.locator("svg.workflow-graph")
    assert graph.locator("g.node").count() == 7
    assert graph.locator("g.node-trigger").count() == 1 and graph.locator("g.node-branch").count() == 1
    assert graph.locator("text.edge-label").all_text_contents() == ["case 1", "case 2", "case 3"]
    page.shots.take("graph")
    page.goto(f"{server.url}/ui/tools/shipping_cost")
    assert page.locator("pre.code .tk-keyword").first.inner_text() == "tool"
    page.shots.take("definition")


def test_hostile_text_stays_text_and_a_5_mb_paste_is_refused_clearly(page, server):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    sign_in(page, server, "write")
    page.goto(f"{server.url}/ui/tools?q=sly")
    assert "<script>alert(2)</script>" in page.locator("table.tools .description").inner_text()
    page.goto(f"{server.url}/ui/tools/sly")
    assert "onerror=alert(1)" in page.locator("p.description").inner_text()
    page.goto(f"{server.url}/ui/new")
    page.locator("#diagnostic-summary", has_text="No problems found").wait_for()  # the starter checks
    huge = 'tool big() description "d" {\n' + ("  # " + "x" * 996 + "\n") * 5_200 + "  return 1\n}\n"  # 5.2 MB
    page.evaluate(
        "text => { const e = document.getElementById('definition'); e.value = text;"
        " e.dispatchEvent(new Event('input', {bubbles: true})); }",
        huge,
    )
    refusal = page.locator("#diagnostics .problem")
    refusal.wait_for(timeout=90_000)  # 5 MB through the browser on a loaded machine
    assert "R0505" in refusal.inner_text() and "larger than 1048576 bytes" in refusal.inner_text()
    assert page.locator("#save").is_disabled()
    assert dialogs == []


UNLABELLED = """() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
  .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby')
               && !(e.tagName === 'BUTTON' && e.textContent.trim()))
  .map(e => e.outerHTML.slice(0, 80))"""


def test_every_control_has_a_label_and_status_is_not_colour_alone(page, server):
    page.goto(f"{server.url}/ui/sign-in")
    assert page.evaluate(UNLABELLED) == []
    sign_in(page, server, "admin")
    for path in (
        "/ui/tools",
        "/ui/tools/order_total?tab=test",
        "/ui/tools/shipping_cost?tab=test",
        "/ui/tools/label?tab=versions",
        "/ui/tools/switch_probe/confirm/reject",
        "/ui/new",
    ):
        page.goto(f"{server.url}{path}")
        assert page.evaluate(UNLABELLED) == [], path
    page.goto(f"{server.url}/ui/tools")
    for badge in page.locator("table.tools .status").all():  # words besides the colour
        assert badge.inner_text().strip() in ("Active", "Disabled", "Pending approval", "Rejected")


def tab_to(page, selector: str, presses: int = 80) -> None:
    """Press Tab until the element `selector` has the focus (as a keyboard user would)."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} never got the focus in {presses} Tab presses")


def test_keyboard_only_sign_in_find_and_disable_a_tool(page, own_server):
    page.goto(f"{own_server.url}/")
    assert page.evaluate("document.activeElement.id") == "token"  # the form starts where typing does
    page.keyboard.type(own_server.tokens["write"])
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: urlsplit(url).path == "/ui/tools")
    tab_to(page, "#q")
    page.keyboard.type("shipping")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"q=shipping"))
    tab_to(page, 'a[href="/ui/tools/shipping_cost"]')
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/ui/tools/shipping_cost$"))
    tab_to(page, 'a[href="/ui/tools/shipping_cost/confirm/disable"]')
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"  # the focus is visible
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/confirm/disable$"))
    tab_to(page, "button.confirm-disable")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"done=disable"))
    page.shots.take("keyboard-disabled")
    assert api_status(own_server, "shipping_cost") == "disabled"


NARROW = {"width": 390, "height": 844}  # a phone held upright
NARROW_PAGES = (
    "/ui/tools",
    "/ui/tools/switch_probe",  # a workflow's long JSON lines
    "/ui/tools/order_total?tab=parameters",
    "/ui/tools/label?tab=versions",
    "/ui/tools/refund_order?tab=audit",
    "/ui/tools/shipping_cost?tab=test",
    "/ui/tools/shipping_cost/confirm/delete",
    "/ui/new",
    "/ui/tools/no_such_tool",
)


def overflow(page) -> dict[str, object]:
    """What sticks out at this width: the document's horizontal scroll, the header band's
    width against the document's, boxes past the window's edge, a table wider than itself that
    does not scroll inside, and a box of code whose text does not wrap inside it (a workflow's
    text is one long JSON string)."""
    return page.evaluate(
        """() => {
          const doc = document.documentElement;
          const spilled = [...document.querySelectorAll("pre, table")].filter((box) => {
            const style = getComputedStyle(box);
            const scrolls = box.tagName === "TABLE" && ["auto", "scroll"].includes(style.overflowX);
            return box.getBoundingClientRect().right > doc.clientWidth + 1
              || (!scrolls && box.scrollWidth > box.clientWidth + 1);
          }).map((box) => box.className || box.tagName);
          return {scroll: doc.scrollWidth - doc.clientWidth,
                  band: Math.round(document.querySelector("header.top").getBoundingClientRect().width) - doc.scrollWidth,
                  spilled};
        }"""
    )


def test_at_390_px_nothing_scrolls_sideways_and_the_header_band_is_whole(browser, server):
    context = browser.new_context(viewport=NARROW)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    shots = Shots(page, "narrow")
    sign_in(page, server, "admin")
    found = {}
    for path in NARROW_PAGES:
        page.goto(f"{server.url}{path}")
        shots.take(re.sub(r"\W+", "_", path.strip("/")))
        found[path] = overflow(page)
    context.close()
    assert found == {path: {"scroll": 0, "band": 0, "spilled": []} for path in NARROW_PAGES}


def test_the_live_check_of_a_new_tool_says_its_name_is_taken(page, server):
    sign_in(page, server, "write")
    page.get_by_role("link", name="New tool").click()
    assert page.locator("#definition").input_value().startswith("tool shipping_cost_2(")  # shipping_cost exists
    page.locator("#diagnostic-summary", has_text="No problems found").wait_for()
    type_definition(page, 'tool shipping_cost(w: number) description "Taken" {\n  return w\n}\n')
    page.locator("pre.diagnostic-error", has_text="R0103").wait_for()
    assert page.locator("#save").is_disabled()
    page.shots.take("name-taken")


def test_the_editor_numbers_lines_colours_keywords_and_marks_a_diagnostic_where_it_is(page, server):
    sign_in(page, server, "write")
    page.goto(f"{server.url}/ui/new")
    type_definition(
        page, 'tool perimeter(w: number, h: number) description "Perimeter" {\n  return 2 * (w + hieght)\n}\n'
    )
    mark = page.locator(".CodeMirror .cm-diagnostic-error")
    mark.wait_for()
    assert mark.inner_text() == "hieght"  # the span of E0201, no more
    assert page.locator(".CodeMirror-linenumber", has_text="3").count() == 1
    assert page.locator(".CodeMirror .cm-keyword", has_text="tool").count() == 1
    assert page.locator(".CodeMirror .cm-keyword", has_text="return").count() == 1
    page.get_by_role("button", name="Go to line 2, column 19").click()
    cursor = page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.getCursor()")
    assert (cursor["line"], cursor["ch"]) == (1, 18)
    page.shots.take("editor-marked")
