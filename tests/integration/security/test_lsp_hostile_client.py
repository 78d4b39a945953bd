"""`toolkiln lsp` against a client that sends what no editor should: a 5 MB document, a body
that is not UTF-8, JSON that is not JSON-RPC, unknown methods, a document with 10,000 errors,
a Content-Length past the bound, a request about a file it was never sent. The server answers
errors (or nothing, for a notification) and stays up: after each, a hover is answered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_client import LspClient

TOOL = 'tool t(n: number)\ndescription "T"\n{\n  return round(n)\n}\n'


@pytest.fixture
def client(tmp_path: Path) -> Iterator[LspClient]:
    session = LspClient(cwd=tmp_path)
    try:
        session.initialize(tmp_path)
        yield session
    finally:
        session.kill()


def still_answers(client: LspClient, tmp_path: Path) -> None:
    """The server is alive and serving: a fresh document is checked and hovered."""
    path = tmp_path / "alive.tk"
    assert client.open(path, TOOL) == []
    hovered = client.at("textDocument/hover", path, 3, TOOL.splitlines()[3].index("round") + 1)
    assert "round(x, digits?)" in hovered["contents"]["value"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
    client.diagnostics_cleared(path.as_uri())


def test_a_5_mb_document_is_one_coded_diagnostic(client: LspClient, tmp_path: Path) -> None:
    big = "x = 1\n" * (5 * 1024 * 1024 // 6)
    published = client.open(tmp_path / "big.tk", big)
    assert [d["code"] for d in published] == ["E0401"]
    still_answers(client, tmp_path)


def test_a_body_that_is_not_utf8_json_or_a_message_gets_an_error_with_id_null(
    client: LspClient, tmp_path: Path
) -> None:
    bodies = {
        b"\xff\xfe{not utf-8\x80}": -32700,
        b"{broken json": -32700,
        b"[]": -32600,
        b"null": -32600,
        b'"x"': -32600,
    }
    for body, code in bodies.items():
        client.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        answer = client.wait_for(lambda m: "error" in m and m.get("id") is None)
        assert answer["error"]["code"] == code, body
    client.send({"jsonrpc": "2.0"})  # no method, no id: nothing to answer
    client.send_raw(b"Content-Length: nope\r\n\r\n")  # a header that is no length
    still_answers(client, tmp_path)


def test_wrong_params_and_unknown_methods_get_json_rpc_errors(client: LspClient, tmp_path: Path) -> None:
    bad = client.request("textDocument/hover", {"textDocument": 42})
    assert bad["error"]["code"] == -32602  # invalid params: answered, with its id
    unknown = client.request("toolkiln/noSuchMethod", {})
    assert unknown["error"]["code"] == -32601  # method not found
    assert "traceback" not in json.dumps(unknown).lower()
    client.notify("toolkiln/noSuchNotification", {})
    never_opened = {"uri": (tmp_path / "never.tk").as_uri(), "version": 2}
    client.notify("textDocument/didChange", {"textDocument": never_opened, "contentChanges": [{"text": "x"}]})
    still_answers(client, tmp_path)


def test_a_document_with_10000_errors_publishes_at_most_1001_diagnostics(client: LspClient, tmp_path: Path) -> None:
    names = ", ".join(f"y{i}" for i in range(10_000))
    published = client.open(tmp_path / "many.tk", f'tool t()\ndescription "T"\n{{\n  return [{names}]\n}}\n')
    assert len(published) == 1001
    assert {d["code"] for d in published[:1000]} == {"E0201"}
    assert published[-1]["message"].startswith("9,000 more diagnostics not shown")
    still_answers(client, tmp_path)


def test_a_message_past_the_bound_is_dropped_unread_with_r0802(client: LspClient, tmp_path: Path) -> None:
    size = 64 * 1024 * 1024 + 1
    client.send_raw(b"Content-Length: %d\r\n\r\n" % size)
    chunk = b" " * (1 << 20)
    for _ in range(size // len(chunk)):
        client.send_raw(chunk)
    client.send_raw(b" " * (size % len(chunk)))
    shown = client.notification("window/showMessage", lambda p: "R0802" in p["message"])
    assert f"{size:,} bytes" in shown["message"]
    still_answers(client, tmp_path)


def test_requests_about_documents_never_opened_read_nothing(client: LspClient, tmp_path: Path) -> None:
    """A request names a file the server was not sent (a device that never ends, a secret): it
    answers nothing and reads nothing; only the editor's open documents are read."""
    secret = tmp_path / "secret.tk"
    secret.write_text(TOOL)
    for uri in ("file:///dev/zero", secret.as_uri()):
        position = {"line": 3, "character": 10}
        for method in ("textDocument/hover", "textDocument/definition", "textDocument/completion"):
            assert client.result(method, {"textDocument": {"uri": uri}, "position": position}) is None
        formatting = {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
        assert client.result("textDocument/formatting", formatting) is None
    still_answers(client, tmp_path)


def test_a_request_after_shutdown_is_refused_and_exit_ends_the_server(client: LspClient, tmp_path: Path) -> None:
    path = tmp_path / "t.tk"
    client.open(path, TOOL)
    assert client.result("shutdown", None) is None
    late = client.request(
        "textDocument/hover", {"textDocument": {"uri": path.as_uri()}, "position": {"line": 3, "character": 10}}
    )
    assert late["error"]["code"] == -32600
    client.notify("exit", None)
    assert client.process.wait(timeout=60) == 0
