"""`toolkiln lsp` in a real session: the server as a subprocess, a client speaking JSON-RPC over
its standard input and output (lsp_client.py). Each feature is compared with what the command
line gives for the same text: `toolkiln check --format json` and `toolkiln fmt`. Under a burst of
changes (an editor sends one per keystroke) every change is applied in order, the newest text's
diagnostics are published with its version, never an older result after a newer one, and a
burst that arrives at once is checked once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_client import SRC, LspClient

from toolkiln.documents import check_text

GREET = """tool greet(name: string, n: number)
description "Greets"
{
  s = "🎉 hi" + name
  ok = n > 1 && n < 5
  return {"s": s, "ok": ok, "r": round(n, 2)}
}
"""
FIXED = GREET.replace("&&", "and")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[LspClient]:
    registry = tmp_path / "registry"
    (registry / "tools").mkdir(parents=True)
    (registry / "audit.jsonl").write_text("")
    session = LspClient("--registry", str(registry), cwd=tmp_path)
    try:
        session.initialize(tmp_path)
        yield session
    finally:
        session.kill()


def toolkiln(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_initialize_announces_every_feature(tmp_path: Path) -> None:
    session = LspClient(cwd=tmp_path)
    try:
        capabilities = session.initialize(tmp_path)["capabilities"]
        assert capabilities["positionEncoding"] == "utf-16"
        assert capabilities["hoverProvider"] and capabilities["definitionProvider"]
        assert capabilities["documentFormattingProvider"] and "completionProvider" in capabilities
        assert "quickfix" in capabilities["codeActionProvider"]["codeActionKinds"]
        assert session.close() == 0  # shutdown, then exit: exit code 0
    finally:
        session.kill()


def test_diagnostics_have_the_codes_messages_and_spans_of_toolkiln_check(client: LspClient, tmp_path: Path) -> None:
    path = tmp_path / "greet.tk"
    path.write_text(GREET, encoding="utf-8")
    published = client.open(path, GREET)
    checked = json.loads(toolkiln("check", "--format", "json", path.name, cwd=tmp_path).stdout)
    assert [d["code"] for d in published] == [d["code"] for d in checked] == ["E0101"]
    for sent, expected in zip(published, checked, strict=True):
        assert sent["message"] == f"{expected['message']}\nhint: {expected['hint']}"
        assert sent["range"]["start"] == {"line": expected["line"] - 1, "character": expected["column"] - 1}
        assert sent["range"]["end"] == {"line": expected["end_line"] - 1, "character": expected["end_column"] - 1}
        assert sent["severity"] == 1 and sent["source"] == "toolkiln"


def test_columns_count_utf16_units_after_a_character_beyond_the_bmp(client: LspClient, tmp_path: Path) -> None:
    text = 'tool t(n: number) {\n  ok = "🎉" == "x" && n < 5\n  return ok\n}\n'
    line = text.splitlines()[1]
    published = client.open(tmp_path / "emoji.tk", text)
    assert [d["code"] for d in published] == ["E0101"]
    start = line.index("&&")
    assert published[0]["range"]["start"] == {"line": 1, "character": utf16(line[:start])}
    assert utf16(line[:start]) == start + 1  # the emoji is two UTF-16 units, one character
    assert published[0]["range"]["end"]["character"] == utf16(line[:start]) + 2


def test_a_client_that_offers_utf8_first_gets_columns_in_bytes(tmp_path: Path) -> None:
    text = 'tool t(n: number) {\n  ok = "é🎉" == "x" && n < 5\n  return ok\n}\n'
    line = text.splitlines()[1]
    session = LspClient(cwd=tmp_path)
    try:
        assert session.initialize(tmp_path, ("utf-8", "utf-16"))["capabilities"]["positionEncoding"] == "utf-8"
        [diagnostic] = session.open(tmp_path / "bytes.tk", text)
        start = len(line[: line.index("&&")].encode("utf-8"))
        assert diagnostic["range"]["start"] == {"line": 1, "character": start}
        assert start == line.index("&&") + 1 + 3  # é is two bytes, the emoji four
    finally:
        session.kill()


def test_a_quick_fix_edits_the_document_and_its_diagnostic_goes(client: LspClient, tmp_path: Path) -> None:
    path = tmp_path / "greet.tk"
    [diagnostic] = client.open(path, GREET)
    actions = client.result(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": path.as_uri()},
            "range": diagnostic["range"],
            "context": {"diagnostics": [diagnostic]},
        },
    )
    quick = [a for a in actions if a["kind"] == "quickfix"]
    assert len(quick) == 1 and quick[0]["diagnostics"][0]["code"] == "E0101"
    [edit] = quick[0]["edit"]["changes"][path.as_uri()]
    assert edit == {"range": diagnostic["range"], "newText": "and"}
    # Applied as an editor does: an incremental change of that range.
    after = client.change(path, 2, [{"range": edit["range"], "text": edit["newText"]}])
    assert after == []
    fix_all = [a for a in actions if a["kind"] == "source.fixAll.toolkiln"]
    assert fix_all[0]["edit"]["changes"][path.as_uri()][0]["newText"] == FIXED


def test_hover_shows_a_builtins_signature_and_a_variables_type(client: LspClient, tmp_path: Path) -> None:
    path = tmp_path / "greet.tk"
    client.open(path, FIXED)
    line = FIXED.splitlines()[5]
    builtin = client.at("textDocument/hover", path, 5, line.index("round") + 2)
    assert "round(x, digits?)" in builtin["contents"]["value"]
    assert builtin["range"]["start"] == {"line": 5, "character": line.index("round")}
    read = client.at("textDocument/hover", path, 5, line.index('"ok": ok') + 7)
    assert "(variable) ok: boolean" in read["contents"]["value"]
    parameter = client.at("textDocument/hover", path, 0, FIXED.index("n: number"))
    assert "(parameter) n: number" in parameter["contents"]["value"]
    assert client.at("textDocument/hover", path, 5, 2) is None  # `return`: nothing to say


def test_completion_offers_builtins_and_the_names_in_scope(client: LspClient, tmp_path: Path) -> None:
    path = tmp_path / "greet.tk"
    client.open(path, FIXED)
    items = client.at("textDocument/completion", path, 4, 2)  # before `ok` is assigned
    labels = {item["label"]: item for item in items}
    assert {"name", "n", "s", "round", "sum"} <= set(labels)
    assert "ok" not in labels  # assigned later
    assert labels["s"]["detail"] == "variable: string" and labels["round"]["detail"] == "round(x, digits?)"
    later = {item["label"] for item in client.at("textDocument/completion", path, 5, 2)}
    assert "ok" in later


def test_formatting_gives_what_toolkiln_fmt_writes(client: LspClient, tmp_path: Path) -> None:
    messy = 'tool t(a: number,b: number)\ndescription   "T"\n{\n    c = a+b   # keep me\n  return c*2\n}\n'
    path = tmp_path / "messy.tk"
    path.write_text(messy, encoding="utf-8")
    client.open(path, messy)
    edits = client.result(
        "textDocument/formatting",
        {"textDocument": {"uri": path.as_uri()}, "options": {"tabSize": 2, "insertSpaces": True}},
    )
    assert toolkiln("fmt", path.name, cwd=tmp_path).returncode == 0
    formatted = path.read_text(encoding="utf-8")
    assert formatted != messy
    assert edits == [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 6, "character": 0}}, "newText": formatted}
    ]


def test_definition_finds_a_sibling_tool_file_then_the_registrys_record(client: LspClient, tmp_path: Path) -> None:
    caller = "cost = call shipping(weight_kg = w)\ntaxed = call vat(x = cost)\nreturn taxed\n"
    path = tmp_path / "order.tk"
    (tmp_path / "shipping.tk").write_text("tool shipping(weight_kg: number) {\n  return weight_kg * 2\n}\n")
    record = tmp_path / "registry" / "tools" / "vat.json"
    record.write_text("{}")
    client.open(path, caller)
    line = caller.splitlines()
    sibling = client.at("textDocument/definition", path, 0, line[0].index("shipping") + 1)
    assert sibling["uri"] == (tmp_path / "shipping.tk").resolve().as_uri()
    registered = client.at("textDocument/definition", path, 1, line[1].index("vat") + 1)
    assert registered["uri"] == record.resolve().as_uri()
    assert client.at("textDocument/definition", path, 0, line[0].index("cost") + 1) is None  # not a tool


def test_an_untitled_document_is_checked_as_a_tool(client: LspClient) -> None:
    uri = "untitled:Untitled-1"
    document = {"uri": uri, "languageId": "toolkiln", "version": 1, "text": GREET}
    client.notify("textDocument/didOpen", {"textDocument": document})
    assert [d["code"] for d in client.diagnostics(uri, 1)] == ["E0101"]


def test_json_and_workflow_documents_get_the_diagnostics_of_check(client: LspClient, tmp_path: Path) -> None:
    tool = '{\n  "steps": [\n    {"op": "math", "expression": "x &&", "output": "y"},\n    {"op": "return", "value": "y"}\n  ]\n}\n'
    workflow = "workflow w {\n  trigger manual\n  step a = nosuchnode {}\n}\n"
    for name, text in (("bad.json", tool), ("w.wf", workflow)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        published = client.open(path, text)
        checked = json.loads(toolkiln("check", "--format", "json", name, cwd=tmp_path).stdout)
        assert [d["code"] for d in published] == [d["code"] for d in checked] and checked, name
        assert [d["range"]["start"]["line"] for d in published] == [d["line"] - 1 for d in checked], name


BURST_TEXT = 'tool t(n: number)\ndescription "T"\n{\n  return n + x\n}\n'
TYPED = "0123456789"  # typed after `x`, one character a change: versions 2 to 11


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def typing(uri: str) -> bytes:
    """One didChange a character, each an insertion after the one before (all in one write)."""
    column = BURST_TEXT.splitlines()[3].index("x") + 1
    changes = []
    for offset, char in enumerate(TYPED):
        at = {"line": 3, "character": column + offset}
        params = {
            "textDocument": {"uri": uri, "version": offset + 2},
            "contentChanges": [{"range": {"start": at, "end": at}, "text": char}],
        }
        changes.append(frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": params}))
    return b"".join(changes)


def test_a_burst_of_changes_publishes_the_newest_text_once_and_never_an_older_one(
    client: LspClient, tmp_path: Path
) -> None:
    path = tmp_path / "burst.tk"
    uri = path.as_uri()
    assert [d["code"] for d in client.open(path, BURST_TEXT)] == ["E0201"]
    client.send_raw(typing(uri))
    newest = client.diagnostics(uri, len(TYPED) + 1)
    client.result("shutdown", None)  # answered after everything sent before it: nothing is in flight
    earlier = [
        m["params"]["version"]
        for m in client.pending
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    ]
    versions = [*earlier, len(TYPED) + 1]
    assert versions == sorted(set(versions)), versions  # never an older result after a newer one
    assert len(versions) < len(TYPED), versions  # the burst was checked fewer times than it has changes
    typed = BURST_TEXT.replace("+ x", "+ x" + TYPED)
    expected = check_text(typed, str(path))
    assert [(d["code"], d["message"]) for d in newest] == [
        (d.code, d.message + (f"\nhint: {d.hint}" if d.hint else "")) for d in expected
    ]
    assert "x0123456789" in newest[0]["message"]
