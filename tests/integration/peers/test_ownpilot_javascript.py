"""OwnPilot's custom tools imported as they are (issue 27, item 5): `tools import --from
ownpilot` makes each documented example (../shared/corpus/peers/ownpilot/doc-examples/) a
`javascript` script tool whose code runs unchanged with toolkiln's `utils`, in the real
bubblewrap sandbox; permissions and API keys mapped and shown; what does not map refused."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from peers_corpus import peer, read_json

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.registry.errors import ToolNotActive
from toolkiln.registry.ownpilot import import_ownpilot
from toolkiln.registry.registry import Registry
from toolkiln.registry.secrets import KEY_ENV, SecretStore

EXAMPLES = peer("ownpilot") / "doc-examples"
NAMES = ["word_frequency", "csv_analyzer", "fetch_weather", "summarize_url"]
pytestmark = pytest.mark.usefixtures("bwrap_installed")


@pytest.fixture
def reg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv(KEY_ENV, raising=False)
    with Registry(tmp_path / "registry", durable=False, usage_flush_seconds=0) as registry:
        done = import_ownpilot(registry, [EXAMPLES / f"{name}.json" for name in NAMES])
        assert done.problems == [] and [r.name for r in done.created] == NAMES
        assert done.mapped == [
            "fetch_weather.json: permission network -> network: true",
            "fetch_weather.json: requiredApiKeys weatherapi -> secret WEATHERAPI",
            "summarize_url.json: permission network -> network: true",
        ]
        yield registry


def test_word_frequency_runs_its_own_javascript_in_the_sandbox(reg: Registry):
    record = reg.get("word_frequency")
    assert (record.definition["runtime"], record.definition["network"]) == ("javascript", False)
    result = reg.run("word_frequency", {"text": "The cat and the hat. THE end!"})
    assert result["sandbox"] == "bubblewrap"
    assert result["output"] == {
        "totalWords": 7,
        "uniqueWords": 5,
        "top20": [["the", 3], ["cat", 1], ["and", 1], ["hat", 1], ["end", 1]],
    }


def test_csv_analyzer_runs_with_toolkilns_utils(reg: Registry):
    output = reg.run("csv_analyzer", {"csv": "name,qty\nbolt, 4\nnut,6\nwasher,x", "numeric_column": "qty"})["output"]
    assert (output["rowCount"], output["columns"]) == (3, ["name", "qty"])
    assert output["stats"] == {"count": 2, "sum": 10, "avg": 5, "min": 4, "max": 6}
    assert len(output["id"]) == 36 and output["analyzedAt"].endswith("Z")


def test_fetch_weather_reads_its_api_key_from_the_secret_and_gets_fetch_only_with_the_network(reg: Registry):
    with pytest.raises(RunError) as unset:
        reg.run("fetch_weather", {"city": "Berlin"})
    assert unset.value.code == "R0742"  # the declared secret is not set: nothing ran
    SecretStore(reg.path).set("WEATHERAPI", "wx-not-a-real-key")
    reg.update("fetch_weather", {"network": False})  # so that no request can leave in a test
    with pytest.raises(RunError) as refused:
        reg.run("fetch_weather", {"city": "Berlin"})
    assert refused.value.code == codes.PROGRAM_FAILED.code
    assert "fetch needs the network permission" in (refused.value.hint or "")


def test_summarize_url_calls_a_registry_tool_as_its_caller(reg: Registry):
    page = "one two three four five"
    reg.create(
        {
            "name": "web_fetch",
            "description": "A page's text (here: made up, no network)",
            "parameters": {"url": {"type": "string"}},
            "logic": {"steps": [{"op": "return", "value": f'"{page} at " + url'}]},
        }
    )
    reg.update("summarize_url", {"network": False})  # (it needs none: web_fetch is the registry's)
    outcome = reg.invoke("summarize_url", {"url": "http://127.0.0.1:9/"}, principal="user")
    assert outcome.ok, outcome.errors
    found = outcome.result["output"]
    assert (found["url"], found["wordCount"], found["preview"]) == (
        "http://127.0.0.1:9/",
        7,
        f"{page} at http://127.0.0.1:9/",
    )
    with pytest.raises(RunError) as alone:  # Registry.run knows no principal to call as
        reg.run("summarize_url", {"url": "http://127.0.0.1:9/"})
    assert "this run was made through Registry.run, for no one" in (alone.value.hint or "")


def test_a_models_tool_with_the_network_waits_for_a_person(reg: Registry, tmp_path: Path):
    example = read_json(EXAMPLES / "fetch_weather.json")
    made = tmp_path / "model_weather.json"
    made.write_text(json.dumps({**example, "name": "model_weather", "createdBy": "llm"}), encoding="utf-8")
    done = import_ownpilot(reg, [made])
    assert [(r.name, r.status, r.created_by) for r in done.created] == [("model_weather", "pending_approval", "llm")]
    with pytest.raises(ToolNotActive):
        reg.run("model_weather", {"city": "Berlin"})


@pytest.mark.parametrize("permission", ["filesystem", "database", "shell", "email", "scheduling"])
def test_a_permission_without_a_counterpart_is_refused_and_the_rest_imported(reg: Registry, tmp_path, permission):
    example = read_json(EXAMPLES / "word_frequency.json")
    asks = tmp_path / "asks.json"
    asks.write_text(json.dumps({**example, "name": "asks", "permissions": [permission]}), encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**example, "name": "broken", "code": 42}), encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**example, "name": "other"}), encoding="utf-8")
    done = import_ownpilot(reg, [asks, broken, other])
    assert [r.name for r in done.created] == ["other"]
    found = {p.file: [(d.code, d.span.path if d.span else None) for d in p.diagnostics] for p in done.problems}
    assert found == {
        "asks.json": [(codes.PEER_PERMISSION_UNMAPPED.code, "permissions[0]")],
        "broken.json": [(codes.PEER_FILE_INVALID.code, "code")],
    }


def test_the_command_line_shows_what_each_permission_became(tmp_path: Path):
    env = {**os.environ, "TOOLKILN_STATE_DIR": str(tmp_path / "state")}
    files = [str(EXAMPLES / f"{name}.json") for name in ("fetch_weather", "word_frequency")]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkiln",
            "tools",
            "import",
            "--registry",
            str(tmp_path / "r"),
            "--from",
            "ownpilot",
            *files,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "created fetch_weather (script, version 1, active)" in done.stdout
    assert "fetch_weather.json: requiredApiKeys weatherapi -> secret WEATHERAPI" in done.stdout
    assert "2 imported, 0 not imported" in done.stderr


def test_fetch_reaches_a_server_only_when_the_network_is_granted(reg: Registry, tmp_path: Path):
    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"path": self.path, "key": self.headers.get("x-key")}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        code = (
            "const res = await fetch(args.url, { headers: { 'x-key': 'k1' } });\n"
            "return { ok: res.ok, status: res.status, type: res.headers.get('Content-Type'), data: await res.json() };\n"
        )
        parameters = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
        tool = {"name": "fetcher", "description": "Fetches.", "permissions": ["network"], "parameters": parameters}
        tool["code"] = code
        (tmp_path / "fetcher.json").write_text(json.dumps(tool), encoding="utf-8")
        assert import_ownpilot(reg, [tmp_path / "fetcher.json"]).problems == []
        url = f"http://127.0.0.1:{server.server_port}/q?city=Berlin"
        assert reg.run("fetcher", {"url": url})["output"] == {
            "ok": True,
            "status": 200,
            "type": "application/json",
            "data": {"path": "/q?city=Berlin", "key": "k1"},
        }
        reg.update("fetcher", {"network": False})
        with pytest.raises(RunError) as refused:
            reg.run("fetcher", {"url": url})
        assert "fetch needs the network permission" in (refused.value.hint or "")
    finally:
        server.shutdown()
